package tax

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Store keeps the taxes. It is implemented by package sqldb.
type Store interface {
	// CreateTax stores a new tax, whose ID is set.
	CreateTax(ctx context.Context, t Tax) error
	// Tax returns the tax with the id, or tax_not_found (data: the id).
	Tax(ctx context.Context, id string) (Tax, error)
	// UpdateTax reads the tax with the id (locked against concurrent
	// changes), lets change modify it and stores the result, in one
	// transaction, and returns the stored tax. It returns tax_not_found
	// (data: the id), or change's error with nothing stored. change may be
	// called more than once (a retried transaction), so it must be
	// repeatable.
	UpdateTax(ctx context.Context, id string, change func(t *Tax) error) (Tax, error)
	// RemoveTax deletes the tax with the id and returns it, or
	// tax_not_found (data: the id).
	RemoveTax(ctx context.Context, id string) (Tax, error)
	// Taxes returns the taxes matching f in creation order, f.Skip of them
	// skipped and at most f.Limit. It returns no error codes of its own.
	Taxes(ctx context.Context, f Filter) ([]Tax, error)
	// TaxesByCode returns, in one query, every tax whose code is one of
	// codes, in creation order. It returns no error codes of its own.
	TaxesByCode(ctx context.Context, codes []string) ([]Tax, error)
}

// Filter selects taxes for Store.Taxes. Empty lists and nil fields do not
// filter.
type Filter struct {
	IDs     []string
	Codes   []string
	Classes []string
	// Title and Description match anywhere in the field. They are
	// applied in Go, not in SQL, so the syntax is exactly Go RE2 on every
	// database (PostgreSQL's ~* is not RE2: \b there is a backspace); the
	// taxes table is small configuration data, so this costs nothing.
	Title, Description *regexp.Regexp
	Rate               *money.Decimal // equal value (21 matches 21.0)
	IsPercentage       *bool
	Limit, Skip        int
}

// ProductTax is what the tax computation needs to know about a product.
type ProductTax struct {
	// TaxCode selects the taxes; empty means DefaultCode.
	TaxCode    string
	IsNetPrice bool
}

// Products gives the tax data of products (the catalog, wired in by the
// app).
type Products interface {
	// ProductTaxes returns, in one batch, the tax data of each product of
	// ids that exists; ids not found are absent from the map.
	ProductTaxes(ctx context.Context, ids []string) (map[string]ProductTax, error)
}

// ProductsFunc adapts a function to Products.
type ProductsFunc func(ctx context.Context, ids []string) (map[string]ProductTax, error)

// ProductTaxes calls f(ctx, ids).
func (f ProductsFunc) ProductTaxes(ctx context.Context, ids []string) (map[string]ProductTax, error) {
	return f(ctx, ids)
}

// DefaultCurrency is the currency of tax.cartTaxes prices when the request
// names none.
const DefaultCurrency = "USD"

// Service holds the tax use cases: the tax.* operations, and the taxes
// the cart computes in-process (ForCodes, Compute).
type Service struct {
	store    Store
	products Products
}

// NewService returns a service over the store; products (the catalog) is
// needed by CartTaxes only.
func NewService(store Store, products Products) *Service {
	return &Service{store: store, products: products}
}

// Patch holds the fields of a tax.create or tax.update request: nil (or
// JSON null) means absent. Rate is kept raw so that a value that is not a
// number is reported against "rate".
type Patch struct {
	Code         *string         `json:"code"`
	Class        *string         `json:"class"`
	Title        *string         `json:"title"`
	Description  *string         `json:"description"`
	Rate         json.RawMessage `json:"rate"`
	IsPercentage *bool           `json:"isPercentage"`
}

// apply sets the fields present in p on t; it fails only for a rate that
// is not a number.
func (p Patch) apply(t *Tax) error {
	if p.Code != nil {
		t.Code = *p.Code
	}
	if p.Class != nil {
		t.Class = *p.Class
	}
	if p.Title != nil {
		t.Title = *p.Title
	}
	if p.Description != nil {
		t.Description = *p.Description
	}
	if p.IsPercentage != nil {
		t.IsPercentage = *p.IsPercentage
	}
	rate, ok, err := number("rate", p.Rate)
	if err != nil {
		return err
	}
	if ok {
		t.Rate = rate
	}
	return nil
}

// Create creates a tax. Required: code, class, title and rate (a tax
// without a rate means nothing, and the class is required as a
// promotion's is, rather than defaulting); description defaults to "" and
// isPercentage to true. A class no calculator implements is
// validation_error naming class.
func (s *Service) Create(ctx context.Context, p Patch) (Tax, error) {
	t := Tax{ID: commerce.NewID(), IsPercentage: true}
	var problems []string
	if p.Class == nil {
		problems = append(problems, "class: required")
	}
	if isNull(p.Rate) {
		problems = append(problems, "rate: required")
	}
	if err := p.apply(&t); err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	check := t
	if p.Class == nil {
		check.Class = DefaultClass // already reported as required
	}
	if err := Validate(check); err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	if len(problems) > 0 {
		return Tax{}, commerce.Invalid(problems...)
	}
	t.Rate = normal(t.Rate)
	if err := s.store.CreateTax(ctx, t); err != nil {
		return Tax{}, fmt.Errorf("create tax: %w", err)
	}
	return t, nil
}

