package tax

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// CartTaxesResult is the response of tax.cartTaxes: {cart: {id, items}}.
type CartTaxesResult struct {
	Cart CartTaxes `json:"cart"`
}

// CartTaxes is the cart of a tax.cartTaxes response.
type CartTaxes struct {
	ID    string          `json:"id"`
	Items []CartTaxesLine `json:"items"`
}

// CartTaxesLine is an entry with its taxes, amounts in major units.
type CartTaxesLine struct {
	ID        string        `json:"id"`
	ProductID string        `json:"productId"`
	Quantity  int           `json:"quantity"`
	Price     json.Number   `json:"price"`
	Taxes     []CartTaxLine `json:"taxes"`
}

// CartTaxLine is one tax of an entry: beforeTax (the entry's net base),
// tax and taxDetail (the tax's title, or "no tax for code <code>").
type CartTaxLine struct {
	BeforeTax json.Number `json:"beforeTax"`
	Tax       json.Number `json:"tax"`
	TaxDetail string      `json:"taxDetail"`
}

// CartTaxes computes the taxes of the entries of a request (tax.cartTaxes)
// with the taxCode and isNetPrice of each product from the catalog. cartId
// is a reference echoed back, not looked up. Every malformed field is
// reported in one validation_error; an unknown product is
// product_not_found (data: the first unknown id in item order). Products
// are looked up whatever their status: this computes taxes, it does not
// sell.
func (s *Service) CartTaxes(ctx context.Context, in CartTaxesInput) (CartTaxesResult, error) {
	entries, precision, err := cartEntries(in)
	if err != nil {
		return CartTaxesResult{}, err
	}
	if err := s.productTaxes(ctx, entries); err != nil {
		return CartTaxesResult{}, err
	}
	codes := make([]string, len(entries))
	for i, e := range entries {
		codes[i] = e.TaxCode
	}
	taxes, err := s.ForCodes(ctx, codes)
	if err != nil {
		return CartTaxesResult{}, err
	}
	res := CartTaxesResult{Cart: CartTaxes{ID: in.CartID, Items: make([]CartTaxesLine, 0, len(entries))}}
	for i, e := range entries {
		// One entry at a time, so that an amount too large to compute is
		// reported against its item.
		results, err := Compute([]Entry{e}, taxes, precision)
		if errors.Is(err, money.ErrRange) {
			return CartTaxesResult{}, commerce.Invalid(commerce.Index("items", i) + ": price and quantity too large to compute the taxes")
		}
		if err != nil {
			return CartTaxesResult{}, fmt.Errorf("compute taxes: %w", err)
		}
		line := CartTaxesLine{ID: e.ID, ProductID: e.ProductID, Quantity: e.Quantity, Price: money.Major(e.Amount, precision)}
		for _, l := range results[0].Lines {
			line.Taxes = append(line.Taxes, CartTaxLine{
				BeforeTax: money.Major(l.BeforeTax, precision),
				Tax:       money.Major(l.Tax, precision),
				TaxDetail: l.TaxDetail,
			})
		}
		res.Cart.Items = append(res.Cart.Items, line)
	}
	return res, nil
}

// cartEntries validates a tax.cartTaxes request and returns its entries
// (amounts in minor units) and the precision of its currency.
func cartEntries(in CartTaxesInput) ([]Entry, int, error) {
	var problems commerce.Problems
	if in.CartID == "" {
		problems.Add("cartId", "required")
	}
	currency := DefaultCurrency
	if in.Currency != nil {
		currency = *in.Currency
	}
	precision, cerr := money.Precision(currency)
	if cerr != nil {
		problems.Add("currency", "must be an ISO 4217 code")
	}
	if in.Items == nil {
		problems.Add("items", "required")
	}
	entries := make([]Entry, len(in.Items))
	for i, it := range in.Items {
		at := commerce.Index("items", i) + "."
		if it.ID == "" {
			problems.Add(at+"id", "required")
		}
		if it.ProductID == "" {
			problems.Add(at+"productId", "required")
		}
		q := 1
		if it.Quantity != nil {
			if q = *it.Quantity; q < 1 {
				problems.Add(at+"quantity", "must be a positive integer")
			}
		}
		entries[i] = Entry{ID: it.ID, ProductID: it.ProductID, Quantity: q}
		d, problem := it.Price.NonNegative()
		switch {
		case problem != "":
			problems.Add(at+"price", "%s", problem)
		case cerr == nil:
			amount, err := d.Minor(precision)
			if err != nil {
				problems.Add(at+"price", "must be a number with at most %d decimals for %s", precision, currency)
			}
			entries[i].Amount = amount
		}
	}
	return entries, precision, problems.Err()
}

// productTaxes sets the tax code and isNetPrice of each entry from the
// catalog, asked once for the distinct products; an unknown product is
// product_not_found (data: its id, the first in item order).
func (s *Service) productTaxes(ctx context.Context, entries []Entry) error {
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		if !slices.Contains(ids, e.ProductID) {
			ids = append(ids, e.ProductID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if s.products == nil {
		return errors.New("tax.cartTaxes: no catalog wired in")
	}
	products, err := s.products.ProductTaxes(ctx, ids)
	if err != nil {
		return fmt.Errorf("product taxes: %w", err)
	}
	for i := range entries {
		p, ok := products[entries[i].ProductID]
		if !ok {
			return commerce.NewError(commerce.EProductNotFound, entries[i].ProductID)
		}
		entries[i].TaxCode, entries[i].IsNetPrice = p.TaxCode, p.IsNetPrice
	}
	return nil
}
