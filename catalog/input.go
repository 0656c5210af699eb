package catalog

import (
	"bytes"
	"encoding/json"
)

// ProductInput is the body of product.create and product.update: every
// field is optional in the type (nil: absent, which JSON null also means);
// create requires sku, status, title, categories and stockStatus.
type ProductInput struct {
	SKU             *string                `json:"sku,omitempty"`
	Status          *string                `json:"status,omitempty"`
	Title           *string                `json:"title,omitempty"`
	Description     *string                `json:"description,omitempty"`
	Brand           *string                `json:"brand,omitempty"`
	Categories      *[]string              `json:"categories,omitempty"`
	Prices          *[]PriceInput          `json:"prices,omitempty"`
	IsNetPrice      *bool                  `json:"isNetPrice,omitempty"`
	StockStatus     *int                   `json:"stockStatus,omitempty"`
	Medias          *[]Media               `json:"medias,omitempty"`
	Classifications *[]ClassificationValue `json:"classifications,omitempty"`
	Base            *string                `json:"base,omitempty"`
	Variations      *[]Variation           `json:"variations,omitempty"`
	Modifiers       *[]string              `json:"modifiers,omitempty"`
	Variants        *[]string              `json:"variants,omitempty"`
	TaxCode         *string                `json:"taxCode,omitempty"`
}

// PriceInput is one element of `prices` as the client sent it, kept as raw
// JSON so that price_invalid can return "the offending price object as
// given"; the service parses and validates it.
type PriceInput struct {
	Raw json.RawMessage
}

// UnmarshalJSON keeps the element as given; it never fails.
func (p *PriceInput) UnmarshalJSON(b []byte) error {
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes the element as it was given.
func (p PriceInput) MarshalJSON() ([]byte, error) {
	if len(bytes.TrimSpace(p.Raw)) == 0 {
		return []byte("null"), nil
	}
	return p.Raw, nil
}

// CategoryInput is the body of category.create and category.update; create
// requires title and slug (parent defaults to ROOT).
type CategoryInput struct {
	Title           *string                   `json:"title,omitempty"`
	Description     *string                   `json:"description,omitempty"`
	Slug            *string                   `json:"slug,omitempty"`
	Parent          *string                   `json:"parent,omitempty"`
	Classifications *[]ClassificationDefInput `json:"classifications,omitempty"`
}

// ClassificationDefInput is a classification definition as given; all four
// fields are required.
type ClassificationDefInput struct {
	ID          *string `json:"id,omitempty"`
	Description *string `json:"description,omitempty"`
	Type        *string `json:"type,omitempty"`
	Mandatory   *bool   `json:"mandatory,omitempty"`
}

// ProductFilter selects products for ListProducts. Every field is optional;
// lists match any of their values, Title, Description and Brand are
// case-insensitive RE2 regular expressions matching anywhere. The price
// filters apply to one and the same price of the product (a product matches
// when one of its prices satisfies all of them).
type ProductFilter struct {
	IDs           []string
	SKUs          []string
	Title         string
	Description   string
	Statuses      []string // default: ONLINE only (DRAFT is left out unless asked for)
	Brand         string
	TaxCodes      []string
	StockStatuses []int
	IsNetPrice    *bool
	Bases         []string
	// Categories matches products that list one of the categories itself
	// (the field's values; descendants are not expanded).
	Categories         []string
	PriceIDs           []string
	PriceCurrencies    []string
	PriceCountries     []string
	PriceCustomerTypes []string
	PriceChannels      []string
	MediaIDs           []string
	Limit, Skip        int
}

// CategoryFilter selects categories for ListCategories. Title and
// Description are case-insensitive RE2 regular expressions matching
// anywhere; Path is one that must match at the start of the path.
type CategoryFilter struct {
	IDs         []string
	Title       string
	Description string
	Slugs       []string
	Parents     []string
	Path        string
	Limit, Skip int
}