// Info returns the tax with the id, or tax_not_found (data: the id).
func (s *Service) Info(ctx context.Context, id string) (Tax, error) {
	if id == "" {
		return Tax{}, commerce.Invalid("id: required")
	}
	return s.store.Tax(ctx, id)
}

// Update changes the fields present in p (a partial update; null means
// absent) and validates the merged tax as a whole, atomically (concurrent
// updates of different fields all survive). An update with no field
// returns the tax unchanged. Unknown id: tax_not_found (data: the id).
func (s *Service) Update(ctx context.Context, id string, p Patch) (Tax, error) {
	if id == "" {
		return Tax{}, commerce.Invalid("id: required")
	}
	// Check the request's own shape before touching the store.
	if _, _, err := number("rate", p.Rate); err != nil {
		return Tax{}, err
	}
	return s.store.UpdateTax(ctx, id, func(t *Tax) error {
		if err := p.apply(t); err != nil {
			return err
		}
		t.Rate = normal(t.Rate)
		return Validate(*t)
	})
}

// Remove deletes the tax with the id and returns it, or tax_not_found
// (data: the id). Products keep their taxCode: with no tax left for the
// code they get the zero line "no tax for code <code>".
func (s *Service) Remove(ctx context.Context, id string) (Tax, error) {
	if id == "" {
		return Tax{}, commerce.Invalid("id: required")
	}
	return s.store.RemoveTax(ctx, id)
}

