package customer_test

import (
	"testing"

	"github.com/commercekit/commerce/customer"
)

func TestErasePersonal(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        bool
	}{
		{"customer", `{"customer":{"id":"c1","email":"a@b.c","firstName":"Ada","lastName":"","phone":"+1 5","customerType":"B2C","addresses":[]}}`,
			`{"customer":{"id":"c1","email":"[erased]","firstName":"[erased]","lastName":"","phone":"[erased]","customerType":"B2C","addresses":[]}}`, true},
		{"address book: ids, default, country and state kept",
			`{"addresses":[{"id":"a1","firstName":"Ada","address_1":"1 Rd","address_2":[4,2],"postCode":96815,"city":"X","state":"HI","country":"US","company":"E","instructions":"knock","default":true}]}`,
			`{"addresses":[{"id":"a1","firstName":"[erased]","address_1":"[erased]","address_2":"[erased]","postCode":"[erased]","city":"[erased]","state":"HI","country":"US","company":"[erased]","instructions":"[erased]","default":true}]}`, true},
		{"order: keys in their order, numbers kept as written", `{"order":{"total":1.50,"email":"a@b.c","shippingAddress":{"country":"US","city":"Y"},"n":1e3}}`,
			`{"order":{"total":1.50,"email":"[erased]","shippingAddress":{"country":"US","city":"[erased]"},"n":1e3}}`, true},
		{"billing as shipping (a string) has nothing personal", `{"data":{"billingAddress":"SAMEASSHIPPING","email":null}}`,
			`{"data":{"billingAddress":"SAMEASSHIPPING","email":null}}`, false},
		{"an object under a personal name", `{"to":{"name":"x"},"t":"<a&b>"}`, `{"to":"[erased]","t":"\u003ca\u0026b\u003e"}`, true},
		{"erased already", `{"email":"[erased]"}`, `{"email":"[erased]"}`, false},
		{"nothing personal", `{"id":"p1","userId":"c1","n":[1,true,null]}`, `{"id":"p1","userId":"c1","n":[1,true,null]}`, false},
		{"not an object", `null`, `null`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := customer.ErasePersonal([]byte(tc.in))
			if err != nil || string(got) != tc.want || changed != tc.changed {
				t.Errorf("got %s, %v, %v\nwant %s, %v", got, changed, err, tc.want, tc.changed)
			}
		})
	}
	for _, bad := range []string{``, `{"a":`, `{"a":1} {}`, `nope`} {
		if _, _, err := customer.ErasePersonal([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
