package storetest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
)

// Shipping is the suite of the shipping store (shipping.Store and
// shipping.Tx): every method and its error codes, changes that commit or
// roll back with their events, the list filters and the methods an
// address's country may use.
func Shipping(t *testing.T, open Opener) {
	t.Run("create, read, remove", func(t *testing.T) { shippingCRD(t, open(t)) })
	t.Run("rolled back with its events", func(t *testing.T) { shippingRollback(t, open(t)) })
	t.Run("list filters and paging", func(t *testing.T) { shippingList(t, open(t)) })
	t.Run("list patterns past the time limit", func(t *testing.T) { shippingPatterns(t, open(t)) })
	t.Run("active methods of a country", func(t *testing.T) { shippingActive(t, open(t)) })
}

// fixtureMethod returns a method with a new id: one rate group per
// location ("GB" or "US/HI"), each with a rate of amount in EUR and in GBP.
func fixtureMethod(title string, active bool, taxCode string, amount int64, locations ...string) shipping.Method {
	m := shipping.Method{ID: commerce.NewID(), Title: title, Active: active, TaxCode: taxCode, Rates: []shipping.RateGroup{}}
	for _, l := range locations {
		country, state, _ := strings.Cut(l, "/")
		m.Rates = append(m.Rates, shipping.RateGroup{
			ID:        commerce.NewID(),
			Locations: []shipping.Location{{Country: country, State: state}},
			Rates:     []shipping.Rate{{Currency: "EUR", Amount: amount}, {Currency: "GBP", Amount: amount + 1}},
		})
	}
	return m
}

func createMethods(t *testing.T, s shipping.Store, ms ...shipping.Method) []shipping.Method {
	t.Helper()
	ctx := context.Background()
	for _, m := range ms {
		if err := s.Update(ctx, func(tx shipping.Tx) error { return tx.CreateMethod(ctx, m) }); err != nil {
			t.Fatalf("create %s: %v", m.Title, err)
		}
	}
	return ms
}

func shippingCRD(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewShippingStore(db)
	m := createMethods(t, s, fixtureMethod("UPS", true, "default", 990, "GB", "US/HI", "ES"))[0]
	if got, err := s.Method(ctx, m.ID); err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("Method: got %+v, %v; want %+v", got, err, m)
	}
	_, err := s.Method(ctx, "nope")
	wantCode(t, "Method of an unknown id", err, commerce.EShippingNotFound, "nope")

	dup := fixtureMethod("dup", true, "default", 1, "FR")
	dup.ID = m.ID
	err = s.Update(ctx, func(tx shipping.Tx) error { return tx.CreateMethod(ctx, dup) })
	wantCode(t, "CreateMethod of an id in use", err, commerce.EDuplicateKey, nil)
	if got, _ := s.ActiveMethods(ctx, "FR"); len(got) != 0 {
		t.Errorf("a failed create left %d methods for FR", len(got))
	}

	var removed shipping.Method
	err = s.Update(ctx, func(tx shipping.Tx) error {
		var err error
		removed, err = tx.RemoveMethod(ctx, m.ID)
		tx.Emit(areaEvent(t, event.Shipping, event.Remove))
		return err
	})
	if err != nil || !reflect.DeepEqual(removed, m) {
		t.Fatalf("RemoveMethod: got %+v, %v; want %+v", removed, err, m)
	}
	_, err = s.Method(ctx, m.ID)
	wantCode(t, "Method after remove", err, commerce.EShippingNotFound, m.ID)
	err = s.Update(ctx, func(tx shipping.Tx) error { _, err := tx.RemoveMethod(ctx, m.ID); return err })
	wantCode(t, "RemoveMethod of an unknown id", err, commerce.EShippingNotFound, m.ID)
	if got, _ := s.ActiveMethods(ctx, "GB"); len(got) != 0 {
		t.Errorf("a removed method is still offered: %+v", got)
	}
	if types, _ := channelEvents(t, db, event.Shipping); !slices.Equal(types, []string{event.Remove}) {
		t.Errorf("got events %q, want the REMOVE emitted", types)
	}
}

func shippingRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewShippingStore(db)
	v0 := versionOf(t, s.Version)
	keep := createMethods(t, s, fixtureMethod("keep", true, "default", 1, "GB"))[0]
	v1 := versionOf(t, s.Version)
	if v1 <= v0 {
		t.Errorf("a committed change left the version at %d (was %d)", v1, v0)
	}
	m := fixtureMethod("new", true, "default", 1, "FR")
	err := s.Update(ctx, func(tx shipping.Tx) error {
		if err := tx.CreateMethod(ctx, m); err != nil {
			return err
		}
		if _, err := tx.RemoveMethod(ctx, keep.ID); err != nil {
			return err
		}
		tx.Emit(areaEvent(t, event.Shipping, event.Create))
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("got %v, want the function's error", err)
	}
	_, err = s.Method(ctx, m.ID)
	wantCode(t, "a rolled back create", err, commerce.EShippingNotFound, m.ID)
	if got, _ := s.ActiveMethods(ctx, "GB"); len(got) != 1 || got[0].ID != keep.ID {
		t.Errorf("a rolled back remove: got %+v, want the method kept", got)
	}
	if types, _ := channelEvents(t, db, event.Shipping); len(types) != 0 {
		t.Errorf("got events %q after a rollback, want none", types)
	}
	if got := versionOf(t, s.Version); got != v1 {
		t.Errorf("a rollback moved the version from %d to %d", v1, got)
	}
}

func shippingList(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewShippingStore(db)
	ms := createMethods(t, s,
		fixtureMethod("UPS Same Day", true, "default", 990, "ES", "US/HI"),
		fixtureMethod("UPS Next Day", true, "default", 490, "GB"),
		fixtureMethod("DHL Economy", false, "reduced", 300, "FR", "ES"),
		fixtureMethod("Post", true, "default", 500, "JP"))
	yes, no := true, false
	pattern := func(s string) *commerce.Pattern { p := commerce.Pattern(s); return &p }
	tests := []listCase[shipping.Filter]{
		{"all in creation order", shipping.Filter{Limit: 10}, []int{0, 1, 2, 3}},
		{"ids", shipping.Filter{IDs: []string{ms[3].ID, ms[0].ID, "nope"}, Limit: 10}, []int{0, 3}},
		{"countries", shipping.Filter{Countries: []string{"JP", "US"}, Limit: 10}, []int{0, 3}},
		{"a country of two methods", shipping.Filter{Countries: []string{"ES"}, Limit: 10}, []int{0, 2}},
		{"tax codes", shipping.Filter{TaxCodes: []string{"reduced"}, Limit: 10}, []int{2}},
		{"active", shipping.Filter{Active: &yes, Limit: 10}, []int{0, 1, 3}},
		{"inactive", shipping.Filter{Active: &no, Limit: 10}, []int{2}},
		{"title anywhere, any case", shipping.Filter{Title: pattern("ups"), Limit: 10}, []int{0, 1}},
		{"title anchored", shipping.Filter{Title: pattern("day$"), Limit: 10}, []int{0, 1}},
		{"filters together", shipping.Filter{Countries: []string{"ES"}, Active: &yes, Limit: 10}, []int{0}},
		{"limit and skip", shipping.Filter{Limit: 2, Skip: 1}, []int{1, 2}},
		{"pattern with paging", shipping.Filter{Title: pattern("u"), Limit: 1, Skip: 1}, []int{1}},
		{"skip past the end", shipping.Filter{Limit: 10, Skip: 10}, []int{}},
	}
	wantLists(t, ms, func(f shipping.Filter) ([]shipping.Method, error) { return s.Methods(ctx, f) }, tests)
}

func shippingPatterns(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewShippingStore(db)
	fixture := func(title string) shipping.Method { return fixtureMethod(title, true, "default", 1, "GB") }
	create := func(ms ...shipping.Method) { createMethods(t, s, ms...) }
	wantTitlePatternTimeout(t, db, fixture, create, func(p *commerce.Pattern) error {
		_, err := s.Methods(ctx, shipping.Filter{Title: p, Limit: 10})
		return err
	}, "title")
}

func shippingActive(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewShippingStore(db)
	ms := createMethods(t, s,
		fixtureMethod("A", true, "default", 1, "GB", "US/HI"),
		fixtureMethod("off", false, "default", 1, "GB"),
		fixtureMethod("B", true, "default", 1, "US/AK", "GB/DOR", "GB"),
		fixtureMethod("C", true, "default", 1, "FR"))
	for _, tc := range []struct {
		country string
		want    []shipping.Method
	}{
		{"GB", []shipping.Method{ms[0], ms[2]}},
		{"US", []shipping.Method{ms[0], ms[2]}},
		{"FR", []shipping.Method{ms[3]}},
		{"JP", []shipping.Method{}},
	} {
		if got, err := s.ActiveMethods(ctx, tc.country); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.country, got, err, tc.want)
		}
	}
}
