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
	// SKU is the product's stock keeping unit, unique among products
	// (duplicate_key), stored in Unicode NFC.
	SKU *string `json:"sku,omitempty"`
	// Status is ONLINE (salable, listed) or DRAFT (left out of carts and,
	// unless asked for, of product.list).
	Status *string `json:"status,omitempty" openapi:"enum=ONLINE|DRAFT"`
	// Title is the product's name.
	Title *string `json:"title,omitempty"`
	// Description is the product's text.
	Description *string `json:"description,omitempty"`
	// Brand is the product's brand.
	Brand *string `json:"brand,omitempty"`
	// Categories are the ids of the product's categories (at most 5); empty
	// only for a Variant product.
	Categories *[]string `json:"categories,omitempty"`
	// Prices are the product's prices; a price's id is kept when given.
	Prices *[]*PriceInput `json:"prices,omitempty"`
	// IsNetPrice says whether the prices exclude taxes (taxes are added on
	// top); false: gross prices, which include them.
	IsNetPrice *bool `json:"isNetPrice,omitempty"`
	// StockStatus is 0 NORMAL (stock is reserved and counted), 1 UNLIMITED
	// (no stock kept) or 2 DISCONTINUED (not salable).
	StockStatus *int `json:"stockStatus,omitempty"`
	// Medias are the product's images and other media.
	Medias *[]Media `json:"medias,omitempty"`
	// Classifications are the product's values of the classifications its
	// categories (and their ancestors) define.
	Classifications *[]ClassificationValue `json:"classifications,omitempty"`
	// Base is the id of the Base product of a Variant (with variations).
	Base *string `json:"base,omitempty"`
	// Variations are a Variant's values of its Base's modifiers.
	Variations *[]Variation `json:"variations,omitempty"`
	// Modifiers are the names of the attributes a Base product's Variants
	// differ by (a Base product has them).
	Modifiers *[]string `json:"modifiers,omitempty"`
	// Variants are the ids of a Base product's Variants, each an existing
	// Variant whose base is this product.
	Variants *[]string `json:"variants,omitempty"`
	// TaxCode names the taxes that apply to the product: every tax whose
	// code it is (docs/api.md section 8).
	TaxCode *string `json:"taxCode,omitempty"`
	// Translations are the product's title, description and slug in the
	// store's other locales (--locales), by locale; null for a locale
	// removes its translation.
	Translations TranslationsInput `json:"translations,omitempty"`
}

// CreateProductInput is the argument of product.create.
type CreateProductInput struct {
	ProductFields `openapi:"categories:required sku:required status:required stockStatus:required title:required"`
}

// UpdateProductInput is the argument of product.update: the product's id
// and the fields to change.
type UpdateProductInput struct {
	// ID is the id of the product to change.
	ID string `json:"id" openapi:"required,trim"`
	ProductFields
}

// PriceInput is one element of `prices` as given. Its strings are typed
// (the transport reports a number given for currency); amount and the
// validity dates are Literals, which the service checks in the contract's
// order, per price: so that price_invalid and price_valid_dates can answer
// with the price, or the dates, as given.
type PriceInput struct {
	// ID identifies the price within the product (generated when absent);
	// resend it to keep a price on update.
	ID *string `json:"id,omitempty"`
	// Amount is the price in major units of the currency (577.65), with
	// no more decimals than the currency has.
	Amount Literal `json:"amount,omitzero" openapi:"required"`
	// Currency is the price's ISO 4217 currency code.
	Currency *string `json:"currency,omitempty" openapi:"required,pattern=currency"`
	// Country is the ISO 3166-1 alpha-2 country the price is for (empty:
	// any).
	Country *string `json:"country,omitempty" openapi:"pattern=country-or-empty"`
	// CustomerType is the customer tag the price is for (VIP, B2B, B2C).
	CustomerType *string `json:"customerType,omitempty" openapi:"enum=VIP|B2B|B2C"`
	// Channel is the cart channel the price is for (WEB, ...).
	Channel *string `json:"channel,omitempty"`
	// ValidFrom is when the price starts to apply (RFC 3339, or a date: its
	// first moment UTC); given together with validUntil.
	ValidFrom Literal `json:"validFrom,omitzero"`
	// ValidUntil is the last moment the price applies (RFC 3339, or a date:
	// its last millisecond UTC); given together with validFrom.
	ValidUntil Literal `json:"validUntil,omitzero"`
}

