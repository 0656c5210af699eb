package tax_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/tax"
	"github.com/commercekit/commerce/testkit/testdb"
)

func ptr[T any](v T) *T { return &v }

// num is a number argument as the transport decodes the JSON literal.
func num(literal string) *money.Number { return ptr(money.NewNumber(literal)) }

// newService returns a service over db whose catalog holds products, and
// a pointer to the batches of ids it was asked for.
func newService(t *testing.T, db *sqldb.DB, products map[string]tax.ProductTax) (*tax.Service, *[][]string) {
	t.Helper()
	var calls [][]string
	svc := tax.NewService(sqldb.NewTaxStore(db), tax.ProductsFunc(func(_ context.Context, ids []string) (map[string]tax.ProductTax, error) {
		calls = append(calls, slices.Clone(ids))
		out := map[string]tax.ProductTax{}
		for _, id := range ids {
			if p, ok := products[id]; ok {
				out[id] = p
			}
		}
		return out, nil
	}), nil)
	ctx := context.Background()
	for _, p := range []tax.CreateInput{
		{Fields: tax.Fields{Code: ptr("vat"), Class: ptr("default"), Title: ptr("VAT 21%"), Rate: num("21")}},
		{Fields: tax.Fields{Code: ptr("vat"), Class: ptr("default"), Title: ptr("Surcharge 10%"), Rate: num("10")}},
		{Fields: tax.Fields{Code: ptr("reduced"), Class: ptr("default"), Title: ptr("Reduced 10%"), Rate: num("10")}},
		{Fields: tax.Fields{Code: ptr("eco"), Class: ptr("default"), Title: ptr("Eco fee"), Rate: num("0.5"), IsPercentage: ptr(false)}},
		{Fields: tax.Fields{Code: ptr("default"), Class: ptr("default"), Title: ptr("IVA 21%"), Rate: num("21")}},
	} {
		if _, err := svc.Create(ctx, p); err != nil {
			t.Fatalf("create %s: %v", *p.Title, err)
		}
	}
	return svc, &calls
}

