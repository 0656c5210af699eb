package catalog

import (
	"testing"
	"time"
)

func TestSelectPriceLists(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	own := []Price{{ID: "own", Amount: 100_00, Currency: "USD"}}
	shopper := Shopper{Currency: "USD", Channel: "WEB", Country: "US", Tags: []string{"ANON"}, Groups: []string{"TRADE"}}
	rule := func(id string, prio, seq int64, mod func(r *ListRule)) *ListRule {
		r := &ListRule{ListID: id, Priority: prio, Seq: seq, Currency: "USD"}
		if mod != nil {
			mod(r)
		}
		return r
	}
	lp := func(r *ListRule, minQ, amount int64) ListPrice {
		return ListPrice{ListRule: r, MinQuantity: minQ, Amount: amount}
	}
	everyone := rule("everyone", 0, 1, nil)
	trade := rule("trade", 5, 2, func(r *ListRule) { r.Groups = []string{"B2B", "TRADE"} })
	members := rule("members", 9, 3, func(r *ListRule) { r.Groups = []string{"MEMBERS"} })
	pos := rule("pos", 9, 4, func(r *ListRule) { r.Channel = "POS" })
	es := rule("es", 9, 5, func(r *ListRule) { r.Country = "ES" })
	eur := rule("eur", 9, 6, func(r *ListRule) { r.Currency = "EUR" })
	future := rule("future", 9, 7, func(r *ListRule) { r.ValidFrom, r.ValidUntil = at(time.Hour), at(2*time.Hour) })
	past := rule("past", 9, 8, func(r *ListRule) { r.ValidUntil = at(-time.Second) })
	early := rule("early", 5, 1, nil) // same priority as trade, created before it

	tests := []struct {
		name  string
		lists []ListPrice
		qty   int64
		want  string
		price int64
	}{
		{"no lists: the product's price", nil, 1, "", 100_00},
		{"a list for everyone", []ListPrice{lp(everyone, 1, 90_00)}, 1, "everyone", 90_00},
		{"the group's list wins by priority", []ListPrice{lp(trade, 1, 80_00), lp(everyone, 1, 90_00)}, 1, "trade", 80_00},
		{"lists that do not match are skipped", []ListPrice{lp(members, 1, 1), lp(pos, 1, 2), lp(es, 1, 3), lp(eur, 1, 4), lp(future, 1, 5), lp(past, 1, 6), lp(everyone, 1, 90_00)}, 1, "everyone", 90_00},
		{"the largest tier not above the quantity", []ListPrice{lp(trade, 10, 70_00), lp(trade, 5, 75_00), lp(trade, 1, 80_00)}, 7, "trade", 75_00},
		{"a tier reached exactly", []ListPrice{lp(trade, 10, 70_00), lp(trade, 5, 75_00), lp(trade, 1, 80_00)}, 10, "trade", 70_00},
		{"a list without a tier for the quantity does not match", []ListPrice{lp(trade, 5, 75_00), lp(everyone, 1, 90_00)}, 4, "everyone", 90_00},
		{"a tie goes to the earlier list", []ListPrice{lp(early, 1, 85_00), lp(trade, 1, 80_00)}, 1, "early", 85_00},
		{"no list matches: the product's price", []ListPrice{lp(members, 1, 1)}, 1, "", 100_00},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lists := append([]ListPrice(nil), tc.lists...)
			SortListPrices(lists)
			sel, ok := SelectPrice(own, lists, shopper, tc.qty, now)
			if !ok || sel.PriceListID != tc.want || sel.Amount != tc.price {
				t.Fatalf("got %+v (%v), want %d from %q", sel, ok, tc.price, tc.want)
			}
			if tc.want == "" && sel.PriceID != "own" || tc.want != "" && sel.PriceID != "" {
				t.Fatalf("price id %q with list %q", sel.PriceID, sel.PriceListID)
			}
		})
	}
	if _, ok := SelectPrice(nil, []ListPrice{lp(members, 1, 1)}, shopper, 1, now); ok {
		t.Fatal("a price with no list matching and no own price")
	}
}
