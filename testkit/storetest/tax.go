package storetest

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/tax"
)

// Tax is the suite of the tax store (tax.Store and tax.Tx): every method
// and its error codes, changes that commit or roll back with their events,
// and the list filters.
func Tax(t *testing.T, open Opener) {
	t.Run("create, read, update, remove", func(t *testing.T) { taxCRUD(t, open(t)) })
	t.Run("rolled back with its events", func(t *testing.T) { taxRollback(t, open(t)) })
	t.Run("list filters and paging", func(t *testing.T) { taxList(t, open(t)) })
	t.Run("list patterns past the time limit", func(t *testing.T) { taxPatterns(t, open(t)) })
	t.Run("taxes by code", func(t *testing.T) { taxByCode(t, open(t)) })
	t.Run("concurrent updates are serialised", func(t *testing.T) { taxConcurrent(t, open(t)) })
}

func fixtureTax(code, title, description string, rate money.Decimal, pct bool) tax.Tax {
	return tax.Tax{ID: commerce.NewID(), Code: code, Class: tax.DefaultClass, Title: title, Description: description, Rate: rate, IsPercentage: pct}
}

func createTaxes(t *testing.T, s tax.Store, taxes ...tax.Tax) []tax.Tax {
	t.Helper()
	ctx := context.Background()
	err := s.Update(ctx, func(tx tax.Tx) error {
		for _, v := range taxes {
			if err := tx.CreateTax(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return taxes
}

func taxCRUD(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	vat := createTaxes(t, s, fixtureTax("vat", "VAT", "general", money.Decimal{Units: 215, Scale: 1}, true))[0]
	if got, err := s.Tax(ctx, vat.ID); err != nil || got != vat {
		t.Errorf("Tax: got %+v, %v; want %+v", got, err, vat)
	}
	_, err := s.Tax(ctx, "nope")
	wantCode(t, "Tax of an unknown id", err, commerce.ETaxNotFound, "nope")

	dup := fixtureTax("x", "X", "", money.Decimal{}, false)
	dup.ID = vat.ID
	err = s.Update(ctx, func(tx tax.Tx) error { return tx.CreateTax(ctx, dup) })
	wantCode(t, "CreateTax of an id in use", err, commerce.EDuplicateKey, nil)

	changed := vat
	changed.Code, changed.Title, changed.Rate, changed.IsPercentage = "eco", "Eco fee", money.Decimal{Units: 5, Scale: 1}, false
	err = s.Update(ctx, func(tx tax.Tx) error {
		old, err := tx.Tax(ctx, vat.ID)
		if err != nil || old != vat {
			t.Errorf("Tx.Tax: got %+v, %v; want %+v", old, err, vat)
		}
		tx.Emit(areaEvent(t, event.Taxes, event.Update))
		return tx.UpdateTax(ctx, changed)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Tax(ctx, vat.ID); got != changed {
		t.Errorf("after update: got %+v, want %+v", got, changed)
	}
	err = s.Update(ctx, func(tx tax.Tx) error { _, err := tx.Tax(ctx, "nope"); return err })
	wantCode(t, "Tx.Tax of an unknown id", err, commerce.ETaxNotFound, "nope")
	ghost := fixtureTax("x", "X", "", money.Decimal{}, false)
	err = s.Update(ctx, func(tx tax.Tx) error { return tx.UpdateTax(ctx, ghost) })
	wantCode(t, "UpdateTax of an unknown id", err, commerce.ETaxNotFound, ghost.ID)

	var removed tax.Tax
	err = s.Update(ctx, func(tx tax.Tx) error {
		var err error
		removed, err = tx.RemoveTax(ctx, vat.ID)
		tx.Emit(areaEvent(t, event.Taxes, event.Remove))
		return err
	})
	if err != nil || removed != changed {
		t.Fatalf("RemoveTax: got %+v, %v; want %+v", removed, err, changed)
	}
	_, err = s.Tax(ctx, vat.ID)
	wantCode(t, "Tax after remove", err, commerce.ETaxNotFound, vat.ID)
	err = s.Update(ctx, func(tx tax.Tx) error { _, err := tx.RemoveTax(ctx, vat.ID); return err })
	wantCode(t, "RemoveTax of an unknown id", err, commerce.ETaxNotFound, vat.ID)
	if types, _ := channelEvents(t, db, event.Taxes); !slices.Equal(types, []string{event.Update, event.Remove}) {
		t.Errorf("got events %q, want UPDATE and REMOVE", types)
	}
}

func taxRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	v0 := versionOf(t, s.Version)
	keep := createTaxes(t, s, fixtureTax("vat", "VAT", "", money.Decimal{Units: 21}, true))[0]
	v1 := versionOf(t, s.Version)
	if v1 <= v0 {
		t.Errorf("a committed change left the version at %d (was %d)", v1, v0)
	}
	v := fixtureTax("eco", "Eco", "", money.Decimal{Units: 1}, false)
	err := s.Update(ctx, func(tx tax.Tx) error {
		if err := tx.CreateTax(ctx, v); err != nil {
			return err
		}
		if _, err := tx.RemoveTax(ctx, keep.ID); err != nil {
			return err
		}
		tx.Emit(areaEvent(t, event.Taxes, event.Create))
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("got %v, want the function's error", err)
	}
	_, err = s.Tax(ctx, v.ID)
	wantCode(t, "a rolled back create", err, commerce.ETaxNotFound, v.ID)
	if got, err := s.Tax(ctx, keep.ID); err != nil || got != keep {
		t.Errorf("a rolled back remove: got %+v, %v; want %+v", got, err, keep)
	}
	if types, _ := channelEvents(t, db, event.Taxes); len(types) != 0 {
		t.Errorf("got events %q after a rollback, want none", types)
	}
	if got := versionOf(t, s.Version); got != v1 {
		t.Errorf("a rollback moved the version from %d to %d", v1, got)
	}
}

func taxList(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	taxes := createTaxes(t, s,
		fixtureTax("vat", "IVA 21%", "General rate", money.Decimal{Units: 21}, true),
		fixtureTax("vat", "Surcharge 5.2%", "", money.Decimal{Units: 52, Scale: 1}, true),
		fixtureTax("reduced", "IVA 10%", "reduced RATE", money.Decimal{Units: 10}, true),
		fixtureTax("eco", "Eco fee", "", money.Decimal{Units: 5, Scale: 1}, false),
		fixtureTax("books", "Books 21", "", money.Decimal{Units: 21}, true))
	yes, no := true, false
	pattern := func(s string) *commerce.Pattern { p := commerce.Pattern(s); return &p }
	rate := func(d money.Decimal) *money.Decimal { return &d }
	tests := []listCase[tax.Filter]{
		{"all in creation order", tax.Filter{Limit: 10}, []int{0, 1, 2, 3, 4}},
		{"ids", tax.Filter{IDs: []string{taxes[3].ID, taxes[0].ID, "nope"}, Limit: 10}, []int{0, 3}},
		{"codes", tax.Filter{Codes: []string{"eco", "reduced"}, Limit: 10}, []int{2, 3}},
		{"classes", tax.Filter{Classes: []string{tax.DefaultClass}, Limit: 10}, []int{0, 1, 2, 3, 4}},
		{"unknown class", tax.Filter{Classes: []string{"other"}, Limit: 10}, []int{}},
		{"rate", tax.Filter{Rate: rate(money.Decimal{Units: 21}), Limit: 10}, []int{0, 4}},
		{"rate with decimals", tax.Filter{Rate: rate(money.Decimal{Units: 5, Scale: 1}), Limit: 10}, []int{3}},
		{"isPercentage", tax.Filter{IsPercentage: &no, Limit: 10}, []int{3}},
		{"title anywhere, any case", tax.Filter{Title: pattern("iva"), Limit: 10}, []int{0, 2}},
		{"title RE2 word boundary", tax.Filter{Title: pattern(`\bfee\b`), Limit: 10}, []int{3}},
		{"description", tax.Filter{Description: pattern("rate"), Limit: 10}, []int{0, 2}},
		{"empty description", tax.Filter{Description: pattern("^$"), Limit: 10}, []int{1, 3, 4}},
		{"filters together", tax.Filter{Codes: []string{"vat", "books"}, Rate: rate(money.Decimal{Units: 21}), IsPercentage: &yes, Limit: 10}, []int{0, 4}},
		{"limit and skip", tax.Filter{Limit: 2, Skip: 1}, []int{1, 2}},
		{"patterns with paging", tax.Filter{Title: pattern("%|fee"), Limit: 2, Skip: 1}, []int{1, 2}},
		{"skip past the end", tax.Filter{Limit: 10, Skip: 10}, []int{}},
	}
	wantLists(t, taxes, func(f tax.Filter) ([]tax.Tax, error) { return s.Taxes(ctx, f) }, tests)
}

func taxPatterns(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	fixture := func(title string) tax.Tax { return fixtureTax("slow", title, slowTitle, money.Decimal{Units: 1}, true) }
	create := func(taxes ...tax.Tax) { createTaxes(t, s, taxes...) }
	wantTitlePatternTimeout(t, db, fixture, create, func(p *commerce.Pattern) error {
		_, err := s.Taxes(ctx, tax.Filter{Title: p, Description: p, Limit: 10})
		return err
	}, "title", "description")
}

func taxByCode(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	taxes := createTaxes(t, s,
		fixtureTax("vat", "VAT", "", money.Decimal{Units: 21}, true),
		fixtureTax("eco", "Eco", "", money.Decimal{Units: 1}, false),
		fixtureTax("vat", "Surcharge", "", money.Decimal{Units: 5}, true))
	got, err := s.TaxesByCode(ctx, []string{"vat", "none"})
	if err != nil || !reflect.DeepEqual(got, []tax.Tax{taxes[0], taxes[2]}) {
		t.Errorf("vat: got %+v, %v; want VAT and Surcharge in creation order", got, err)
	}
	if got, err := s.TaxesByCode(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("no codes: got %+v, %v; want none", got, err)
	}
}

func taxConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewTaxStore(db)
	v := createTaxes(t, s, fixtureTax("vat", "VAT", "", money.Decimal{}, false))[0]
	const n = 20
	concurrently(t, n, func() error {
		return s.Update(ctx, func(tx tax.Tx) error {
			cur, err := tx.Tax(ctx, v.ID)
			if err != nil {
				return err
			}
			cur.Rate.Units++
			return tx.UpdateTax(ctx, cur)
		})
	})
	if got, _ := s.Tax(ctx, v.ID); got.Rate != (money.Decimal{Units: n}) {
		t.Errorf("rate %v after %d concurrent increments, want %d (no lost update)", got.Rate, n, n)
	}
}
