// Package catalog holds the products and categories of the store: their
// types, the rules a product or category must satisfy (docs/api.md
// section 6), the use cases behind the catalog
// operations, and the Store interface their storage implements.
//
// Other areas call the Service in-process: Products (a batch get of the
// records the cart prices and titles) and CategoryAncestors (the categories
// a product counts for in promotions, ancestors included).
//
// Layout (CONVENTIONS.md): catalog.go the records and errors, input.go the
// operations' arguments (literal.go the typed JSON value of classification
// values and price amounts), store.go the Store and Tx interfaces and their
// filters, service*.go the use cases, and the rules in validate.go,
// price.go and classification.go. Slugs, skus and tax codes are stored and
// compared as commerce.Key normalises them (Unicode NFC).
package catalog

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// RootID is the id of the root category, which exists from the start.
const RootID = "ROOT"

// Product statuses.
const (
	StatusOnline = "ONLINE"
	StatusDraft  = "DRAFT"
)

// Product stock statuses.
const (
	StockNormal       = 0
	StockUnlimited    = 1
	StockDiscontinued = 2
)

// Classification types.
const (
	TypeString  = "STRING"
	TypeBoolean = "BOOLEAN"
	TypeNumber  = "NUMBER"
)

// DefaultTaxCode is the tax code of a product that gives none.
const DefaultTaxCode = "default"

// ProductNotFound is the error of a product that does not exist:
// product_not_found, data the id.
func ProductNotFound(id string) *commerce.Error {
	return commerce.NewError(commerce.EProductNotFound, id)
}

// CategoryNotFound is the error of a category that does not exist:
// category_not_found, data the id.
func CategoryNotFound(id string) *commerce.Error {
	return commerce.NewError(commerce.ECategoryNotFound, id)
}

// DefaultMaxCategories is the default number of categories a product may
// belong to (max_categories_per_product_reached above it).
const DefaultMaxCategories = 5

// CustomerTypes are the values a price's customerType may take.
var CustomerTypes = []string{"VIP", "B2B", "B2C"}

// Product is a product: the record the service checks and the store keeps.
// Its JSON form (MarshalJSON) is the interface's: prices hold minor units
// and marshal to major units. The store keeps its own, versioned form, so
// that either can change without the other.
//
// A Base product has Modifiers (and Variants, the ids of the Variant
// products whose base it is, in creation order, kept up to date by the
// service); a Variant product has Base and Variations.
type Product struct {
	ID              string                `json:"id"`
	SKU             string                `json:"sku"`
	Status          string                `json:"status"`
	Title           string                `json:"title"`
	Description     string                `json:"description,omitempty"`
	Brand           string                `json:"brand,omitempty"`
	Categories      []string              `json:"categories"`
	Prices          []Price               `json:"prices"`
	IsNetPrice      bool                  `json:"isNetPrice"`
	StockStatus     int                   `json:"stockStatus"`
	Medias          []Media               `json:"medias"`
	Classifications []ClassificationValue `json:"classifications"`
	Base            string                `json:"base,omitempty"`
	Variations      []Variation           `json:"variations,omitempty"`
	Modifiers       []string              `json:"modifiers,omitempty"`
	// Variants is nil for a product that is not a Base (the field is then
	// left out of its JSON) and the list, possibly empty, for a Base. It is
	// computed from the Variants' base on every read, never stored, and
	// not read back from JSON.
	Variants []string `json:"-"`
	TaxCode  string   `json:"taxCode"`
	// Slug is the product's slug in the locale read (docs/api.md section
	// 27): a product's slugs are its translations'; "" (left out) when
	// the locale has none. Never stored.
	Slug string `json:"slug,omitempty"`
	// Translations are the product's text in the store's other locales.
	Translations Translations `json:"translations,omitempty"`
}

// productJSON is Product's JSON form: variants listed (even when empty) for
// a Base product only.
type productJSON struct {
	productAlias
	Variants *[]string `json:"variants,omitempty"`
}

type productAlias Product

// MarshalJSON writes the product; `variants` appears when Variants is not nil.
func (p Product) MarshalJSON() ([]byte, error) {
	out := productJSON{productAlias: productAlias(p)}
	if p.Variants != nil {
		out.Variants = &p.Variants
	}
	return json.Marshal(out)
}

// IsBase reports whether the product is a Base product (it has modifiers).
func (p *Product) IsBase() bool { return len(p.Modifiers) > 0 }

// IsVariant reports whether the product is a Variant product (it has a base).
func (p *Product) IsVariant() bool { return p.Base != "" }