// CategoryFields are the fields of a category as category.create and
// category.update take them; create requires title and slug (parent
// defaults to ROOT).
type CategoryFields struct {
	// Title is the category's name.
	Title *string `json:"title,omitempty"`
	// Description is the category's text.
	Description *string `json:"description,omitempty"`
	// Slug is the category's name in URLs, unique among its siblings
	// (duplicate_key), stored in Unicode NFC.
	Slug *string `json:"slug,omitempty"`
	// Parent is the id of the parent category (ROOT when absent on create);
	// moving a category under its own subtree is validation_error.
	Parent *string `json:"parent,omitempty"`
	// Classifications define the attributes the category's products (and
	// those of its descendants) may or must have.
	Classifications *[]ClassificationDefInput `json:"classifications,omitempty"`
	// Translations are the category's title, description and slug in the
	// store's other locales (--locales), by locale; null for a locale
	// removes its translation.
	Translations TranslationsInput `json:"translations,omitempty"`
}

// CreateCategoryInput is the argument of category.create.
type CreateCategoryInput struct {
	CategoryFields `openapi:"slug:required title:required"`
}

// UpdateCategoryInput is the argument of category.update: the category's
// id and the fields to change.
type UpdateCategoryInput struct {
	// ID is the id of the category to change.
	ID string `json:"id" openapi:"required,trim"`
	CategoryFields
}

// ClassificationDefInput is a classification definition as given; all four
// fields are required.
type ClassificationDefInput struct {
	// ID names the classification (what products' values refer to).
	ID *string `json:"id,omitempty"`
	// Description says what the classification is.
	Description *string `json:"description,omitempty"`
	// Type is the type of the values: STRING, NUMBER or BOOLEAN.
	Type *string `json:"type,omitempty" openapi:"enum=STRING|NUMBER|BOOLEAN"`
	// Mandatory says whether every product of the category must have a
	// value (missing_classification).
	Mandatory *bool `json:"mandatory,omitempty"`
}

// RemoveInput is the argument of product.remove and category.remove.
type RemoveInput struct {
	// ID is the id of the record to remove.
	ID string `json:"id" openapi:"required,trim"`
}

