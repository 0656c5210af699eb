package cart

import (
	"github.com/commercekit/commerce/catalog"
	"testing"
	"time"
)

func TestSelectPrice(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	day := 24 * time.Hour
	shopper := Shopper{Currency: "USD", Channel: "WEB", Country: "US", Tags: []string{"VIP"}}
	single := Price{ID: "single", Amount: 10_00, Currency: "USD"}

	tests := []struct {
		name    string
		prices  []Price
		shopper Shopper
		want    string // ID of the selected price; "" for none
	}{
		{"single", []Price{single}, shopper, "single"},
		{"country over single", []Price{
			single,
			{ID: "us", Currency: "USD", Country: "US"},
		}, shopper, "us"},
		{"channel over country", []Price{
			single,
			{ID: "us", Currency: "USD", Country: "US"},
			{ID: "web", Currency: "USD", Channel: "WEB"},
		}, shopper, "web"},
		{"customerType over country and channel", []Price{
			single,
			{ID: "us", Currency: "USD", Country: "US"},
			{ID: "web", Currency: "USD", Channel: "WEB"},
			{ID: "us-web", Currency: "USD", Country: "US", Channel: "WEB"},
			{ID: "vip", Currency: "USD", CustomerType: "VIP"},
		}, shopper, "vip"},
		{"customerType+channel over customerType+country", []Price{
			single,
			{ID: "vip-us", Currency: "USD", CustomerType: "VIP", Country: "US"},
			{ID: "vip-web", Currency: "USD", CustomerType: "VIP", Channel: "WEB"},
		}, shopper, "vip-web"},
		{"within period over without", []Price{
			single,
			{ID: "us", Currency: "USD", Country: "US"},
			{ID: "us-period", Currency: "USD", Country: "US", ValidFrom: at(-day), ValidUntil: at(day)},
		}, shopper, "us-period"},
		{"within period over without, period first", []Price{
			{ID: "us-period", Currency: "USD", Country: "US", ValidFrom: at(-day), ValidUntil: at(day)},
			{ID: "us", Currency: "USD", Country: "US"},
		}, shopper, "us-period"},
		{"future period not considered", []Price{
			single,
			{ID: "us", Currency: "USD", Country: "US"},
			{ID: "us-future", Currency: "USD", Country: "US", ValidFrom: at(day), ValidUntil: at(2 * day)},
		}, shopper, "us"},
		{"expired not considered", []Price{
			single,
			{ID: "vip-expired", Currency: "USD", CustomerType: "VIP", ValidFrom: at(-2 * day), ValidUntil: at(-day)},
		}, shopper, "single"},
		{"validFrom is inclusive", []Price{
			single,
			{ID: "starts-now", Currency: "USD", ValidFrom: at(0), ValidUntil: at(day)},
		}, shopper, "starts-now"},
		{"validUntil is inclusive", []Price{
			single,
			{ID: "ends-now", Currency: "USD", ValidFrom: at(-day), ValidUntil: at(0)},
		}, shopper, "ends-now"},
		{"just expired", []Price{
			single,
			{ID: "ended", Currency: "USD", ValidFrom: at(-day), ValidUntil: at(-time.Millisecond)},
		}, shopper, "single"},
		{"wrong currency", []Price{
			{ID: "eur", Currency: "EUR", Country: "US", Channel: "WEB", CustomerType: "VIP"},
		}, shopper, ""},
		{"only a future price", []Price{
			{ID: "future", Currency: "USD", ValidFrom: at(day), ValidUntil: at(2 * day)},
		}, shopper, ""},
		{"no prices", nil, shopper, ""},
		{"other currency skipped for a lower score", []Price{
			{ID: "eur-vip", Currency: "EUR", CustomerType: "VIP"},
			single,
		}, shopper, "single"},
		{"other country still a candidate", []Price{
			{ID: "fr", Currency: "USD", Country: "FR"},
		}, shopper, "fr"},
		{"other channel and customer type still candidates", []Price{
			{ID: "mobile-b2b", Currency: "USD", Channel: "MOBILE", CustomerType: "B2B"},
		}, shopper, "mobile-b2b"},
		{"tie goes to the first", []Price{
			{ID: "first", Currency: "USD", Country: "FR"},
			{ID: "second", Currency: "USD"},
		}, shopper, "first"},
		{"tie between periods goes to the first", []Price{
			{ID: "first", Currency: "USD", ValidFrom: at(-day), ValidUntil: at(day)},
			{ID: "second", Currency: "USD", ValidFrom: at(-2 * day), ValidUntil: at(2 * day)},
		}, shopper, "first"},
		{"score beats period", []Price{
			{ID: "period", Currency: "USD", ValidFrom: at(-day), ValidUntil: at(day)},
			{ID: "us", Currency: "USD", Country: "US"},
		}, shopper, "us"},
		{"anonymous customer", []Price{
			single,
			{ID: "vip", Currency: "USD", CustomerType: "VIP"},
			{ID: "us", Currency: "USD", Country: "US"},
		}, Shopper{Currency: "USD", Channel: "WEB", Country: "US", Tags: []string{"ANON"}}, "us"},
		{"empty restrictions never match empty shopper fields", []Price{
			{ID: "b2c", Currency: "USD", CustomerType: "B2C"},
			single,
		}, Shopper{Currency: "USD", Tags: []string{""}}, "b2c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, ok := catalog.SelectPrice(tc.prices, nil, tc.shopper, 1, now)
			got := ""
			if ok {
				got = sel.PriceID
			} else if sel.PriceID != "" {
				t.Errorf("got price %q with ok false", sel.PriceID)
			}
			if got != tc.want {
				t.Errorf("got price %q, want %q", got, tc.want)
			}
		})
	}
}
