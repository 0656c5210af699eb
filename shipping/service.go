package shipping

import (
	"context"
	"fmt"
	"regexp"

	"github.com/commercekit/commerce"
)

// NotFound returns the shipping_not_found error of an id (data: the id).
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EShippingNotFound, Data: id, Message: fmt.Sprintf("no shipping method %q", id)}
}

// Store keeps shipping methods (implemented by package sqldb).
type Store interface {
	// CreateMethod stores a new method, whose ID and rate group IDs are
	// set. It returns no error codes of its own.
	CreateMethod(ctx context.Context, m Method) error
	// Method returns the method with the id, or shipping_not_found (see
	// NotFound).
	Method(ctx context.Context, id string) (Method, error)
	// Methods returns the methods matching f in creation order, f.Skip of
	// them skipped and at most f.Limit. It returns no error codes of its
	// own.
	Methods(ctx context.Context, f Filter) ([]Method, error)
	// RemoveMethod deletes the method with the id and returns it, or
	// shipping_not_found (see NotFound).
	RemoveMethod(ctx context.Context, id string) (Method, error)
	// ActiveMethods returns, in one query and in creation order, the active
	// methods that have a location in the country (the candidates for an
	// address there). It returns no error codes of its own.
	ActiveMethods(ctx context.Context, country string) ([]Method, error)
}

// Filter selects methods for Store.Methods. Empty lists and nil fields do
// not filter.
type Filter struct {
	IDs []string
	// Countries keeps the methods with a location in any of them.
	Countries []string
	TaxCodes  []string
	Active    *bool
	// Title matches anywhere in the title. It is applied in Go, not in
	// SQL, so the syntax is exactly Go RE2 on every database (PostgreSQL's
	// ~* is not RE2); shipping methods are a handful of configuration
	// records, so this costs nothing.
	Title       *regexp.Regexp
	Limit, Skip int
}

// Service holds the shipping use cases: the shipping.* operations, and the
// availability the cart asks for in-process (Available, Rate).
type Service struct {
	store Store
}

// NewService returns the service over the store.
func NewService(store Store) *Service { return &Service{store: store} }

// Create is shipping.create: it validates the input (see Build) and
// stores the method. Errors: validation_error.
func (s *Service) Create(ctx context.Context, in Input) (Method, error) {
	m, err := Build(in)
	if err != nil {
		return Method{}, err
	}
	if err := s.store.CreateMethod(ctx, m); err != nil {
		return Method{}, fmt.Errorf("create shipping method: %w", err)
	}
	return m, nil
}

// Ref names a method in shipping.info and shipping.remove: `id`, or its
// alias `shippingId` (CONTRACT.md section 4).
type Ref struct {
	ID         string `json:"id"`
	ShippingID string `json:"shippingId"`
}

// Resolve returns the id the reference names. One of id and shippingId is
// required; both may be given only with the same value (else
// validation_error, rather than silently picking one).
func (r Ref) Resolve() (string, error) {
	switch {
	case r.ID == "" && r.ShippingID == "":
		return "", commerce.Invalid("id: required")
	case r.ID != "" && r.ShippingID != "" && r.ID != r.ShippingID:
		return "", commerce.Invalid("shippingId: differs from id (give one of them)")
	case r.ID != "":
		return r.ID, nil
	}
	return r.ShippingID, nil
}

// Info is shipping.info: the method named by r, inactive ones included.
// Errors: validation_error, shipping_not_found (data: the id).
func (s *Service) Info(ctx context.Context, r Ref) (Method, error) {
	id, err := r.Resolve()
	if err != nil {
		return Method{}, err
	}
	return s.store.Method(ctx, id)
}

// Remove is shipping.remove: it deletes the method named by r and returns
// it (the response carries the removed record under "shipping", as
// tax.remove does). Removing touches no cart: a cart that holds the
// method keeps its selection until it next asks (Available no longer
// lists the method, and Rate answers invalid_shipping_method).
// Errors: validation_error, shipping_not_found (data: the id).
func (s *Service) Remove(ctx context.Context, r Ref) (Method, error) {
	id, err := r.Resolve()
	if err != nil {
		return Method{}, err
	}
	return s.store.RemoveMethod(ctx, id)
}

