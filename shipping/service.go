package shipping

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/internal/table"
	"github.com/commercekit/commerce/money"
)

// Service holds the shipping use cases: the shipping.* operations, and the
// availability the cart asks for in-process (Available, Rate).
type Service struct {
	store   Store
	cache   *snapcache.Table[Method]
	changes table.Changes[Tx]
}

// NewService returns the service over the store. now is the clock of the
// events (time.Now when nil).
func NewService(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: store, cache: newCache(store)}
	s.changes = table.Changes[Tx]{Store: store, Channel: event.Shipping, Name: "shipping method", Now: now,
		Changed: func(context.Context) { s.cache.Invalidate() }}
	return s
}

// New validates a shipping.create input and returns the method it
// describes, with new ids for the method and each of its rate groups.
//
// Rules: title is required (not blank); active defaults to true; taxCode
// defaults to "default" when absent or null, and must not be blank when
// given (it is stored as commerce.Key, NFC); rates needs at least one
// group, each with at least one location and at least one rate. A
// location's country must be an ISO 3166-1 alpha-2 code in upper case; its
// state, when given, must be a state of that country (a code without the
// country prefix, or its English name, as package geo accepts). A rate's
// currency must be an ISO 4217 code, given at most once per group (a group
// cannot have two prices in one currency), and its amount a number >= 0
// with no more decimals than the currency has, at most money.MaxAmount.
// Every problem is reported, each naming its field path
// ("rates[1].locations[0].state: ..."), in one validation_error.
func New(in CreateInput) (Method, error) {
	var problems commerce.Problems
	m := Method{ID: commerce.NewID(), Active: true, TaxCode: DefaultTaxCode}
	if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
		problems.Add("title", "required")
	} else {
		m.Title = *in.Title
		problems.CheckLen("title", m.Title, commerce.MaxTitleLen)
	}
	if in.Active != nil {
		m.Active = *in.Active
	}
	if in.TaxCode != nil {
		if strings.TrimSpace(*in.TaxCode) == "" {
			problems.Add("taxCode", "must not be blank (omit it for %q)", DefaultTaxCode)
		} else {
			m.TaxCode = commerce.Key(*in.TaxCode)
		}
	}
	if len(in.Rates) == 0 {
		problems.Add("rates", "must have at least one rate group")
	}
	m.Rates = make([]RateGroup, 0, len(in.Rates))
	for i, gi := range in.Rates {
		at := commerce.Index("rates", i)
		g := RateGroup{ID: commerce.NewID(), Locations: make([]Location, 0, len(gi.Locations)), Rates: make([]Rate, 0, len(gi.Rates))}
		if len(gi.Locations) == 0 {
			problems.Add(at+".locations", "must have at least one location")
		}
		for j, li := range gi.Locations {
			g.Locations = append(g.Locations, li.build(commerce.Index(at+".locations", j)+".", &problems))
		}
		if len(gi.Rates) == 0 {
			problems.Add(at+".rates", "must have at least one rate")
		}
		seen := map[string]bool{}
		for j, ri := range gi.Rates {
			g.Rates = append(g.Rates, ri.build(commerce.Index(at+".rates", j)+".", seen, &problems))
		}
		m.Rates = append(m.Rates, g)
	}
	if err := problems.Err(); err != nil {
		return Method{}, err
	}
	return m, nil
}

// build validates a location; at is its path with a trailing dot.
func (li LocationInput) build(at string, problems *commerce.Problems) Location {
	var l Location
	countryOK := false
	switch {
	case li.Country == nil || *li.Country == "":
		problems.Add(at+"country", "required")
	case !geo.ValidCountry(*li.Country):
		problems.Add(at+"country", "%q is not an ISO 3166-1 alpha-2 country code (upper case)", *li.Country)
	default:
		l.Country, countryOK = *li.Country, true
	}
	if li.State != nil {
		if countryOK && !geo.ValidState(l.Country, *li.State) {
			problems.Add(at+"state", "%q is not a state of %s", *li.State, l.Country)
		}
		l.State = *li.State
	}
	return l
}

