package tax

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/internal/table"
	"github.com/commercekit/commerce/money"
)

// Service holds the tax use cases: the tax.* operations, and the taxes
// the cart computes in-process (ForCodes, Compute).
type Service struct {
	store    Store
	products Products
	cache    *snapcache.Table[Tax]
	changes  table.Changes[Tx]
}

// NewService returns a service over the store; products (the catalog) is
// needed by CartTaxes only. now is the clock of the events (time.Now when
// nil).
func NewService(store Store, products Products, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: store, products: products, cache: newCache(store)}
	s.changes = table.Changes[Tx]{Store: store, Channel: event.Taxes, Name: "tax", Now: now,
		Changed: func(context.Context) { s.cache.Invalidate() }}
	return s
}

// apply sets the fields present in f on t (the code as commerce.Key, the
// rate in normal form), and records what is wrong with a rate that is not
// a usable number.
func (f Fields) apply(t *Tax, problems *commerce.Problems) {
	if f.Code != nil {
		t.Code = commerce.Key(*f.Code)
	}
	if f.Class != nil {
		t.Class = *f.Class
	}
	if f.Title != nil {
		t.Title = *f.Title
		problems.CheckLen("title", t.Title, commerce.MaxTitleLen)
	}
	if f.Description != nil {
		t.Description = *f.Description
		problems.CheckLen("description", t.Description, commerce.MaxTextLen)
	}
	if f.IsPercentage != nil {
		t.IsPercentage = *f.IsPercentage
	}
	if f.Rate != nil {
		rate, err := f.Rate.Decimal()
		if err != nil {
			problems.Add("rate", "%s", err.Error())
			return
		}
		t.Rate = normal(rate)
	}
}

// Create creates a tax and emits CREATE on TAXES with {new, data} in the
// same transaction. Required: code, class, title and rate (a tax without a
// rate means nothing, and the class is required as a promotion's is,
// rather than defaulting); description defaults to "" and isPercentage to
// true. The code is stored as commerce.Key (NFC). A class no calculator
// implements is validation_error naming class.
func (s *Service) Create(ctx context.Context, in CreateInput) (Tax, error) {
	t := Tax{ID: commerce.NewID(), IsPercentage: true}
	var problems commerce.Problems
	if in.Class == nil {
		problems.Add("class", "required")
	}
	if in.Rate == nil {
		problems.Add("rate", "required")
	}
	in.Fields.apply(&t, &problems)
	check := t
	if in.Class == nil {
		check.Class = DefaultClass // already reported as required
	}
	problems.AddErr(Validate(check))
	if err := problems.Err(); err != nil {
		return Tax{}, err
	}
	return table.Create(ctx, s.changes, in, t, func(tx Tx, t *Tax) error { return tx.CreateTax(ctx, *t) })
}

// Info returns the tax with the id, or tax_not_found (data: the id).
func (s *Service) Info(ctx context.Context, id string) (Tax, error) {
	if id == "" {
		return Tax{}, commerce.Invalid("id: required")
	}
	return s.store.Tax(ctx, id)
}

// Update changes the fields present in the input (a partial update; null
// means absent), validates the merged tax as a whole and emits UPDATE on
// TAXES with {data, old, new}, atomically (concurrent updates of different
// fields all survive). An update with no field changes nothing but is
// still an update: it answers the tax and emits its event. Unknown id:
// tax_not_found (data: the id).
func (s *Service) Update(ctx context.Context, in UpdateInput) (Tax, error) {
	var problems commerce.Problems
	problems.CheckArgs("", in) // id
	// The request's own shape is checked before touching the store.
	in.Fields.apply(&Tax{}, &problems)
	if err := problems.Err(); err != nil {
		return Tax{}, err
	}
	return table.Update(ctx, s.changes, in, in.ID, func(tx Tx, id string) (Tax, error) { return tx.Tax(ctx, id) },
		func(old Tax) (Tax, error) {
			t, ps := old, commerce.Problems{}
			in.Fields.apply(&t, &ps) // no problem: checked above
			return t, Validate(t)
		},
		func(tx Tx, t Tax) error { return tx.UpdateTax(ctx, t) })
}

// Remove deletes the tax with the id, emits REMOVE on TAXES with {id, old}
// in the same transaction and returns the removed tax; tax_not_found
// (data: the id). Products keep their taxCode: with no tax left for the
// code they get the zero line "no tax for code <code>".
func (s *Service) Remove(ctx context.Context, id string) (Tax, error) {
	if id == "" {
		return Tax{}, commerce.Invalid("id: required")
	}
	return table.Remove(ctx, s.changes, id, func(tx Tx, id string) (Tax, error) { return tx.RemoveTax(ctx, id) })
}

// ListResult is the response of tax.list: Taxes, or maps of the requested
// fields.
type ListResult = commerce.List

// List returns the taxes matching the request, in creation order. Bad
// paging, an invalid pattern or a rate that is not a number is
// validation_error listing every problem; so is a pattern the store cannot
// match (see Store.Taxes).
func (s *Service) List(ctx context.Context, in ListInput) (ListResult, error) {
	var problems commerce.Problems
	page, err := in.Page()
	problems.AddErr(err)
	problems.CheckPattern("title", in.Title)
	problems.CheckPattern("description", in.Description)
	f := Filter{IDs: in.ID, Codes: commerce.Keys(in.Code), Classes: in.Class, Title: in.Title, Description: in.Description,
		IsPercentage: in.IsPercentage, Limit: page.Limit, Skip: page.Skip}
	if in.Rate != nil {
		if rate, err := in.Rate.Decimal(); err != nil {
			problems.Add("rate", "%s", err.Error())
		} else {
			rate = normal(rate)
			f.Rate = &rate
		}
	}
	if err := problems.Err(); err != nil {
		return ListResult{}, err
	}
	taxes, err := s.store.Taxes(ctx, f)
	return table.List("taxes", page, in.Fields, taxes, err)
}

// ForCodes returns, in one query, every tax whose code is one of codes
// (an empty code counts as DefaultCode; codes are compared as
// commerce.Key), in creation order: what Compute needs for entries with
// those codes. The cart calls it in-process.
func (s *Service) ForCodes(ctx context.Context, codes []string) ([]Tax, error) {
	set := make([]string, 0, len(codes))
	for _, c := range commerce.Keys(codes) {
		if c == "" {
			c = DefaultCode
		}
		if !slices.Contains(set, c) {
			set = append(set, c)
		}
	}
	if len(set) == 0 {
		return nil, nil
	}
	taxes, err := s.taxesByCode(ctx, set)
	if err != nil {
		return nil, fmt.Errorf("taxes for codes: %w", err)
	}
	return taxes, nil
}

// Compute returns the taxes of the entries (see the package function
// Compute) with the stored taxes of their codes, read in one query: the
// cart's way of computing its taxes.
func (s *Service) Compute(ctx context.Context, entries []Entry, precision int) ([]Result, error) {
	codes := make([]string, len(entries))
	for i, e := range entries {
		codes[i] = e.TaxCode
	}
	taxes, err := s.ForCodes(ctx, codes)
	if err != nil {
		return nil, err
	}
	return Compute(entries, taxes, precision)
}

// normal returns d in its canonical form (no trailing zeros in the
// fraction), so that equal rates are stored and compared equal.
func normal(d money.Decimal) money.Decimal {
	for d.Scale > 0 && d.Units%10 == 0 {
		d.Units /= 10
		d.Scale--
	}
	if d.Units == 0 {
		return money.Decimal{}
	}
	return d
}
