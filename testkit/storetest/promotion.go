package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/sqldb"
)

// Promotion is the suite of the promotion store (promotion.Store and
// promotion.Tx): every method and its error codes, the version that
// tells other processes their cache is stale, and changes that commit or
// roll back with their events.
func Promotion(t *testing.T, open Opener) {
	t.Run("create and read", func(t *testing.T) { promotionCreate(t, open(t)) })
	t.Run("update", func(t *testing.T) { promotionUpdate(t, open(t)) })
	t.Run("rolled back with its events", func(t *testing.T) { promotionRollback(t, open(t)) })
	t.Run("version and active promotions", func(t *testing.T) { promotionVersion(t, open(t)) })
	t.Run("list filters and paging", func(t *testing.T) { promotionList(t, open(t)) })
	t.Run("list patterns past the time limit", func(t *testing.T) { promotionPatterns(t, open(t)) })
	t.Run("concurrent updates are serialised", func(t *testing.T) { promotionConcurrent(t, open(t)) })
	t.Run("a damaged stored rule keeps its cause", func(t *testing.T) { promotionDamaged(t, open(t)) })
}

// promotionDamaged: a stored rule that no longer reads is an internal
// error whose chain holds the decoder's error (errors.As sees it).
func promotionDamaged(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s, fixturePromotion(t, "if", true, 0, "p"), fixturePromotion(t, "then", true, 0, "p"))
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE promotions SET if_rule = '{' WHERE id = ?`, ps[0].ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE promotions SET then_rule = '[1' WHERE id = ?`, ps[1].ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		_, err := s.Promotion(ctx, p.ID)
		var syntax *json.SyntaxError
		if commerce.ErrorCode(err) != commerce.EInternal || !errors.As(err, &syntax) {
			t.Errorf("%s: got %v, want an internal error with the *json.SyntaxError in its chain", p.Title, err)
		}
	}
}

// fixturePromotion returns a promotion with a new id, taking 1 off a unit
// of product.
func fixturePromotion(t *testing.T, title string, active bool, priority int, product string) promotion.Promotion {
	t.Helper()
	r, err := engine.Parse(
		json.RawMessage(fmt.Sprintf(`{"product":{"id":%q,"quantity":1}}`, product)),
		json.RawMessage(fmt.Sprintf(`{"product":{"id":%q,"quantity":1,"discount":{"rate":1}}}`, product)))
	if err != nil {
		t.Fatal(err)
	}
	return promotion.Promotion{ID: commerce.NewID(), Title: title, Class: promotion.ClassDefault, Active: active, Priority: priority, If: r.If, Then: r.Then}
}

// createPromotions stores the promotions, one transaction each, and
// returns them with their Seq.
func createPromotions(t *testing.T, s promotion.Store, ps ...promotion.Promotion) []promotion.Promotion {
	t.Helper()
	ctx := context.Background()
	for i := range ps {
		err := s.Update(ctx, func(tx promotion.Tx) error { return tx.CreatePromotion(ctx, &ps[i]) })
		if err != nil {
			t.Fatalf("create %s: %v", ps[i].Title, err)
		}
	}
	return ps
}

