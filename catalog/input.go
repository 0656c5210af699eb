package catalog

import (
	"strconv"

	"github.com/commercekit/commerce"
)

// The arguments of the catalog's operations, as the transport decodes them
// (JSON types, unknown fields, NUL bytes and commerce.Pattern are checked
// there). Optional fields are pointers: nil is absent, which JSON null also
// means.

// ProductFields are the fields of a product as product.create and
// product.update take them; create requires sku, status, title, categories
// and stockStatus.
type ProductFields struct {
	SKU             *string                `json:"sku,omitempty"`
	Status          *string                `json:"status,omitempty"`
	Title           *string                `json:"title,omitempty"`
	Description     *string                `json:"description,omitempty"`
	Brand           *string                `json:"brand,omitempty"`
	Categories      *[]string              `json:"categories,omitempty"`
	Prices          *[]*PriceInput         `json:"prices,omitempty"`
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

// CreateProductInput is the argument of product.create.
type CreateProductInput struct {
	ProductFields
}

// UpdateProductInput is the argument of product.update: the product's id
// and the fields to change.
type UpdateProductInput struct {
	ID string `json:"id"`
	ProductFields
}

// PriceInput is one element of `prices` as given. Its strings are typed
// (the transport reports a number given for currency); amount and the
// validity dates are Literals, which the service checks in the contract's
// order, per price: so that price_invalid and price_valid_dates can answer
// with the price, or the dates, as given.
type PriceInput struct {
	ID           *string `json:"id,omitempty"`
	Amount       Literal `json:"amount,omitzero"`
	Currency     *string `json:"currency,omitempty"`
	Country      *string `json:"country,omitempty"`
	CustomerType *string `json:"customerType,omitempty"`
	Channel      *string `json:"channel,omitempty"`
	ValidFrom    Literal `json:"validFrom,omitzero"`
	ValidUntil   Literal `json:"validUntil,omitzero"`
}

// CategoryFields are the fields of a category as category.create and
// category.update take them; create requires title and slug (parent
// defaults to ROOT).
type CategoryFields struct {
	Title           *string                   `json:"title,omitempty"`
	Description     *string                   `json:"description,omitempty"`
	Slug            *string                   `json:"slug,omitempty"`
	Parent          *string                   `json:"parent,omitempty"`
	Classifications *[]ClassificationDefInput `json:"classifications,omitempty"`
}

// CreateCategoryInput is the argument of category.create.
type CreateCategoryInput struct {
	CategoryFields
}

// UpdateCategoryInput is the argument of category.update: the category's
// id and the fields to change.
type UpdateCategoryInput struct {
	ID string `json:"id"`
	CategoryFields
}

// ClassificationDefInput is a classification definition as given; all four
// fields are required.
type ClassificationDefInput struct {
	ID          *string `json:"id,omitempty"`
	Description *string `json:"description,omitempty"`
	Type        *string `json:"type,omitempty"`
	Mandatory   *bool   `json:"mandatory,omitempty"`
}

// RemoveInput is the argument of product.remove and category.remove.
type RemoveInput struct {
	ID string `json:"id"`
}

// ProductInfoInput is the argument of product.info.
type ProductInfoInput struct {
	ID     string              `json:"id"`
	Fields commerce.StringList `json:"fields"`
}

// CategoryInfoInput is the argument of category.info; recursive implies
// withChildren.
type CategoryInfoInput struct {
	ID           string `json:"id"`
	WithChildren *bool  `json:"withChildren"`
	Recursive    *bool  `json:"recursive"`
}

// ListProductsInput is the argument of product.list: the filters of
// ProductFilter as the query names them, the fields to return and the page.
type ListProductsInput struct {
	ID                commerce.StringList `json:"id"`
	SKU               commerce.StringList `json:"sku"`
	Title             *commerce.Pattern   `json:"title"`
	Description       *commerce.Pattern   `json:"description"`
	Status            commerce.StringList `json:"status"`
	Brand             *commerce.Pattern   `json:"brand"`
	TaxCode           commerce.StringList `json:"taxCode"`
	StockStatus       commerce.StringList `json:"stockStatus"`
	IsNetPrice        *bool               `json:"isNetPrice"`
	Base              commerce.StringList `json:"base"`
	Categories        commerce.StringList `json:"categories"`
	PriceID           commerce.StringList `json:"prices.id"`
	PriceCurrency     commerce.StringList `json:"prices.currency"`
	PriceCountry      commerce.StringList `json:"prices.country"`
	PriceCustomerType commerce.StringList `json:"prices.customerType"`
	PriceChannel      commerce.StringList `json:"prices.channel"`
	MediaID           commerce.StringList `json:"medias.id"`
	// MediaCustomerType and MediaChannel are SPEC.md's spellings of
	// prices.customerType and prices.channel (CONTRACT.md section 6).
	MediaCustomerType commerce.StringList `json:"medias.customerType"`
	MediaChannel      commerce.StringList `json:"medias.channel"`
	Fields            commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// Filter returns the store filter and the page the input asks for.
// Errors: validation_error for the page and for a stockStatus that is not
// an integer.
func (in ListProductsInput) Filter() (ProductFilter, commerce.Page, error) {
	page, err := in.Page()
	if err != nil {
		return ProductFilter{}, page, err
	}
	f := ProductFilter{
		IDs: in.ID, SKUs: in.SKU, Title: in.Title, Description: in.Description, Statuses: in.Status,
		Brand: in.Brand, TaxCodes: in.TaxCode, IsNetPrice: in.IsNetPrice, Bases: in.Base,
		Categories: in.Categories, PriceIDs: in.PriceID, PriceCurrencies: in.PriceCurrency,
		PriceCountries:     in.PriceCountry,
		PriceCustomerTypes: concat(in.PriceCustomerType, in.MediaCustomerType),
		PriceChannels:      concat(in.PriceChannel, in.MediaChannel),
		MediaIDs:           in.MediaID, Limit: page.Limit, Skip: page.Skip,
	}
	var p commerce.Problems
	for i, v := range in.StockStatus {
		n, err := strconv.Atoi(v)
		if err != nil {
			p.Add(commerce.Index("stockStatus", i), "must be an integer")
			continue
		}
		f.StockStatuses = append(f.StockStatuses, n)
	}
	return f, page, p.Err()
}

// ListCategoriesInput is the argument of category.list.
type ListCategoriesInput struct {
	ID          commerce.StringList `json:"id"`
	Title       *commerce.Pattern   `json:"title"`
	Description *commerce.Pattern   `json:"description"`
	Slug        commerce.StringList `json:"slug"`
	Parent      commerce.StringList `json:"parent"`
	Path        *commerce.Pattern   `json:"path"`
	Fields      commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// Filter returns the store filter and the page the input asks for.
// Error: validation_error for the page.
func (in ListCategoriesInput) Filter() (CategoryFilter, commerce.Page, error) {
	page, err := in.Page()
	if err != nil {
		return CategoryFilter{}, page, err
	}
	return CategoryFilter{IDs: in.ID, Title: in.Title, Description: in.Description, Slugs: in.Slug,
		Parents: in.Parent, Path: in.Path, Limit: page.Limit, Skip: page.Skip}, page, nil
}

// concat returns a new list holding a's values, then b's (nil when both
// are empty).
func concat(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	return append(append(make([]string, 0, len(a)+len(b)), a...), b...)
}
