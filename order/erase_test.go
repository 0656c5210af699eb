package order

import (
	"encoding/json"
	"testing"
	"time"
)

func TestErase(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"address", `{"firstName":"Ada","address_1":"1 Beach Rd","address_2":[4,2],"postCode":"96815","city":"Honolulu","state":"HI","country":"US","phone":"555"}`,
			`{"address_1":"[erased]","address_2":"[erased]","city":"[erased]","country":"US","firstName":"[erased]","phone":"[erased]","postCode":"[erased]","state":"HI"}`},
		{"absent", ``, ``},
		{"null", `null`, `null`},
		{"not an object", `"SAMEASSHIPPING"`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
			o := &Order{Email: "ada@example.com", ShippingAddress: json.RawMessage(tc.in), BillingAddress: json.RawMessage(tc.in), Version: 3}
			o.Erase(now)
			if o.Email != Erased || string(o.ShippingAddress) != tc.want || string(o.BillingAddress) != tc.want || o.Version != 4 || !o.UpdatedAt.Equal(now) {
				t.Errorf("got %q %s %s v%d %v, want %s", o.Email, o.ShippingAddress, o.BillingAddress, o.Version, o.UpdatedAt, tc.want)
			}
		})
	}
}
