package transfer

import (
	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
)

// ImportInput is the argument of product.import (besides its file).
type ImportInput struct {
	// Format is the file's format: commerce (the default; CSV or JSON
	// Lines, told apart by content) or shopify (Shopify's product CSV).
	Format string `json:"format"`
	// DryRun checks every row as an import would and writes nothing.
	DryRun bool `json:"dryRun"`
	// Currency is the currency of Shopify's prices (default USD).
	Currency string `json:"currency"`
}

func (in ImportInput) format() string {
	if in.Format == "" {
		return FormatCommerce
	}
	return in.Format
}

func (in ImportInput) currency() string {
	if in.Currency == "" {
		return "USD"
	}
	return in.Currency
}

func (in ImportInput) check() error {
	var ps commerce.Problems
	if f := in.format(); f != FormatCommerce && f != FormatShopify {
		ps.Add("format", "must be commerce or shopify")
	}
	if !money.ValidCurrency(in.currency()) {
		ps.Add("currency", "must be an ISO 4217 currency code")
	}
	return ps.Err()
}

// JobInfoInput is the argument of job.info.
type JobInfoInput struct {
	// ID is the job's id (product.import answers it).
	ID string `json:"id"`
}

// ExportInput is the argument of product.export: the format and the
// filters of product.list (all the matching products are exported, in
// creation order; limit and skip are not taken).
type ExportInput struct {
	// Format is csv (the default) or jsonl.
	Format string `json:"format"`
	catalog.ListProductsInput
}

// OrderExportInput is the argument of order.export.
type OrderExportInput struct {
	// CreatedFrom exports the orders created at or after this RFC 3339 time.
	CreatedFrom *string `json:"createdFrom"`
	// CreatedTo exports the orders created at or before this RFC 3339 time.
	CreatedTo *string `json:"createdTo"`
	// Status exports the orders with any of these statuses.
	Status commerce.StringList `json:"status"`
}