// ListRequest holds the arguments of shipping.list; every filter is
// optional. id, country and taxCode match any of their values (country:
// the methods with a location in that country); title is a
// case-insensitive Go RE2 pattern matching anywhere; active the flag
// (absent: active and inactive methods alike, since this is the admin's
// view; the cart asks Available for what a customer may use). fields
// (comma-separated) returns id plus the named top-level fields (unknown
// names ignored).
type ListRequest struct {
	ID      commerce.StringList `json:"id"`
	Title   *string             `json:"title"`
	Active  *bool               `json:"active"`
	Country commerce.StringList `json:"country"`
	TaxCode commerce.StringList `json:"taxCode"`
	Fields  commerce.StringList `json:"fields"`
	commerce.PageArgs
}

// ListResult is the response of shipping.list: Methods, or maps of the
// requested fields.
type ListResult = commerce.List

// List is shipping.list: the methods matching the request in creation
// order. Bad paging or an invalid pattern is validation_error listing
// every problem.
func (s *Service) List(ctx context.Context, r ListRequest) (ListResult, error) {
	var problems []string
	page, err := r.Page()
	if err != nil {
		problems = append(problems, commerce.ProblemsOf(err)...)
	}
	f := Filter{IDs: r.ID, Countries: r.Country, TaxCodes: r.TaxCode, Active: r.Active, Limit: page.Limit, Skip: page.Skip}
	if r.Title != nil {
		re, err := regexp.Compile("(?i)" + *r.Title)
		if err != nil {
			problems = append(problems, "title: invalid regular expression: "+err.Error())
		}
		f.Title = re
	}
	if len(problems) > 0 {
		return ListResult{}, commerce.Invalid(problems...)
	}
	methods, err := s.store.Methods(ctx, f)
	if err != nil {
		return ListResult{}, fmt.Errorf("list shipping methods: %w", err)
	}
	data, err := commerce.ProjectAll(methods, r.Fields)
	if err != nil {
		return ListResult{}, fmt.Errorf("list shipping methods: %w", err)
	}
	return ListResult{Page: page, Data: data}, nil
}

// Available returns the active methods available for shipping to
// (country, state) in currency, in creation order, each with its winning
// group's rates and its Selected rate (see AvailableMethods). The cart
// validates the address and currency; here an unknown country, state or
// currency simply matches nothing (an empty list, no error), and an empty
// state matches only country-wide groups.
func (s *Service) Available(ctx context.Context, country, state, currency string) ([]Available, error) {
	if country == "" || currency == "" {
		return []Available{}, nil
	}
	methods, err := s.store.ActiveMethods(ctx, country)
	if err != nil {
		return nil, fmt.Errorf("available shipping methods: %w", err)
	}
	return AvailableMethods(methods, country, state, currency), nil
}

// Rate returns the method methodID as selected for shipping to (country,
// state) in currency: its winning rate group's id and its rate in the
// currency (see Select). A method that does not exist (or was removed),
// is inactive, or serves neither the address nor the currency is
// invalid_shipping_method, with no data: SPEC.md gives setShippingMethod
// and checkout that code for a method not allowed for the cart, and an
// unknown id is not allowed either (shipping_not_found is for the
// shipping.* operations). An empty methodID is invalid_shipping_method
// too; the cart reports a missing argument itself, under its own name.
func (s *Service) Rate(ctx context.Context, methodID, country, state, currency string) (Selected, error) {
	if methodID == "" {
		return Selected{}, commerce.Errorf(commerce.EInvalidShippingMethod, "no shipping method given")
	}
	m, err := s.store.Method(ctx, methodID)
	if commerce.ErrorCode(err) == commerce.EShippingNotFound {
		return Selected{}, commerce.Errorf(commerce.EInvalidShippingMethod, "no shipping method %q", methodID)
	}
	if err != nil {
		return Selected{}, fmt.Errorf("shipping rate: %w", err)
	}
	sel, ok := Select(m, country, state, currency)
	if !ok {
		return Selected{}, commerce.Errorf(commerce.EInvalidShippingMethod,
			"shipping method %q is not available for %s/%s in %s", methodID, country, state, currency)
	}
	return sel, nil
}