func TestServiceCartTaxes(t *testing.T) {
	products := map[string]tax.ProductTax{
		"net-reduced":   {TaxCode: "reduced", IsNetPrice: true},
		"gross-reduced": {TaxCode: "reduced"},
		"gross-vat":     {TaxCode: "vat"},
		"net-vat":       {TaxCode: "vat", IsNetPrice: true},
		"books":         {TaxCode: "books"},
		"eco":           {TaxCode: "eco"},
		"plain":         {},
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		svc, _ := newService(t, db, products)
		tests := []struct {
			name     string
			currency *string
			item     tax.CartTaxesItem
			want     string // the item of the response
		}{
			{"net price", nil, tax.CartTaxesItem{ID: "e", ProductID: "net-reduced", Price: num("100")},
				`{"id":"e","productId":"net-reduced","quantity":1,"price":100,"taxes":[{"beforeTax":100,"tax":10,"taxDetail":"Reduced 10%"}]}`},
			{"gross price", nil, tax.CartTaxesItem{ID: "e", ProductID: "gross-reduced", Quantity: ptr(2), Price: num("110")},
				`{"id":"e","productId":"gross-reduced","quantity":2,"price":110,"taxes":[{"beforeTax":100,"tax":10,"taxDetail":"Reduced 10%"}]}`},
			{"two taxes on a gross price", nil, tax.CartTaxesItem{ID: "e", ProductID: "gross-vat", Price: num("131")},
				`{"id":"e","productId":"gross-vat","quantity":1,"price":131,"taxes":[{"beforeTax":100,"tax":21,"taxDetail":"VAT 21%"},{"beforeTax":100,"tax":10,"taxDetail":"Surcharge 10%"}]}`},
			{"two taxes on a net price", nil, tax.CartTaxesItem{ID: "e", ProductID: "net-vat", Price: num("577.65")},
				`{"id":"e","productId":"net-vat","quantity":1,"price":577.65,"taxes":[{"beforeTax":577.65,"tax":121.31,"taxDetail":"VAT 21%"},{"beforeTax":577.65,"tax":57.77,"taxDetail":"Surcharge 10%"}]}`},
			{"no tax for the code", nil, tax.CartTaxesItem{ID: "e", ProductID: "books", Price: num("12.5")},
				`{"id":"e","productId":"books","quantity":1,"price":12.5,"taxes":[{"beforeTax":12.5,"tax":0,"taxDetail":"no tax for code books"}]}`},
			{"fixed tax times quantity", nil, tax.CartTaxesItem{ID: "e", ProductID: "eco", Quantity: ptr(3), Price: num("30")},
				`{"id":"e","productId":"eco","quantity":3,"price":30,"taxes":[{"beforeTax":30,"tax":1.5,"taxDetail":"Eco fee"}]}`},
			{"fixed tax, quantity defaults to 1", nil, tax.CartTaxesItem{ID: "e", ProductID: "eco", Price: num("10")},
				`{"id":"e","productId":"eco","quantity":1,"price":10,"taxes":[{"beforeTax":10,"tax":0.5,"taxDetail":"Eco fee"}]}`},
			{"no taxCode means default", nil, tax.CartTaxesItem{ID: "e", ProductID: "plain", Price: num("121")},
				`{"id":"e","productId":"plain","quantity":1,"price":121,"taxes":[{"beforeTax":100,"tax":21,"taxDetail":"IVA 21%"}]}`},
			{"JPY", ptr("JPY"), tax.CartTaxesItem{ID: "e", ProductID: "gross-reduced", Price: num("1000")},
				`{"id":"e","productId":"gross-reduced","quantity":1,"price":1000,"taxes":[{"beforeTax":909,"tax":91,"taxDetail":"Reduced 10%"}]}`},
			{"JOD", ptr("JOD"), tax.CartTaxesItem{ID: "e", ProductID: "net-reduced", Price: num("1.005")},
				`{"id":"e","productId":"net-reduced","quantity":1,"price":1.005,"taxes":[{"beforeTax":1.005,"tax":0.101,"taxDetail":"Reduced 10%"}]}`},
			{"zero price", nil, tax.CartTaxesItem{ID: "e", ProductID: "gross-vat", Price: num("0")},
				`{"id":"e","productId":"gross-vat","quantity":1,"price":0,"taxes":[{"beforeTax":0,"tax":0,"taxDetail":"VAT 21%"},{"beforeTax":0,"tax":0,"taxDetail":"Surcharge 10%"}]}`},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res, err := svc.CartTaxes(context.Background(), tax.CartTaxesInput{CartID: "c1", Currency: tc.currency, Items: []tax.CartTaxesItem{tc.item}})
				if err != nil {
					t.Fatalf("CartTaxes: %v", err)
				}
				b, _ := json.Marshal(res)
				if want := `{"cart":{"id":"c1","items":[` + tc.want + `]}}`; string(b) != want {
					t.Errorf("got  %s\nwant %s", b, want)
				}
			})
		}
	})
}

func TestServiceCartTaxesErrors(t *testing.T) {
	item := func(change func(*tax.CartTaxesItem)) []tax.CartTaxesItem {
		it := tax.CartTaxesItem{ID: "e", ProductID: "p", Price: num("10")}
		change(&it)
		return []tax.CartTaxesItem{it}
	}
	same := func(*tax.CartTaxesItem) {}
	tests := []struct {
		name  string
		req   tax.CartTaxesInput
		code  string
		data  any    // for product_not_found
		field string // for validation_error: a problem names it
	}{
		{"missing cartId", tax.CartTaxesInput{Items: item(same)}, commerce.EValidation, nil, "cartId"},
		{"missing items", tax.CartTaxesInput{CartID: "c"}, commerce.EValidation, nil, "items"},
		{"unknown currency", tax.CartTaxesInput{CartID: "c", Currency: ptr("XXY"), Items: item(same)}, commerce.EValidation, nil, "currency"},
		{"lower-case currency", tax.CartTaxesInput{CartID: "c", Currency: ptr("usd"), Items: item(same)}, commerce.EValidation, nil, "currency"},
		{"missing item id", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.ID = "" })}, commerce.EValidation, nil, "items[0].id"},
		{"missing productId", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.ProductID = "" })}, commerce.EValidation, nil, "items[0].productId"},
		{"missing price", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.Price = nil })}, commerce.EValidation, nil, "items[0].price"},
		{"price as a string", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.Price = num(`"10"`) })}, commerce.EValidation, nil, "items[0].price"},
		{"negative price", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.Price = num(`-1`) })}, commerce.EValidation, nil, "items[0].price"},
		{"too many decimals for USD", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.Price = num(`1.001`) })}, commerce.EValidation, nil, "items[0].price"},
		{"decimals for JPY", tax.CartTaxesInput{CartID: "c", Currency: ptr("JPY"), Items: item(func(i *tax.CartTaxesItem) { i.Price = num(`1.5`) })}, commerce.EValidation, nil, "items[0].price"},
		{"zero quantity", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.Quantity = ptr(0) })}, commerce.EValidation, nil, "items[0].quantity"},
		{"huge amounts", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) {
			i.ProductID, i.Quantity, i.Price = "eco", ptr(1<<62), num("1")
		})}, commerce.EValidation, nil, "items[0]"},
		{"unknown product", tax.CartTaxesInput{CartID: "c", Items: item(func(i *tax.CartTaxesItem) { i.ProductID = "nope" })}, commerce.EProductNotFound, "nope", ""},
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		svc, _ := newService(t, db, map[string]tax.ProductTax{"p": {TaxCode: "vat"}, "eco": {TaxCode: "eco"}})
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, err := svc.CartTaxes(context.Background(), tc.req)
				if got := commerce.ErrorCode(err); got != tc.code {
					t.Fatalf("got %q (%v), want %q", got, err, tc.code)
				}
				if tc.data != nil && commerce.ErrorData(err) != tc.data {
					t.Errorf("data: got %v, want %v", commerce.ErrorData(err), tc.data)
				}
				if tc.field != "" {
					list, _ := commerce.ErrorData(err).([]string)
					if !hasProblem(list, tc.field) {
						t.Errorf("problems %q do not name %s", list, tc.field)
					}
				}
			})
		}
	})
}

func TestServiceCartTaxesBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		svc, calls := newService(t, db, map[string]tax.ProductTax{"a": {TaxCode: "vat"}, "b": {TaxCode: "eco"}})
		items := []tax.CartTaxesItem{
			{ID: "1", ProductID: "a", Price: num("1")},
			{ID: "2", ProductID: "b", Price: num("1")},
			{ID: "3", ProductID: "a", Price: num("2")},
		}
		res, err := svc.CartTaxes(context.Background(), tax.CartTaxesInput{CartID: "c", Items: items})
		if err != nil {
			t.Fatal(err)
		}
		if want := [][]string{{"a", "b"}}; len(*calls) != 1 || !slices.Equal((*calls)[0], want[0]) {
			t.Errorf("catalog calls: got %q, want one batch %q", *calls, want)
		}
		var ids []string
		for _, it := range res.Cart.Items {
			ids = append(ids, it.ID)
		}
		if !slices.Equal(ids, []string{"1", "2", "3"}) {
			t.Errorf("items: got %q, want in request order", ids)
		}
		empty, err := svc.CartTaxes(context.Background(), tax.CartTaxesInput{CartID: "c", Items: []tax.CartTaxesItem{}})
		if err != nil || len(empty.Cart.Items) != 0 || len(*calls) != 1 {
			t.Errorf("empty items: got %+v, %v, %d catalog calls; want no items, no error, no call", empty, err, len(*calls))
		}
	})
}

func TestServiceComputeForTheCart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		svc, _ := newService(t, db, nil)
		ctx := context.Background()
		taxes, err := svc.ForCodes(ctx, []string{"vat", "", "vat", "none"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tx := range taxes {
			got = append(got, tx.Title)
		}
		if want := []string{"VAT 21%", "Surcharge 10%", "IVA 21%"}; !slices.Equal(got, want) {
			t.Errorf("ForCodes: got %q, want %q (creation order)", got, want)
		}
		if none, err := svc.ForCodes(ctx, nil); err != nil || len(none) != 0 {
			t.Errorf("ForCodes(nil): got %v, %v", none, err)
		}
		res, err := svc.Compute(ctx, []tax.Entry{
			{ID: "a", Quantity: 2, Amount: 131_00, Discount: 0, TaxCode: "vat"},
			{ID: "b", Quantity: 1, Amount: 10_00, Discount: 1_00, IsNetPrice: true, TaxCode: "reduced"},
		}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 2 || res[0].BeforeTax != 100_00 || res[0].Tax != 31_00 || res[0].TaxDetail != "VAT 21%, Surcharge 10%" ||
			res[1].BeforeTax != 9_00 || res[1].Tax != 90 {
			t.Errorf("Compute: got %+v", res)
		}
	})
}