// ListRequest holds the arguments of tax.list; every filter is optional.
// id, code and class match any of their values; title and description are
// case-insensitive Go RE2 patterns matching anywhere; rate matches the
// equal number; isPercentage the flag. fields (comma-separated) returns
// id plus the named fields (unknown names ignored).
type ListRequest struct {
	ID           commerce.StringList `json:"id"`
	Code         commerce.StringList `json:"code"`
	Class        commerce.StringList `json:"class"`
	Title        *string             `json:"title"`
	Description  *string             `json:"description"`
	Rate         json.RawMessage     `json:"rate"`
	IsPercentage *bool               `json:"isPercentage"`
	Fields       commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// ListResult is the response of tax.list: Taxes, or maps of the requested
// fields.
type ListResult = commerce.List

// List returns the taxes matching the request, in creation order. Bad
// paging, an invalid pattern or a rate that is not a number is
// validation_error listing every problem.
func (s *Service) List(ctx context.Context, r ListRequest) (ListResult, error) {
	var problems []string
	page, err := r.Page()
	if err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	f := Filter{IDs: r.ID, Codes: r.Code, Classes: r.Class, IsPercentage: r.IsPercentage, Limit: page.Limit, Skip: page.Skip}
	var perr error
	if f.Title, perr = pattern("title", r.Title); perr != nil {
		problems = append(problems, commerce.ProblemsOf(perr)...)
	}
	if f.Description, perr = pattern("description", r.Description); perr != nil {
		problems = append(problems, commerce.ProblemsOf(perr)...)
	}
	rate, ok, rerr := number("rate", r.Rate)
	if rerr != nil {
		problems = append(problems, commerce.ProblemsOf(rerr)...)
	} else if ok {
		rate = normal(rate)
		f.Rate = &rate
	}
	if len(problems) > 0 {
		return ListResult{}, commerce.Invalid(problems...)
	}
	taxes, err := s.store.Taxes(ctx, f)
	if err != nil {
		return ListResult{}, fmt.Errorf("list taxes: %w", err)
	}
	data, err := commerce.ProjectAll(taxes, r.Fields)
	if err != nil {
		return ListResult{}, fmt.Errorf("list taxes: %w", err)
	}
	return ListResult{Page: page, Data: data}, nil
}

// ForCodes returns, in one query, every tax whose code is one of codes
// (an empty code counts as DefaultCode), in creation order: what Compute
// needs for entries with those codes. The cart calls it in-process.
func (s *Service) ForCodes(ctx context.Context, codes []string) ([]Tax, error) {
	set := make([]string, 0, len(codes))
	seen := map[string]bool{}
	for _, c := range codes {
		if c == "" {
			c = DefaultCode
		}
		if !seen[c] {
			seen[c] = true
			set = append(set, c)
		}
	}
	if len(set) == 0 {
		return nil, nil
	}
	taxes, err := s.store.TaxesByCode(ctx, set)
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

// CartTaxesRequest holds the arguments of tax.cartTaxes. Currency is not
// in SPEC.md, which gives plain-number prices without one: it is an
// optional ISO 4217 code, default USD, that sets the precision prices are
// read and taxes rounded in.
type CartTaxesRequest struct {
	CartID   string          `json:"cartId"`
	Currency *string         `json:"currency"`
	Items    []CartTaxesItem `json:"items"`
}

// CartTaxesItem is an entry to tax: Price is the TOTAL price of the entry
// (not the unit price) in major units; Quantity defaults to 1 and matters
// to fixed taxes (rate x quantity).
type CartTaxesItem struct {
	ID        string          `json:"id"`
	ProductID string          `json:"productId"`
	Quantity  *int            `json:"quantity"`
	Price     json.RawMessage `json:"price"`
}

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
func (s *Service) CartTaxes(ctx context.Context, r CartTaxesRequest) (CartTaxesResult, error) {
	var problems []string
	if r.CartID == "" {
		problems = append(problems, "cartId: required")
	}
	currency := DefaultCurrency
	if r.Currency != nil {
		currency = *r.Currency
	}
	precision, cerr := money.Precision(currency)
	if cerr != nil {
		problems = append(problems, "currency: must be an ISO 4217 code")
	}
	if r.Items == nil {
		problems = append(problems, "items: required")
	}
	entries := make([]Entry, len(r.Items))
	for i, it := range r.Items {
		at := fmt.Sprintf("items[%d].", i)
		if it.ID == "" {
			problems = append(problems, at+"id: required")
		}
		if it.ProductID == "" {
			problems = append(problems, at+"productId: required")
		}
		q := 1
		if it.Quantity != nil {
			q = *it.Quantity
			if q < 1 {
				problems = append(problems, at+"quantity: must be a positive integer")
			}
		}
		entries[i] = Entry{ID: it.ID, ProductID: it.ProductID, Quantity: q}
		d, ok, perr := number(at+"price", it.Price)
		switch {
		case perr != nil:
			problems = append(problems, commerce.ProblemsOf(perr)...)
		case !ok:
			problems = append(problems, at+"price: required")
		case d.Units < 0:
			problems = append(problems, at+"price: must not be negative")
		case cerr == nil:
			amount, merr := d.Minor(precision)
			if merr != nil {
				problems = append(problems, fmt.Sprintf("%sprice: must be a number with at most %d decimals for %s", at, precision, currency))
			}
			entries[i].Amount = amount
		}
	}
	if len(problems) > 0 {
		return CartTaxesResult{}, commerce.Invalid(problems...)
	}

	ids := make([]string, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e.ProductID] {
			seen[e.ProductID] = true
			ids = append(ids, e.ProductID)
		}
	}
	var products map[string]ProductTax
	var err error
	if len(ids) > 0 {
		if s.products == nil {
			return CartTaxesResult{}, errors.New("tax.cartTaxes: no catalog wired in")
		}
		if products, err = s.products.ProductTaxes(ctx, ids); err != nil {
			return CartTaxesResult{}, fmt.Errorf("product taxes: %w", err)
		}
	}
	for i := range entries {
		p, ok := products[entries[i].ProductID]
		if !ok {
			return CartTaxesResult{}, commerce.NewError(commerce.EProductNotFound, entries[i].ProductID)
		}
		entries[i].TaxCode, entries[i].IsNetPrice = p.TaxCode, p.IsNetPrice
	}

	codes := make([]string, len(entries))
	for i, e := range entries {
		codes[i] = e.TaxCode
	}
	taxes, err := s.ForCodes(ctx, codes)
	if err != nil {
		return CartTaxesResult{}, err
	}
	res := CartTaxesResult{Cart: CartTaxes{ID: r.CartID, Items: make([]CartTaxesLine, 0, len(entries))}}
	for i, e := range entries {
		// One entry at a time, so that an amount too large to compute is
		// reported against its item.
		results, err := Compute([]Entry{e}, taxes, precision)
		if errors.Is(err, money.ErrRange) {
			return CartTaxesResult{}, commerce.Invalid(fmt.Sprintf("items[%d]: price and quantity too large to compute the taxes", i))
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

// number reads an optional JSON number exactly; ok is false when raw is
// absent or null. Anything else is validation_error naming field.
func number(field string, raw json.RawMessage) (d money.Decimal, ok bool, err error) {
	if isNull(raw) {
		return money.Decimal{}, false, nil
	}
	s := strings.TrimSpace(string(raw))
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return money.Decimal{}, false, commerce.Invalid(field + ": must be a number")
	}
	d, err = money.ParseDecimal(s)
	if errors.Is(err, money.ErrRange) {
		return money.Decimal{}, false, commerce.Invalid(field + ": number too large or too precise")
	}
	if err != nil {
		return money.Decimal{}, false, commerce.Invalid(field + ": must be a number")
	}
	return d, true, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
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

// pattern compiles an optional case-insensitive Go RE2 pattern; an
// invalid one is validation_error naming field.
func pattern(field string, p *string) (*regexp.Regexp, error) {
	if p == nil {
		return nil, nil
	}
	if _, err := regexp.Compile(*p); err != nil {
		return nil, commerce.Invalid(field + ": invalid regular expression: " + err.Error())
	}
	re, err := regexp.Compile("(?i)" + *p)
	if err != nil {
		return nil, commerce.Invalid(field + ": invalid regular expression: " + err.Error())
	}
	return re, nil
}
