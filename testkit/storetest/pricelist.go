package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/sqldb"
)

// PriceList is the suite of the price list store (pricelist.Store and
// pricelist.Tx): lists with their prices written, read, replaced and
// deleted, the ACTIVE ones for the in-memory index, the version every
// change moves, and a change rolled back with its event.
func PriceList(t *testing.T, open Opener) {
	t.Run("create, read, save, delete", func(t *testing.T) { priceListCRUD(t, open(t)) })
	t.Run("rolled back with its events", func(t *testing.T) { priceListRollback(t, open(t)) })
	t.Run("filtered by group", func(t *testing.T) { priceListsByGroup(t, open(t)) })
}

func fixturePriceList(code, status string, prices ...pricelist.Price) *pricelist.PriceList {
	at := time.UnixMilli(time.Now().UnixMilli()).UTC()
	from, until := at.Add(-time.Hour), at.Add(time.Hour)
	return &pricelist.PriceList{ID: commerce.NewID(), Code: code, Title: "List " + code, Status: status, Groups: []string{"TRADE"},
		Channel: "WEB", Country: "US", Currency: "USD", ValidFrom: &from, ValidUntil: &until, Priority: 3,
		Prices: prices, CreatedAt: at, UpdatedAt: at}
}

func priceListCRUD(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPriceListStore(db)
	v0, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := fixturePriceList("a", pricelist.StatusActive, pricelist.Price{ProductID: "P1", Amount: 100, MinQuantity: 1},
		pricelist.Price{ProductID: "P1", Amount: 90, MinQuantity: 10}, pricelist.Price{ProductID: "P2", Amount: 50, MinQuantity: 1})
	d := fixturePriceList("d", pricelist.StatusDraft, pricelist.Price{ProductID: "P1", Amount: 1, MinQuantity: 1})
	err = s.Update(ctx, func(tx pricelist.Tx) error {
		for _, l := range []*pricelist.PriceList{a, d} {
			if err := tx.Insert(ctx, l); err != nil {
				return err
			}
		}
		owner, err := tx.CodeOwner(ctx, "a")
		if err != nil || owner != a.ID {
			t.Errorf("CodeOwner(a) = %q, %v", owner, err)
		}
		if owner, err := tx.CodeOwner(ctx, "none"); err != nil || owner != "" {
			t.Errorf("CodeOwner(none) = %q, %v", owner, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.Version(ctx); err != nil || v <= v0 {
		t.Fatalf("version %d after a change, was %d (%v)", v, v0, err)
	}
	got, err := s.PriceList(ctx, a.ID)
	if err != nil || got.Code != "a" || got.Title != "List a" || got.Priority != 3 || got.Channel != "WEB" || got.Country != "US" ||
		len(got.Groups) != 1 || !got.ValidFrom.Equal(*a.ValidFrom) || !got.ValidUntil.Equal(*a.ValidUntil) || len(got.Prices) != 3 ||
		got.Prices[1] != (pricelist.Price{ProductID: "P1", Amount: 90, MinQuantity: 10}) || got.Seq == 0 {
		t.Fatalf("PriceList: %+v, %v", got, err)
	}
	_, err = s.PriceList(ctx, "nope")
	wantCode(t, "PriceList of an unknown id", err, commerce.EPriceListNotFound, "nope")

	dup := fixturePriceList("a", pricelist.StatusActive)
	err = s.Update(ctx, func(tx pricelist.Tx) error { return tx.Insert(ctx, dup) })
	if commerce.ErrorCode(err) != commerce.EDuplicateKey {
		t.Fatalf("a second list of code a: %v", err)
	}

	_, active, err := s.Active(ctx)
	if err != nil || len(active) != 1 || active[0].ID != a.ID || len(active[0].Prices) != 3 {
		t.Fatalf("Active: %+v, %v", active, err)
	}
	lists, err := s.PriceLists(ctx, pricelist.Filter{ProductIDs: []string{"P2"}, Limit: 10})
	if err != nil || len(lists) != 1 || lists[0].ID != a.ID {
		t.Fatalf("PriceLists by product: %+v, %v", lists, err)
	}
	lists, err = s.PriceLists(ctx, pricelist.Filter{Statuses: []string{pricelist.StatusDraft}, Limit: 10})
	if err != nil || len(lists) != 1 || lists[0].ID != d.ID || len(lists[0].Prices) != 1 {
		t.Fatalf("PriceLists by status: %+v, %v", lists, err)
	}

	err = s.Update(ctx, func(tx pricelist.Tx) error {
		l, err := tx.Lock(ctx, a.ID)
		if err != nil {
			return err
		}
		l.Prices = []pricelist.Price{{ProductID: "P3", Amount: 7, MinQuantity: 2}}
		l.Status = pricelist.StatusDraft
		if err := tx.Save(ctx, l); err != nil {
			return err
		}
		_, err = tx.Lock(ctx, "nope")
		wantCode(t, "Lock of an unknown id", err, commerce.EPriceListNotFound, "nope")
		return tx.Delete(ctx, d.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.PriceList(ctx, a.ID)
	if err != nil || got.Status != pricelist.StatusDraft || len(got.Prices) != 1 || got.Prices[0].ProductID != "P3" {
		t.Fatalf("after Save: %+v, %v", got, err)
	}
	if _, err := s.PriceList(ctx, d.ID); commerce.ErrorCode(err) != commerce.EPriceListNotFound {
		t.Fatalf("after Delete: %v", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM price_list_prices`); n != 1 {
		t.Fatalf("%d price rows left, want 1", n)
	}
	if _, active, err = s.Active(ctx); err != nil || len(active) != 0 {
		t.Fatalf("Active with none: %+v, %v", active, err)
	}
}

func priceListRollback(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPriceListStore(db)
	v0, _ := s.Version(ctx)
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx pricelist.Tx) error {
		if err := tx.Insert(ctx, fixturePriceList("x", pricelist.StatusActive, pricelist.Price{ProductID: "P1", Amount: 1, MinQuantity: 1})); err != nil {
			return err
		}
		if err := event.Emit(tx, event.PriceLists, event.Create, time.Now(), map[string]any{}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM price_lists`) + count(t, db, `SELECT COUNT(*) FROM price_list_prices`); n != 0 {
		t.Fatalf("%d rows written by a rolled-back change", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM events WHERE channel = 'PRICELISTS'`); n != 0 {
		t.Fatalf("%d events of a rolled-back change", n)
	}
	if v, _ := s.Version(ctx); v != v0 {
		t.Fatalf("version moved by a rolled-back change: %d, was %d", v, v0)
	}
}

// priceListsByGroup: Filter.Groups matches the lists that name one of the
// groups, by whole code (TRADE is not TRADE_2, and _ is no wildcard:
// TRADE_2 is not TRADEX2); a list for everyone names none.
func priceListsByGroup(t *testing.T, db *sqldb.DB) {
	ctx := context.Background()
	s := sqldb.NewPriceListStore(db)
	mk := func(code string, groups ...string) *pricelist.PriceList {
		l := fixturePriceList(code, pricelist.StatusActive)
		l.Groups = groups
		return l
	}
	trade, vip, everyone, x := mk("trade", "TRADE"), mk("vip", "VIP", "TRADE_2"), mk("all"), mk("x", "TRADEX2")
	err := s.Update(ctx, func(tx pricelist.Tx) error {
		for _, l := range []*pricelist.PriceList{trade, vip, everyone, x} {
			if err := tx.Insert(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		groups []string
		want   []string
	}{
		{"one group", []string{"TRADE"}, []string{"trade"}},
		{"an underscore is no wildcard", []string{"TRADE_2"}, []string{"vip"}},
		{"any of two", []string{"TRADEX2", "TRADE"}, []string{"trade", "x"}},
		{"no list names it", []string{"NOBODY"}, nil},
		{"a part of a code", []string{"TRAD"}, nil},
	} {
		lists, err := s.PriceLists(ctx, pricelist.Filter{Groups: tc.groups, Limit: 10})
		var got []string
		for _, l := range lists {
			got = append(got, l.Code)
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: PriceLists(groups %v) = %v, %v; want %v", tc.name, tc.groups, got, err, tc.want)
		}
	}
	lists, err := s.PriceLists(ctx, pricelist.Filter{Groups: []string{"VIP"}, Statuses: []string{pricelist.StatusDraft}, Limit: 10})
	if err != nil || len(lists) != 0 {
		t.Errorf("VIP and DRAFT: %+v, %v", lists, err)
	}
}
