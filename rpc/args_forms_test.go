package rpc

import (
	"reflect"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/customer"
)

// TestArgumentForms: the transport decodes the arguments whose JSON form
// is not their Go type's (wireForms: addresses, billingAddress, shipping
// method references, post codes and phones) strictly, naming each problem
// with its path, as it does every argument: the use cases receive typed
// values.
func TestArgumentForms(t *testing.T) {
	const addr = `"firstName":"Ada","address_1":"1 Main St","city":"Honolulu","state":"HI","country":"US"`
	ship := func() any { return new(cart.ShippingAddressInput) }
	bill := func() any { return new(cart.BillingAddressInput) }
	method := func() any { return new(cart.ShippingMethodInput) }
	checkout := func() any { return new(cart.CheckoutInput) }
	book := func() any { return new(customer.AddAddressInput) }
	register := func() any { return new(customer.RegisterInput) }
	tests := []struct {
		name     string
		dst      func() any
		body     string
		problems []string // nil: decoded
	}{
		{"an address", ship, `{"shippingAddress":{` + addr + `,"postCode":96815}}`, nil},
		{"an unknown field of an address", ship, `{"shippingAddress":{` + addr + `,"postCode":1,"zip":2}}`, []string{"shippingAddress.zip: unknown field"}},
		{"names in another case", ship, `{"shippingAddress":{` + addr + `,"POSTCODE":1,"City":"x"}}`, []string{"shippingAddress.City: unknown field", "shippingAddress.POSTCODE: unknown field"}},
		{"a post code of another type", ship, `{"shippingAddress":{` + addr + `,"postCode":true}}`, []string{"shippingAddress.postCode: must be a string or a number"}},
		{"a name of another type", ship, `{"shippingAddress":{"firstName":1}}`, []string{"shippingAddress.firstName: must be a string"}},
		{"a string for an address", ship, `{"shippingAddress":"SAMEASSHIPPING"}`, []string{"shippingAddress: must be an address object"}},
		{"a number for an address", ship, `{"shippingAddress":3}`, []string{"shippingAddress: must be an address object"}},
		{"a list for an address", ship, `{"cartId":"c","shippingAddress":[1]}`, []string{"shippingAddress: must be an address object"}},
		{"SAMEASSHIPPING", bill, `{"billingAddress":"SAMEASSHIPPING"}`, nil},
		{"a billing address", bill, `{"billingAddress":{` + addr + `}}`, nil},
		{"another string for billing", bill, `{"billingAddress":"SAME"}`, []string{`billingAddress: must be an address object or the string "SAMEASSHIPPING"`}},
		{"a number for billing", bill, `{"billingAddress":3}`, []string{`billingAddress: must be an address object or the string "SAMEASSHIPPING"`}},
		{"an unknown field of a billing address", bill, `{"billingAddress":{` + addr + `,"zip":2}}`, []string{"billingAddress.zip: unknown field"}},
		{"a type in a billing address", bill, `{"cartId":"c","billingAddress":{"firstName":1}}`, []string{"billingAddress.firstName: must be a string"}},
		{"a post code in a billing address", bill, `{"cartId":"c","billingAddress":{"postCode":{}}}`, []string{"billingAddress.postCode: must be a string or a number"}},
		{"a method id", method, `{"methodId":"m1"}`, nil},
		{"a method object", method, `{"methodId":{"id":"m1","title":"UPS","active":true,"taxCode":"x","rates":[]}}`, nil},
		{"an unknown field of a method", method, `{"methodId":{"id":"m1","price":1}}`, []string{"methodId.price: unknown field"}},
		{"a number for a method", method, `{"methodId":1}`, []string{"methodId: must be a shipping method id or an object with the id"}},
		{"a method id of another type", method, `{"cartId":"c","methodId":{"id":5}}`, []string{"methodId.id: must be a string"}},
		{"checkout's forms", checkout, `{"shippingMethod":{"id":"m","x":1},"billingAddress":{"y":1},"shippingAddress":{"z":1}}`,
			[]string{"billingAddress.y: unknown field", "shippingAddress.z: unknown field", "shippingMethod.x: unknown field"}},
		{"a book address", book, `{"address":{` + addr + `,"postCode":1,"default":true}}`, nil},
		{"an unknown field of a book address", book, `{"address":{` + addr + `,"FIRSTNAME":"b"}}`, []string{"address.FIRSTNAME: unknown field"}},
		{"a post code of a book address", book, `{"id":"x","address":{` + addr + `,"postCode":false}}`, []string{"address.postCode: must be a string or a number"}},
		{"default not a boolean", book, `{"address":{` + addr + `,"default":"yes"}}`, []string{"address.default: must be a boolean"}},
		{"a string for a book address", book, `{"address":"home"}`, []string{"address: must be an address object"}},
		{"a phone of another type", register, `{"email":"a@b.c","phone":true}`, []string{"phone: must be a string or a number"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := tc.dst()
			err := decodeArgs(dst, fieldsOf(reflect.TypeOf(dst)), nil, []byte(tc.body))
			if tc.problems == nil {
				if err != nil {
					t.Fatalf("got %v, want it decoded", err)
				}
				return
			}
			if commerce.ErrorCode(err) != commerce.EValidation || !slices.Equal(commerce.ProblemsOf(err), tc.problems) {
				t.Errorf("got %v (problems %q), want validation_error %q", err, commerce.ProblemsOf(err), tc.problems)
			}
		})
	}
}

// TestArgumentFormValues: what the use cases receive.
func TestArgumentFormValues(t *testing.T) {
	var b cart.BillingAddressInput
	if err := decodeArgs(&b, fieldsOf(reflect.TypeOf(&b)), nil, []byte(`{"billingAddress":{"firstName":"Ada","postCode":96815}}`)); err != nil {
		t.Fatal(err)
	}
	if a := b.BillingAddress; a == nil || a.SameAsShipping || a.Address == nil || a.Address.FirstName != "Ada" || a.Address.PostCode != "96815" {
		t.Errorf("billing address: got %+v", a)
	}
	var m cart.CheckoutInput
	if err := decodeArgs(&m, fieldsOf(reflect.TypeOf(&m)), nil, []byte(`{"shippingMethod":{"id":"m1","title":"UPS"}}`)); err != nil {
		t.Fatal(err)
	}
	if r := m.ShippingMethod; r == nil || r.ID != "m1" || !r.Object {
		t.Errorf("method object: got %+v", r)
	}
	var a customer.AddAddressInput
	if err := decodeArgs(&a, fieldsOf(reflect.TypeOf(&a)), nil, []byte(`{"address":{"firstName":"Ada","phone":5551234,"default":true}}`)); err != nil {
		t.Fatal(err)
	}
	if x := a.Address; x == nil || !x.Default || x.FirstName != "Ada" || x.Phone != "5551234" {
		t.Errorf("book address: got %+v", x)
	}
}