// Price is one price of a product. Amount is in minor units of Currency;
// Country, CustomerType and Channel are empty when the price is not
// restricted by them; ValidFrom and ValidUntil are both set or both nil.
type Price struct {
	ID           string
	Amount       int64
	Currency     string
	Country      string
	CustomerType string
	Channel      string
	ValidFrom    *time.Time
	ValidUntil   *time.Time
}

// priceJSON is Price's JSON form: amount in major units, dates RFC 3339 in
// UTC.
type priceJSON struct {
	ID           string      `json:"id"`
	Amount       json.Number `json:"amount"`
	Currency     string      `json:"currency"`
	Country      string      `json:"country,omitempty"`
	CustomerType string      `json:"customerType,omitempty"`
	Channel      string      `json:"channel,omitempty"`
	ValidFrom    *time.Time  `json:"validFrom,omitempty"`
	ValidUntil   *time.Time  `json:"validUntil,omitempty"`
}

// MarshalJSON writes the price with its amount in major units (577.65).
func (p Price) MarshalJSON() ([]byte, error) {
	prec, err := money.Precision(p.Currency)
	if err != nil {
		return nil, fmt.Errorf("price %s: %w", p.ID, err)
	}
	out := priceJSON{ID: p.ID, Amount: money.Major(p.Amount, prec), Currency: p.Currency,
		Country: p.Country, CustomerType: p.CustomerType, Channel: p.Channel}
	if p.ValidFrom != nil {
		t := p.ValidFrom.UTC()
		out.ValidFrom = &t
	}
	if p.ValidUntil != nil {
		t := p.ValidUntil.UTC()
		out.ValidUntil = &t
	}
	return json.Marshal(out)
}

// Media is a media entry of a product.
type Media struct {
	// ID identifies the media within the product.
	ID string `json:"id"`
	// URL is where the media is.
	URL string `json:"url"`
	// Alt is the image's alternative text (docs/api.md section 23).
	Alt string `json:"alt,omitempty"`
	// Width is the image's width in pixels, when known (an uploaded
	// image's).
	Width int `json:"width,omitempty"`
	// Height is the image's height in pixels, when known.
	Height int `json:"height,omitempty"`
}

// Variation is the value a Variant product gives for one modifier of its
// Base product.
type Variation struct {
	// ID is the name of the Base product's modifier.
	ID string `json:"id"`
	// Value is the Variant's value of it.
	Value string `json:"value"`
}

// ClassificationValue is a product's value for a classification defined by
// one of its categories (or their ancestors). In a stored product Value is
// a number for NUMBER, a boolean for BOOLEAN and a string for STRING; as
// given (an input) it may be any JSON value, which the service checks and
// converts.
type ClassificationValue struct {
	// ID is the id of the classification (defined by a category of the
	// product or one of their ancestors).
	ID string `json:"id"`
	// Value is the product's value, of the classification's type: NUMBER
	// as a number or numeric string, BOOLEAN as true/false or "true"/"false".
	Value Literal `json:"value,omitzero"`
}

// Category is a category of the tree. Description is nil when absent (null
// in the JSON form). Parent is empty for the root only.
type Category struct {
	ID              string              `json:"id"`
	Title           string              `json:"title"`
	Description     *string             `json:"description"`
	Slug            string              `json:"slug"`
	Parent          string              `json:"parent,omitempty"`
	Classifications []ClassificationDef `json:"classifications"`
	Level           int                 `json:"level"`
	Path            string              `json:"path"`
	// Translations are the category's text in the store's other locales.
	Translations Translations `json:"translations,omitempty"`
	// Children is nil unless children were asked for (category.info with
	// withChildren); it is then listed, possibly empty.
	Children []*Category `json:"-"`
}

type categoryAlias Category

type categoryJSON struct {
	categoryAlias
	Children *[]*Category `json:"children,omitempty"`
}

// MarshalJSON writes the category; `children` appears when Children is not nil.
func (c Category) MarshalJSON() ([]byte, error) {
	out := categoryJSON{categoryAlias: categoryAlias(c)}
	if out.Classifications == nil {
		out.Classifications = []ClassificationDef{}
	}
	if c.Children != nil {
		out.Children = &c.Children
	}
	return json.Marshal(out)
}

// ClassificationDef is a classification a category defines for its
// products (and those of its descendants).
type ClassificationDef struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Type        string `json:"type"`
	Mandatory   bool   `json:"mandatory"`
}