func promotionCreate(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s, fixturePromotion(t, "a", true, 3, "p1"), fixturePromotion(t, "b", false, -2, "p2"))
	if ps[0].Seq <= 0 || ps[1].Seq <= ps[0].Seq {
		t.Errorf("got seqs %d, %d; want increasing creation order", ps[0].Seq, ps[1].Seq)
	}
	for _, want := range ps {
		got, err := s.Promotion(ctx, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Promotion(%s): got %+v, %v; want %+v", want.ID, got, err, want)
		}
	}
	_, err := s.Promotion(ctx, "nope")
	wantCode(t, "Promotion of an unknown id", err, commerce.EPromotionNotFound, "nope")

	err = s.Update(ctx, func(tx promotion.Tx) error {
		got, err := tx.Promotion(ctx, ps[1].ID)
		if err != nil || !reflect.DeepEqual(got, ps[1]) {
			t.Errorf("Tx.Promotion: got %+v, %v; want %+v", got, err, ps[1])
		}
		_, err = tx.Promotion(ctx, "nope")
		return err
	})
	wantCode(t, "Tx.Promotion of an unknown id", err, commerce.EPromotionNotFound, "nope")

	dup := fixturePromotion(t, "dup", true, 0, "p3")
	dup.ID = ps[0].ID
	err = s.Update(ctx, func(tx promotion.Tx) error { return tx.CreatePromotion(ctx, &dup) })
	wantCode(t, "CreatePromotion of an id in use", err, commerce.EDuplicateKey, nil)
	if got, _ := s.Promotion(ctx, ps[0].ID); got.Title != "a" {
		t.Errorf("after a duplicate: got %q, want the first promotion kept", got.Title)
	}
}