// build validates a rate; at is its path with a trailing dot, seen the
// currencies of the group's earlier rates.
func (ri RateInput) build(at string, seen map[string]bool, problems *commerce.Problems) Rate {
	var r Rate
	precision, currencyOK := 0, false
	switch {
	case ri.Currency == nil || *ri.Currency == "":
		problems.Add(at+"currency", "required")
	case !money.ValidCurrency(*ri.Currency):
		problems.Add(at+"currency", "%q is not an ISO 4217 currency code", *ri.Currency)
	case seen[*ri.Currency]:
		problems.Add(at+"currency", "%s is given twice in this rate group", *ri.Currency)
	default:
		r.Currency, currencyOK = *ri.Currency, true
		seen[r.Currency] = true
		precision, _ = money.Precision(r.Currency)
	}
	d, problem := ri.Amount.NonNegative()
	switch {
	case problem != "":
		problems.Add(at+"amount", "%s", problem)
	case currencyOK:
		minor, err := d.Minor(precision)
		switch {
		case err != nil && d.Scale > precision:
			problems.Add(at+"amount", "%s has more than %d decimals, the precision of %s", d, precision, r.Currency)
		case err != nil:
			problems.Add(at+"amount", "too large")
		case minor > money.MaxAmount:
			problems.Add(at+"amount", "at most %s", money.FormatMinor(money.MaxAmount, precision))
		}
		r.Amount = minor
	}
	return r
}

// Create is shipping.create: it validates the input (see New), stores
// the method and emits CREATE on SHIPPING with {new, data} in the same
// transaction. Errors: validation_error.
func (s *Service) Create(ctx context.Context, in CreateInput) (Method, error) {
	m, err := New(in)
	if err != nil {
		return Method{}, err
	}
	return table.Create(ctx, s.changes, in, m, func(tx Tx, m *Method) error { return tx.CreateMethod(ctx, *m) })
}

// Info is shipping.info: the method named by in, inactive ones included.
// Errors: validation_error, shipping_not_found (data: the id).
func (s *Service) Info(ctx context.Context, in InfoInput) (Method, error) {
	id, err := in.Resolve()
	if err != nil {
		return Method{}, err
	}
	return s.method(ctx, id)
}

// Remove is shipping.remove: it deletes the method named by in, emits
// REMOVE on SHIPPING with {id, old} in the same transaction and returns
// the removed method (the response carries it under "shipping", as
// tax.remove does). Removing touches no cart: a cart that holds the method
// keeps its selection until it next asks (Available no longer lists the
// method, and Rate answers invalid_shipping_method).
// Errors: validation_error, shipping_not_found (data: the id).
func (s *Service) Remove(ctx context.Context, in RemoveInput) (Method, error) {
	id, err := in.Resolve()
	if err != nil {
		return Method{}, err
	}
	return table.Remove(ctx, s.changes, id, func(tx Tx, id string) (Method, error) { return tx.RemoveMethod(ctx, id) })
}

// ListResult is the response of shipping.list: Methods, or maps of the
// requested fields.
type ListResult = commerce.List

// List is shipping.list: the methods matching the request in creation
// order. Bad paging or an invalid title pattern is validation_error
// listing every problem; so is a pattern the store cannot match (see
// Store.Methods).
func (s *Service) List(ctx context.Context, in ListInput) (ListResult, error) {
	var problems commerce.Problems
	page, err := in.Page()
	problems.AddErr(err)
	problems.CheckPattern("title", in.Title)
	if err := problems.Err(); err != nil {
		return ListResult{}, err
	}
	taxCodes := make([]string, len(in.TaxCode))
	for i, c := range in.TaxCode {
		taxCodes[i] = commerce.Key(c)
	}
	f := Filter{IDs: in.ID, Countries: in.Country, TaxCodes: taxCodes, Active: in.Active, Title: in.Title, Limit: page.Limit, Skip: page.Skip}
	methods, err := s.store.Methods(ctx, f)
	return table.List("shipping methods", page, in.Fields, methods, err)
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
	methods, err := s.activeMethods(ctx, country)
	if err != nil {
		return nil, fmt.Errorf("available shipping methods: %w", err)
	}
	return AvailableMethods(methods, country, state, currency), nil
}

// Rate returns the method methodID as selected for shipping to (country,
// state) in currency: its winning rate group's id and its rate in the
// currency (see Select). A method that does not exist (or was removed),
// is inactive, or serves neither the address nor the currency is
// invalid_shipping_method, with no data: docs/api.md gives setShippingMethod
// and checkout that code for a method not allowed for the cart, and an
// unknown id is not allowed either (shipping_not_found is for the
// shipping.* operations). An empty methodID is invalid_shipping_method
// too; the cart reports a missing argument itself, under its own name.
func (s *Service) Rate(ctx context.Context, methodID, country, state, currency string) (Selected, error) {
	if methodID == "" {
		return Selected{}, commerce.Errorf(commerce.EInvalidShippingMethod, "no shipping method given")
	}
	m, err := s.method(ctx, methodID)
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