// ProductInfoInput is the argument of product.info.
type ProductInfoInput struct {
	// Locale is the language to answer in (one of --locales; else the
	// Accept-Language header's, else the default).
	Locale *string `json:"locale"`
	// ID is the product's id.
	ID string `json:"id" openapi:"required,trim"`
	// Currency asks for the product's price in this currency (ISO 4217),
	// as a new cart would get it for the token (docs/api.md section 26).
	Currency *string `json:"currency"`
	// Quantity is the line quantity the price is for (default 1), with
	// currency.
	Quantity *int64 `json:"quantity"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
}

// CategoryInfoInput is the argument of category.info; recursive implies
// withChildren.
type CategoryInfoInput struct {
	// Locale is the language to answer in (one of --locales; else the
	// Accept-Language header's, else the default).
	Locale *string `json:"locale"`
	// ID is the category's id.
	ID string `json:"id" openapi:"required,trim"`
	// WithChildren adds the direct children, as children.
	WithChildren *bool `json:"withChildren"`
	// Recursive gives each child its own children, down the whole subtree
	// (implies withChildren).
	Recursive *bool `json:"recursive"`
}

// ListProductsInput is the argument of product.list: the filters of
// ProductFilter as the query names them, the fields to return and the page.
type ListProductsInput struct {
	// Locale is the language to answer in (one of --locales; else the
	// Accept-Language header's, else the default).
	Locale *string `json:"locale"`
	// ID matches the products with any of these ids.
	ID commerce.StringList `json:"id"`
	// SKU matches the products with any of these skus, exactly (compared
	// in Unicode NFC).
	SKU commerce.StringList `json:"sku"`
	// Title matches the products whose title matches the pattern.
	Title *commerce.Pattern `json:"title"`
	// Description matches the products whose description matches the
	// pattern.
	Description *commerce.Pattern `json:"description"`
	// Status matches the products with any of these statuses (ONLINE,
	// DRAFT); ONLINE only when absent.
	Status commerce.StringList `json:"status"`
	// Brand matches the products whose brand matches the pattern.
	Brand *commerce.Pattern `json:"brand"`
	// TaxCode matches the products with any of these tax codes, exactly.
	TaxCode commerce.StringList `json:"taxCode"`
	// StockStatus matches the products with any of these stock statuses
	// (integers: 0 NORMAL, 1 UNLIMITED, 2 DISCONTINUED).
	StockStatus commerce.StringList `json:"stockStatus"`
	// IsNetPrice matches the products whose prices are net (true) or gross
	// (false).
	IsNetPrice *bool `json:"isNetPrice"`
	// Base matches the Variants of any of these Base products.
	Base commerce.StringList `json:"base"`
	// Categories matches the products in any of these categories, directly.
	Categories commerce.StringList `json:"categories"`
	// PriceID matches the products with a price of any of these ids.
	PriceID commerce.StringList `json:"prices.id"`
	// PriceCurrency matches the products with a price in any of these
	// currencies.
	PriceCurrency commerce.StringList `json:"prices.currency"`
	// PriceCountry matches the products with a price for any of these
	// countries.
	PriceCountry commerce.StringList `json:"prices.country"`
	// PriceCustomerType matches the products with a price for any of these
	// customer types.
	PriceCustomerType commerce.StringList `json:"prices.customerType"`
	// PriceChannel matches the products with a price for any of these
	// channels.
	PriceChannel commerce.StringList `json:"prices.channel"`
	// MediaID matches the products with a media of any of these ids.
	MediaID commerce.StringList `json:"medias.id"`
	// Currency asks for each product's price in this currency (ISO
	// 4217), as a new cart would get it for the token (docs/api.md
	// section 26).
	Currency *string `json:"currency"`
	// Quantity is the line quantity the prices are for (default 1), with
	// currency.
	Quantity *int64 `json:"quantity"`
	// MediaCustomerType is the original interface's spelling of
	// prices.customerType (docs/api.md section 6): the same filter.
	MediaCustomerType commerce.StringList `json:"medias.customerType"`
	// MediaChannel is the original interface's spelling of prices.channel
	// (docs/api.md section 6): the same filter.
	MediaChannel commerce.StringList `json:"medias.channel"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
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
	// Locale is the language to answer in (one of --locales; else the
	// Accept-Language header's, else the default).
	Locale *string `json:"locale"`
	// ID matches the categories with any of these ids.
	ID commerce.StringList `json:"id"`
	// Title matches the categories whose title matches the pattern.
	Title *commerce.Pattern `json:"title"`
	// Description matches the categories whose description matches the
	// pattern.
	Description *commerce.Pattern `json:"description"`
	// Slug matches the categories with any of these slugs, exactly
	// (compared in Unicode NFC).
	Slug commerce.StringList `json:"slug"`
	// Parent matches the direct children of any of these categories.
	Parent commerce.StringList `json:"parent"`
	// Path matches the categories whose path (ROOT.<id>.<id>...) starts
	// with a match of the pattern (anchored at the start of the path).
	Path *commerce.Pattern `json:"path"`
	// Fields are the top-level fields to return besides id (all when
	// absent); unknown names are ignored.
	Fields commerce.StringList `json:"fields"`
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