func promotionUpdate(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s, fixturePromotion(t, "a", true, 3, "p1"), fixturePromotion(t, "b", true, 4, "p2"))
	changed := fixturePromotion(t, "renamed", false, -7, "p9")
	changed.ID, changed.Seq = ps[0].ID, ps[0].Seq
	err := s.Update(ctx, func(tx promotion.Tx) error {
		tx.Emit(areaEvent(t, event.Promotions, event.Update))
		return tx.UpdatePromotion(ctx, changed)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Promotion(ctx, changed.ID); err != nil || !reflect.DeepEqual(got, changed) {
		t.Errorf("after update: got %+v, %v; want %+v", got, err, changed)
	}
	if got, _ := s.Promotion(ctx, ps[1].ID); !reflect.DeepEqual(got, ps[1]) {
		t.Errorf("the other promotion changed: got %+v, want %+v", got, ps[1])
	}
	if types, _ := channelEvents(t, db, event.Promotions); !slices.Equal(types, []string{event.Update}) {
		t.Errorf("got events %q, want the UPDATE emitted", types)
	}
	ghost := fixturePromotion(t, "ghost", true, 0, "p1")
	err = s.Update(ctx, func(tx promotion.Tx) error { return tx.UpdatePromotion(ctx, ghost) })
	wantCode(t, "UpdatePromotion of an unknown id", err, commerce.EPromotionNotFound, ghost.ID)
}

func promotionRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	before, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := fixturePromotion(t, "a", true, 1, "p1")
	err = s.Update(ctx, func(tx promotion.Tx) error {
		if err := tx.CreatePromotion(ctx, &p); err != nil {
			return err
		}
		tx.Emit(areaEvent(t, event.Promotions, event.Create))
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("got %v, want the function's error", err)
	}
	_, err = s.Promotion(ctx, p.ID)
	wantCode(t, "a rolled back promotion", err, commerce.EPromotionNotFound, p.ID)
	if types, _ := channelEvents(t, db, event.Promotions); len(types) != 0 {
		t.Errorf("got events %q after a rollback, want none", types)
	}
	if after, _ := s.Version(ctx); after != before {
		t.Errorf("version %d after a rollback, want %d", after, before)
	}
}

func promotionVersion(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	v0, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps := createPromotions(t, s,
		fixturePromotion(t, "late", true, 5, "p1"),
		fixturePromotion(t, "off", false, 0, "p1"),
		fixturePromotion(t, "early", true, -1, "p1"),
		fixturePromotion(t, "tie", true, 5, "p1"))
	v1, _ := s.Version(ctx)
	if v1 < v0+4 {
		t.Errorf("version %d after 4 creations from %d, want it up by one a change", v1, v0)
	}
	v, active, err := s.ActivePromotions(ctx)
	if err != nil || v != v1 {
		t.Fatalf("ActivePromotions: version %d, %v; want %d", v, err, v1)
	}
	var titles []string
	for _, p := range active {
		titles = append(titles, p.Title)
	}
	if want := []string{"early", "late", "tie"}; !slices.Equal(titles, want) {
		t.Errorf("active promotions %q, want %q (priority, then creation order)", titles, want)
	}
	ps[1].Active = true
	if err := s.Update(ctx, func(tx promotion.Tx) error { return tx.UpdatePromotion(ctx, ps[1]) }); err != nil {
		t.Fatal(err)
	}
	v2, _ := s.Version(ctx)
	if v2 <= v1 {
		t.Errorf("version %d after an update, want above %d", v2, v1)
	}
	_, active, _ = s.ActivePromotions(ctx)
	titles = titles[:0]
	for _, p := range active {
		titles = append(titles, p.Title)
	}
	if want := []string{"early", "off", "late", "tie"}; !slices.Equal(titles, want) {
		t.Errorf("after activating: got %q, want %q", titles, want)
	}
}

func promotionList(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	ps := createPromotions(t, s,
		fixturePromotion(t, "Summer sale", true, 9, "p"),
		fixturePromotion(t, "Winter SALE", false, 8, "p"),
		fixturePromotion(t, "Bundle", true, 7, "p"),
		fixturePromotion(t, "summer bundle", false, 6, "p"),
		fixturePromotion(t, "Clearance", true, 5, "p"))
	yes, no := true, false
	pattern := func(s string) *commerce.Pattern { p := commerce.Pattern(s); return &p }
	tests := []listCase[promotion.Filter]{
		{"all in creation order", promotion.Filter{Limit: 10}, []int{0, 1, 2, 3, 4}},
		{"ids", promotion.Filter{IDs: []string{ps[3].ID, ps[0].ID, "nope"}, Limit: 10}, []int{0, 3}},
		{"active", promotion.Filter{Active: &yes, Limit: 10}, []int{0, 2, 4}},
		{"inactive", promotion.Filter{Active: &no, Limit: 10}, []int{1, 3}},
		{"title anywhere, any case", promotion.Filter{Title: pattern("sale"), Limit: 10}, []int{0, 1}},
		{"title anchored", promotion.Filter{Title: pattern("^summer"), Limit: 10}, []int{0, 3}},
		{"title and active", promotion.Filter{Title: pattern("bundle"), Active: &no, Limit: 10}, []int{3}},
		{"limit and skip", promotion.Filter{Limit: 2, Skip: 1}, []int{1, 2}},
		{"pattern, limit and skip", promotion.Filter{Title: pattern("e"), Limit: 2, Skip: 1}, []int{1, 2}},
		{"skip past the end", promotion.Filter{Limit: 10, Skip: 10}, []int{}},
	}
	wantLists(t, ps, func(f promotion.Filter) ([]promotion.Promotion, error) { return s.Promotions(ctx, f) }, tests)
}

func promotionPatterns(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	fixture := func(title string) promotion.Promotion { return fixturePromotion(t, title, true, 0, "p") }
	create := func(ps ...promotion.Promotion) { createPromotions(t, s, ps...) }
	wantTitlePatternTimeout(t, db, fixture, create, func(p *commerce.Pattern) error {
		_, err := s.Promotions(ctx, promotion.Filter{Title: p, Limit: 10})
		return err
	}, "title")
}

func promotionConcurrent(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPromotionStore(db)
	p := createPromotions(t, s, fixturePromotion(t, "counter", true, 0, "p"))[0]
	const n = 20
	concurrently(t, n, func() error {
		return s.Update(ctx, func(tx promotion.Tx) error {
			cur, err := tx.Promotion(ctx, p.ID)
			if err != nil {
				return err
			}
			cur.Priority++
			return tx.UpdatePromotion(ctx, cur)
		})
	})
	if got, _ := s.Promotion(ctx, p.ID); got.Priority != n {
		t.Errorf("priority %d after %d concurrent increments, want %d (no lost update)", got.Priority, n, n)
	}
}
