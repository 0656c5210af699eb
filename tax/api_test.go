package tax_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// apiTax is a tax as a client reads it.
type apiTax struct {
	ID           string      `json:"id"`
	Code         string      `json:"code"`
	Class        string      `json:"class"`
	Title        string      `json:"title"`
	Description  string      `json:"description"`
	Rate         json.Number `json:"rate"`
	IsPercentage bool        `json:"isPercentage"`
}

func createTax(t *testing.T, srv *apitest.Server, body map[string]any) apiTax {
	t.Helper()
	var tx apiTax
	srv.Post(t, "/tax/v1/tax.create", srv.Admin, body).Must(t).Decode(t, "tax", &tx)
	if tx.ID == "" {
		t.Fatalf("created tax has no id: %+v", tx)
	}
	return tx
}

func listTaxes(t *testing.T, srv *apitest.Server, query string) []apiTax {
	t.Helper()
	var data []apiTax
	srv.Get(t, "/tax/v1/tax.list?"+query, srv.API).Must(t).Decode(t, "data", &data)
	return data
}

func titles(taxes []apiTax) []string {
	out := make([]string, len(taxes))
	for i, t := range taxes {
		out[i] = t.Title
	}
	return out
}

func problems(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var list []string
	if err := json.Unmarshal(r.Data, &list); err != nil {
		t.Fatalf("validation_error data is not a list of strings: %s", r.Raw)
	}
	return list
}

func hasProblem(list []string, field string) bool {
	for _, p := range list {
		if strings.HasPrefix(p, field+":") {
			return true
		}
	}
	return false
}

func TestTaxCRUD(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		created := createTax(t, srv, map[string]any{"code": "vat", "class": "default", "title": "VAT 21%", "rate": 21})
		want := apiTax{ID: created.ID, Code: "vat", Class: "default", Title: "VAT 21%", Rate: "21", IsPercentage: true}
		if created != want {
			t.Fatalf("create: got %+v, want %+v (isPercentage defaults to true, description to \"\")", created, want)
		}

		var info apiTax
		srv.Get(t, "/tax/v1/tax.info?id="+created.ID, srv.API).Must(t).Decode(t, "tax", &info)
		if info != want {
			t.Errorf("info: got %+v, want %+v", info, want)
		}
		srv.Post(t, "/services/tax/v1/tax.info", srv.API, map[string]any{"id": created.ID}).Must(t).Decode(t, "tax", &info)
		if info != want {
			t.Errorf("info by POST under /services: got %+v, want %+v", info, want)
		}

		// Partial update: only the fields present change.
		var updated apiTax
		srv.Post(t, "/tax/v1/tax.update?id="+created.ID, srv.Admin, map[string]any{"rate": 10.5, "description": "reduced"}).
			Must(t).Decode(t, "tax", &updated)
		want.Rate, want.Description = "10.5", "reduced"
		if updated != want {
			t.Fatalf("update: got %+v, want %+v", updated, want)
		}
		// null means absent.
		srv.Post(t, "/tax/v1/tax.update", srv.Admin, map[string]any{"id": created.ID, "title": nil, "isPercentage": false}).
			Must(t).Decode(t, "tax", &updated)
		want.IsPercentage = false
		if updated != want {
			t.Fatalf("update with null title: got %+v, want %+v", updated, want)
		}
		srv.Get(t, "/tax/v1/tax.info?id="+created.ID, srv.API).Must(t).Decode(t, "tax", &info)
		if info != want {
			t.Errorf("info after update: got %+v, want %+v", info, want)
		}

		var removed apiTax
		srv.Post(t, "/tax/v1/tax.remove?id="+created.ID, srv.Admin, nil).Must(t).Decode(t, "tax", &removed)
		if removed != want {
			t.Errorf("remove: got %+v, want %+v", removed, want)
		}
		r := srv.Get(t, "/tax/v1/tax.info?id="+created.ID, srv.API).Expect(t, 404, "tax_not_found")
		if string(r.Data) != `"`+created.ID+`"` {
			t.Errorf("tax_not_found data: got %s, want the id", r.Data)
		}
		srv.Post(t, "/tax/v1/tax.remove?id="+created.ID, srv.Admin, nil).Expect(t, 404, "tax_not_found")
		if got := listTaxes(t, srv, ""); len(got) != 0 {
			t.Errorf("list after remove: got %d taxes, want 0", len(got))
		}
	})
}

func TestTaxCreateValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		valid := func(change func(map[string]any)) map[string]any {
			b := map[string]any{"code": "vat", "class": "default", "title": "VAT", "rate": 21}
			change(b)
			return b
		}
		tests := []struct {
			name  string
			body  any
			field string // a problem must name it
		}{
			{"unknown class", valid(func(b map[string]any) { b["class"] = "ca-on-pm" }), "class"},
			{"empty class", valid(func(b map[string]any) { b["class"] = "" }), "class"},
			{"missing class", valid(func(b map[string]any) { delete(b, "class") }), "class"},
			{"missing code", valid(func(b map[string]any) { delete(b, "code") }), "code"},
			{"blank code", valid(func(b map[string]any) { b["code"] = "  " }), "code"},
			{"missing title", valid(func(b map[string]any) { delete(b, "title") }), "title"},
			{"missing rate", valid(func(b map[string]any) { delete(b, "rate") }), "rate"},
			{"null rate", valid(func(b map[string]any) { b["rate"] = nil }), "rate"},
			{"negative rate", valid(func(b map[string]any) { b["rate"] = -1 }), "rate"},
			{"rate not a number", valid(func(b map[string]any) { b["rate"] = "21" }), "rate"},
			{"rate too precise", valid(func(b map[string]any) { b["rate"] = json.Number("1.0000000000000000001") }), "rate"},
			{"isPercentage not a boolean", valid(func(b map[string]any) { b["isPercentage"] = "yes" }), "isPercentage"},
			{"misspelled field", valid(func(b map[string]any) { b["isPercentaje"] = true }), "isPercentaje"},
			{"id given", valid(func(b map[string]any) { b["id"] = "mine" }), "id"},
			{"title not a string", valid(func(b map[string]any) { b["title"] = 5 }), "title"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Post(t, "/tax/v1/tax.create", srv.Admin, tc.body).Expect(t, 400, "validation_error")
				if list := problems(t, r); !hasProblem(list, tc.field) {
					t.Errorf("problems %q do not name %s", list, tc.field)
				}
			})
		}
		t.Run("every problem at once", func(t *testing.T) {
			r := srv.Post(t, "/tax/v1/tax.create", srv.Admin, map[string]any{"class": "nope", "rate": -2}).Expect(t, 400, "validation_error")
			list := problems(t, r)
			for _, f := range []string{"code", "title", "class", "rate"} {
				if !hasProblem(list, f) {
					t.Errorf("problems %q do not name %s", list, f)
				}
			}
		})
		if got := listTaxes(t, srv, ""); len(got) != 0 {
			t.Errorf("after rejected creates: got %d taxes, want 0", len(got))
		}
	})
}

func TestTaxUpdateErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		orig := createTax(t, srv, map[string]any{"code": "vat", "class": "default", "title": "VAT", "rate": 21, "description": "d"})
		tests := []struct {
			name   string
			path   string
			body   any
			status int
			code   string
			field  string
		}{
			{"unknown id", "/tax/v1/tax.update?id=nope", map[string]any{"rate": 1}, 404, "tax_not_found", ""},
			{"missing id", "/tax/v1/tax.update", map[string]any{"rate": 1}, 400, "validation_error", "id"},
			{"unknown class", "/tax/v1/tax.update?id=" + orig.ID, map[string]any{"class": "ca-on-pm", "rate": 5}, 400, "validation_error", "class"},
			{"empty title", "/tax/v1/tax.update?id=" + orig.ID, map[string]any{"title": "", "rate": 5}, 400, "validation_error", "title"},
			{"negative rate", "/tax/v1/tax.update?id=" + orig.ID, map[string]any{"rate": -5}, 400, "validation_error", "rate"},
			{"rate not a number", "/tax/v1/tax.update?id=" + orig.ID, map[string]any{"rate": true}, 400, "validation_error", "rate"},
			{"unknown field", "/tax/v1/tax.update?id=" + orig.ID, map[string]any{"rates": 5}, 400, "validation_error", "rates"},
		}
		// The document describes these two constraints: apitest checks
		// that it rejects them too.
		docRejects := map[string]bool{"rate not a number": true, "unknown field": true}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				s := srv
				if docRejects[tc.name] {
					s = srv.BadInput()
				}
				r := s.Post(t, tc.path, srv.Admin, tc.body).Expect(t, tc.status, tc.code)
				if tc.code == "tax_not_found" && string(r.Data) != `"nope"` {
					t.Errorf("data: got %s, want \"nope\"", r.Data)
				}
				if tc.field != "" {
					if list := problems(t, r); !hasProblem(list, tc.field) {
						t.Errorf("problems %q do not name %s", list, tc.field)
					}
				}
			})
		}
		var got apiTax
		srv.Get(t, "/tax/v1/tax.info?id="+orig.ID, srv.API).Must(t).Decode(t, "tax", &got)
		if got != orig {
			t.Errorf("after rejected updates: got %+v, want it unchanged %+v", got, orig)
		}
	})
}

func TestTaxAccess(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		tx := createTax(t, srv, map[string]any{"code": "vat", "class": "default", "title": "VAT", "rate": 21})
		body := map[string]any{"code": "x", "class": "default", "title": "X", "rate": 1}
		tests := []struct {
			name, method, path, token string
			body                      any
			status                    int
			code                      string
		}{
			{"create needs admin", "POST", "/tax/v1/tax.create", srv.API, body, 403, "forbidden"},
			{"update needs admin", "POST", "/tax/v1/tax.update?id=" + tx.ID, srv.API, map[string]any{"rate": 1}, 403, "forbidden"},
			{"remove needs admin", "POST", "/tax/v1/tax.remove?id=" + tx.ID, srv.API, nil, 403, "forbidden"},
			{"no token", "GET", "/tax/v1/tax.list", "", nil, 401, "invalid_token"},
			{"create is POST only", "GET", "/tax/v1/tax.create", srv.Admin, nil, 405, "method_not_allowed"},
			{"remove is POST only", "GET", "/tax/v1/tax.remove?id=" + tx.ID, srv.Admin, nil, 405, "method_not_allowed"},
			{"list is not PUT", "PUT", "/tax/v1/tax.list", srv.API, nil, 405, "method_not_allowed"},
			{"tax.create is not a catalog operation", "POST", "/catalog/v1/tax.create", srv.Admin, body, 404, "operation_not_found"},
			{"tax.list is not a catalog operation", "GET", "/catalog/v1/tax.list", srv.API, nil, 404, "operation_not_found"},
			{"tax.cartTaxes is not a cart operation", "GET", "/cart/v1/tax.cartTaxes", srv.API, nil, 404, "operation_not_found"},
			{"no v2", "GET", "/tax/v2/tax.list", srv.API, nil, 404, "operation_not_found"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				srv.Do(t, tc.method, tc.path, tc.token, tc.body).Expect(t, tc.status, tc.code)
			})
		}
		var list []apiTax
		srv.Post(t, "/tax/v1/tax.list", srv.API, nil).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0] != tx {
			t.Errorf("list with an api token: got %+v, want the one tax", list)
		}
	})
}

func TestTaxList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		ids := map[string]string{}
		for _, b := range []map[string]any{
			{"code": "vat", "class": "default", "title": "IVA 21%", "rate": 21, "description": "General rate"},
			{"code": "vat", "class": "default", "title": "Surcharge 5.2%", "rate": 5.2},
			{"code": "reduced", "class": "default", "title": "IVA 10%", "rate": 10, "description": "reduced RATE"},
			{"code": "eco", "class": "default", "title": "Eco fee", "rate": 0.5, "isPercentage": false},
			{"code": "books", "class": "default", "title": "Books 21.0", "rate": 21.0},
		} {
			ids[b["title"].(string)] = createTax(t, srv, b).ID
		}
		all := []string{"IVA 21%", "Surcharge 5.2%", "IVA 10%", "Eco fee", "Books 21.0"}
		tests := []struct {
			name  string
			query string
			want  []string
		}{
			{"no filter: all in creation order", "", all},
			{"id list", "id=" + ids["Eco fee"] + "," + ids["IVA 21%"], []string{"IVA 21%", "Eco fee"}},
			{"unknown id", "id=nope", []string{}},
			{"code", "code=vat", []string{"IVA 21%", "Surcharge 5.2%"}},
			{"code list", "code=eco,reduced", []string{"IVA 10%", "Eco fee"}},
			{"class", "class=default", all},
			{"unknown class", "class=other", []string{}},
			{"title regex anywhere, case-insensitive", "title=iva", []string{"IVA 21%", "IVA 10%"}},
			{"title anchored", "title=" + url.QueryEscape("^iva 1"), []string{"IVA 10%"}},
			{"title RE2 word boundary", "title=" + url.QueryEscape(`\bfee\b`), []string{"Eco fee"}},
			{"description regex", "description=rate", []string{"IVA 21%", "IVA 10%"}},
			{"description regex with empty descriptions", "description=" + url.QueryEscape("^$"), []string{"Surcharge 5.2%", "Eco fee", "Books 21.0"}},
			{"rate", "rate=21", []string{"IVA 21%", "Books 21.0"}},
			{"rate with trailing zero", "rate=21.00", []string{"IVA 21%", "Books 21.0"}},
			{"rate decimal", "rate=0.5", []string{"Eco fee"}},
			{"isPercentage false", "isPercentage=false", []string{"Eco fee"}},
			{"isPercentage true", "isPercentage=true", []string{"IVA 21%", "Surcharge 5.2%", "IVA 10%", "Books 21.0"}},
			{"filters combine", "code=vat,books&rate=21", []string{"IVA 21%", "Books 21.0"}},
			{"limit", "limit=2", []string{"IVA 21%", "Surcharge 5.2%"}},
			{"skip", "skip=3", []string{"Eco fee", "Books 21.0"}},
			{"limit and skip", "limit=2&skip=1", []string{"Surcharge 5.2%", "IVA 10%"}},
			{"skip past the end", "skip=10", []string{}},
			{"regex with paging", "title=" + url.QueryEscape("%|fee") + "&skip=1&limit=2", []string{"Surcharge 5.2%", "IVA 10%"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := titles(listTaxes(t, srv, tc.query))
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}

		t.Run("page", func(t *testing.T) {
			var page struct{ Limit, Skip int }
			srv.Get(t, "/tax/v1/tax.list?limit=3&skip=1", srv.API).Must(t).Decode(t, "page", &page)
			if page.Limit != 3 || page.Skip != 1 {
				t.Errorf("got page %+v, want {3 1}", page)
			}
			srv.Get(t, "/tax/v1/tax.list", srv.API).Must(t).Decode(t, "page", &page)
			if page.Limit != 10 || page.Skip != 0 {
				t.Errorf("got default page %+v, want {10 0}", page)
			}
		})

		t.Run("POST body with lists and comma-separated strings", func(t *testing.T) {
			for _, body := range []map[string]any{
				{"code": []string{"eco", "reduced"}},
				{"code": "eco,reduced"},
			} {
				var data []apiTax
				srv.Post(t, "/tax/v1/tax.list", srv.API, body).Must(t).Decode(t, "data", &data)
				if got, want := titles(data), []string{"IVA 10%", "Eco fee"}; !slices.Equal(got, want) {
					t.Errorf("body %v: got %q, want %q", body, got, want)
				}
			}
		})

		t.Run("fields", func(t *testing.T) {
			var data []map[string]any
			srv.Get(t, "/tax/v1/tax.list?code=eco&fields=title,rate,nosuch", srv.API).Must(t).Decode(t, "data", &data)
			want := map[string]any{"id": ids["Eco fee"], "title": "Eco fee", "rate": 0.5}
			if len(data) != 1 || fmt.Sprint(data[0]) != fmt.Sprint(want) {
				t.Errorf("got %v, want [%v]", data, want)
			}
		})

		errs := []struct {
			name   string
			method string
			query  string
			body   any
			field  string
		}{
			{"invalid title regex", "GET", "title=" + url.QueryEscape("("), nil, "title"},
			{"invalid description regex", "GET", "description=" + url.QueryEscape("[a"), nil, "description"},
			{"limit 0", "GET", "limit=0", nil, "limit"},
			{"limit 1001", "GET", "limit=1001", nil, "limit"},
			{"negative skip", "GET", "skip=-1", nil, "skip"},
			{"rate not a number", "GET", "rate=abc", nil, "rate"},
			{"isPercentage not a boolean", "GET", "isPercentage=maybe", nil, "isPercentage"},
			{"code not a list", "POST", "", map[string]any{"code": map[string]any{"a": 1}}, "code"},
			{"unknown body field", "POST", "", map[string]any{"codes": "vat"}, "codes"},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Do(t, tc.method, "/tax/v1/tax.list?"+tc.query, srv.API, tc.body).Expect(t, 400, "validation_error")
				if list := problems(t, r); !hasProblem(list, tc.field) {
					t.Errorf("problems %q do not name %s", list, tc.field)
				}
			})
		}
	})
}

// TestTaxConcurrentUpdates checks that concurrent partial updates of
// different fields of one tax all survive (no lost write).
func TestTaxConcurrentUpdates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		tx := createTax(t, srv, map[string]any{"code": "vat", "class": "default", "title": "VAT", "rate": 21})
		updates := []map[string]any{
			{"code": "vat2"}, {"title": "VAT 2"}, {"description": "new"}, {"rate": 7}, {"isPercentage": false},
		}
		var wg sync.WaitGroup
		for _, u := range updates {
			wg.Go(func() {
				r := srv.Post(t, "/tax/v1/tax.update?id="+tx.ID, srv.Admin, u)
				if !r.OK {
					t.Errorf("update %v: %d %s", u, r.Status, r.Raw)
				}
			})
		}
		wg.Wait()
		var got apiTax
		srv.Get(t, "/tax/v1/tax.info?id="+tx.ID, srv.API).Must(t).Decode(t, "tax", &got)
		want := apiTax{ID: tx.ID, Code: "vat2", Class: "default", Title: "VAT 2", Description: "new", Rate: "7", IsPercentage: false}
		if got != want {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
}

// TestTaxSampleData creates every record of the sample's dataTaxes.jsonl,
// as `commerce load` does: ca-on-pm names a class nobody implements, so it
// is the one rejected, with validation_error naming class.
func TestTaxSampleData(t *testing.T) {
	path := sample.File(t, "dataTaxes.jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		var accepted, rejected []string
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var rec struct {
				Code string `json:"code"`
			}
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("sample line %s: %v", line, err)
			}
			r := srv.Post(t, "/tax/v1/tax.create", srv.Admin, line)
			if r.OK {
				accepted = append(accepted, rec.Code)
				continue
			}
			r.Expect(t, 400, "validation_error")
			if list := problems(t, r); !hasProblem(list, "class") {
				t.Errorf("%s: problems %q do not name class", rec.Code, list)
			}
			rejected = append(rejected, rec.Code)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"default", "ca-on-gst", "ca-on-hst"}; !slices.Equal(accepted, want) {
			t.Errorf("accepted %q, want %q", accepted, want)
		}
		if want := []string{"ca-on-pm"}; !slices.Equal(rejected, want) {
			t.Errorf("rejected %q, want %q", rejected, want)
		}
		var data []apiTax
		srv.Get(t, "/tax/v1/tax.list?code=ca-on-hst", srv.API).Must(t).Decode(t, "data", &data)
		if len(data) != 1 || data[0].Title != "Canada - Ontario - HST 13%" || data[0].Rate != "13" || !data[0].IsPercentage {
			t.Errorf("ca-on-hst: got %+v", data)
		}
	})
}

// createProduct creates an ONLINE product in a new category through the
// catalog and returns its id.
func createProduct(t *testing.T, srv *apitest.Server, sku string, extra map[string]any) string {
	t.Helper()
	var cat struct{ ID string }
	srv.Post(t, "/catalog/v1/category.create", srv.Admin, map[string]any{"title": "Cat " + sku, "slug": "cat-" + strings.ToLower(sku), "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	body := map[string]any{"sku": sku, "status": "ONLINE", "title": "Product " + sku, "categories": []string{cat.ID}, "stockStatus": 0}
	for k, v := range extra {
		body[k] = v
	}
	var p struct{ ID string }
	srv.Post(t, "/catalog/v1/product.create", srv.Admin, body).Must(t).Decode(t, "product", &p)
	return p.ID
}

func TestCartTaxes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		for _, b := range []map[string]any{
			{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21},
			{"code": "ca-on", "class": "default", "title": "GST 5%", "rate": 5},
			{"code": "ca-on", "class": "default", "title": "HST 8%", "rate": 8},
			{"code": "eco", "class": "default", "title": "Eco fee", "rate": 0.25, "isPercentage": false},
		} {
			createTax(t, srv, b)
		}
		gross := createProduct(t, srv, "GROSS", nil) // taxCode default, isNetPrice false
		net := createProduct(t, srv, "NET", map[string]any{"isNetPrice": true})
		two := createProduct(t, srv, "TWO", map[string]any{"taxCode": "ca-on"})
		twoNet := createProduct(t, srv, "TWONET", map[string]any{"taxCode": "ca-on", "isNetPrice": true})
		books := createProduct(t, srv, "BOOKS", map[string]any{"taxCode": "books"})
		eco := createProduct(t, srv, "ECO", map[string]any{"taxCode": "eco", "isNetPrice": true})

		body := map[string]any{"items": []map[string]any{
			{"id": "e1", "productId": gross, "quantity": 2, "price": 242},
			{"id": "e2", "productId": net, "price": 577.65},
			{"id": "e3", "productId": two, "price": 113},
			{"id": "e4", "productId": twoNet, "quantity": 1, "price": 100},
			{"id": "e5", "productId": books, "price": 9.99},
			{"id": "e6", "productId": eco, "quantity": 3, "price": 30},
		}}
		want := `{"id":"cart-1","items":[` +
			`{"id":"e1","productId":"` + gross + `","quantity":2,"price":242,"taxes":[{"beforeTax":200,"tax":42,"taxDetail":"IVA 21%"}]},` +
			`{"id":"e2","productId":"` + net + `","quantity":1,"price":577.65,"taxes":[{"beforeTax":577.65,"tax":121.31,"taxDetail":"IVA 21%"}]},` +
			`{"id":"e3","productId":"` + two + `","quantity":1,"price":113,"taxes":[{"beforeTax":100,"tax":5,"taxDetail":"GST 5%"},{"beforeTax":100,"tax":8,"taxDetail":"HST 8%"}]},` +
			`{"id":"e4","productId":"` + twoNet + `","quantity":1,"price":100,"taxes":[{"beforeTax":100,"tax":5,"taxDetail":"GST 5%"},{"beforeTax":100,"tax":8,"taxDetail":"HST 8%"}]},` +
			`{"id":"e5","productId":"` + books + `","quantity":1,"price":9.99,"taxes":[{"beforeTax":9.99,"tax":0,"taxDetail":"no tax for code books"}]},` +
			`{"id":"e6","productId":"` + eco + `","quantity":3,"price":30,"taxes":[{"beforeTax":30,"tax":0.75,"taxDetail":"Eco fee"}]}]}`
		for _, path := range []string{
			"/catalog/v1/tax.cartTaxes", "/tax/v1/tax.cartTaxes",
			"/services/catalog/v1/tax.cartTaxes", "/services/tax/v1/tax.cartTaxes",
		} {
			for _, method := range []string{"POST", "GET"} {
				t.Run(method+" "+path, func(t *testing.T) {
					r := srv.Do(t, method, path+"?cartId=cart-1", srv.API, body).Must(t)
					var got, exp any
					if err := json.Unmarshal(r.Body["cart"], &got); err != nil {
						t.Fatalf("no cart: %s", r.Raw)
					}
					if err := json.Unmarshal([]byte(want), &exp); err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(got) != fmt.Sprint(exp) {
						t.Errorf("got  %s\nwant %s", r.Body["cart"], want)
					}
				})
			}
		}

		t.Run("currency", func(t *testing.T) {
			r := srv.Post(t, "/tax/v1/tax.cartTaxes", srv.API, map[string]any{"cartId": "c", "currency": "JPY",
				"items": []map[string]any{{"id": "e", "productId": gross, "price": 1000}}}).Must(t)
			if want := `{"id":"c","items":[{"id":"e","productId":"` + gross + `","quantity":1,"price":1000,"taxes":[{"beforeTax":826,"tax":174,"taxDetail":"IVA 21%"}]}]}`; string(r.Body["cart"]) != want {
				t.Errorf("got  %s\nwant %s", r.Body["cart"], want)
			}
		})

		t.Run("taxes follow tax changes", func(t *testing.T) {
			var list []apiTax
			srv.Get(t, "/tax/v1/tax.list?code=eco", srv.API).Must(t).Decode(t, "data", &list)
			srv.Post(t, "/tax/v1/tax.update?id="+list[0].ID, srv.Admin, map[string]any{"rate": 1}).Must(t)
			req := map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": eco, "quantity": 2, "price": 10}}}
			r := srv.Post(t, "/tax/v1/tax.cartTaxes", srv.API, req).Must(t)
			if !strings.Contains(string(r.Body["cart"]), `"tax":2,"taxDetail":"Eco fee"`) {
				t.Errorf("after update: got %s, want the eco tax 1 x 2", r.Body["cart"])
			}
			srv.Post(t, "/tax/v1/tax.remove?id="+list[0].ID, srv.Admin, nil).Must(t)
			r = srv.Post(t, "/tax/v1/tax.cartTaxes", srv.API, req).Must(t)
			if !strings.Contains(string(r.Body["cart"]), `"tax":0,"taxDetail":"no tax for code eco"`) {
				t.Errorf("after remove: got %s, want no tax for code eco", r.Body["cart"])
			}
		})

		errs := []struct {
			name   string
			body   any
			status int
			code   string
			data   string // product_not_found data
			field  string // a validation problem names it
		}{
			{"unknown product", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1}, {"id": "f", "productId": "nope", "price": 1}}},
				404, "product_not_found", `"nope"`, ""},
			{"missing cartId", map[string]any{"items": []map[string]any{{"id": "e", "productId": gross, "price": 1}}}, 400, "validation_error", "", "cartId"},
			{"missing items", map[string]any{"cartId": "c"}, 400, "validation_error", "", "items"},
			{"missing price", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross}}}, 400, "validation_error", "", "items[0].price"},
			{"price not a number", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": "1"}}}, 400, "validation_error", "", "items[0].price"},
			{"price with 3 decimals in USD", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1.005}}}, 400, "validation_error", "", "items[0].price"},
			{"quantity not an integer", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1, "quantity": 1.5}}}, 400, "validation_error", "", "items[0].quantity"},
			{"negative quantity", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1, "quantity": -1}}}, 400, "validation_error", "", "items[0].quantity"},
			{"unknown item field", map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1, "unitPrice": 1}}}, 400, "validation_error", "", "items[0].unitPrice"},
			{"unknown currency", map[string]any{"cartId": "c", "currency": "EURO", "items": []map[string]any{{"id": "e", "productId": gross, "price": 1}}}, 400, "validation_error", "", "currency"},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Post(t, "/catalog/v1/tax.cartTaxes", srv.API, tc.body).Expect(t, tc.status, tc.code)
				if tc.data != "" && string(r.Data) != tc.data {
					t.Errorf("data: got %s, want %s", r.Data, tc.data)
				}
				if tc.field != "" {
					if list := problems(t, r); !hasProblem(list, tc.field) {
						t.Errorf("problems %q do not name %s", list, tc.field)
					}
				}
			})
		}
		srv.Post(t, "/catalog/v1/tax.cartTaxes", "", body).Expect(t, 401, "invalid_token")
	})
}

// channelEvents returns the events of a channel, oldest first.
func channelEvents(t *testing.T, srv *apitest.Server, channel string) []event.Event {
	t.Helper()
	var evs []event.Event
	srv.Get(t, "/event/v1/event.list?limit=1000&channel="+channel, srv.Admin).Must(t).Decode(t, "data", &evs)
	return evs
}

// sameJSON compares JSON texts whatever their key order and spacing.
func sameJSON(t *testing.T, got json.RawMessage, want any) bool {
	t.Helper()
	var g, w any
	wb, _ := json.Marshal(want)
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("bad JSON %s: %v", got, err)
	}
	json.Unmarshal(wb, &w)
	return reflect.DeepEqual(g, w)
}

// TestTaxEvents: tax.create, tax.update and tax.remove each emit their
// event on TAXES in their transaction (issue 9 defect 14), with the
// payloads of CONVENTIONS.md; a rejected change emits nothing.
func TestTaxEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		const createBody = `{"code": "vat", "class": "default", "title": "VAT", "rate": 21.0}`
		var created, updated, removed apiTax
		srv.Post(t, "/tax/v1/tax.create", srv.Admin, createBody).Must(t).Decode(t, "tax", &created)
		srv.Post(t, "/tax/v1/tax.update", srv.Admin, map[string]any{"id": created.ID, "rate": 10, "description": "reduced"}).Must(t).Decode(t, "tax", &updated)
		srv.Post(t, "/tax/v1/tax.update", srv.Admin, map[string]any{"id": created.ID, "rate": -1}).Expect(t, 400, "validation_error")
		srv.Post(t, "/tax/v1/tax.create", srv.Admin, map[string]any{"code": "x", "class": "nope", "title": "X", "rate": 1}).Expect(t, 400, "validation_error")
		srv.Post(t, "/tax/v1/tax.remove", srv.Admin, map[string]any{"id": "nope"}).Expect(t, 404, "tax_not_found")
		srv.Post(t, "/tax/v1/tax.remove", srv.Admin, map[string]any{"id": created.ID}).Must(t).Decode(t, "tax", &removed)

		evs := channelEvents(t, srv, event.Taxes)
		var types []string
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if want := []string{event.Create, event.Update, event.Remove}; !slices.Equal(types, want) {
			t.Fatalf("got events %q, want %q", types, want)
		}
		var create, update, remove map[string]json.RawMessage
		for e, p := range map[int]*map[string]json.RawMessage{0: &create, 1: &update, 2: &remove} {
			if err := json.Unmarshal(evs[e].Payload, p); err != nil {
				t.Fatal(err)
			}
		}
		if !sameJSON(t, create["new"], created) || !sameJSON(t, create["data"], json.RawMessage(createBody)) || len(create) != 2 {
			t.Errorf("CREATE payload: got %s", evs[0].Payload)
		}
		if !strings.Contains(string(create["data"]), `"rate":21.0`) {
			t.Errorf("CREATE data: got %s, want the rate as given (21.0)", create["data"])
		}
		if !sameJSON(t, update["old"], created) || !sameJSON(t, update["new"], updated) || len(update) != 3 ||
			!sameJSON(t, update["data"], map[string]any{"id": created.ID, "rate": 10, "description": "reduced"}) {
			t.Errorf("UPDATE payload: got %s", evs[1].Payload)
		}
		if !sameJSON(t, remove["id"], created.ID) || !sameJSON(t, remove["old"], removed) || len(remove) != 2 || removed != updated {
			t.Errorf("REMOVE payload: got %s, want {id, old: %+v}", evs[2].Payload, updated)
		}
	})
}

// TestTaxCodeNFC: a code typed precomposed or decomposed is one code
// (issue 9 defect 7): stored in NFC, matched by the list filter and by
// products naming it either way.
func TestTaxCodeNFC(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		tx := createTax(t, srv, map[string]any{"code": nfd, "class": "default", "title": "Cafe 10%", "rate": 10})
		if tx.Code != nfc {
			t.Errorf("stored code %q, want the NFC %q", tx.Code, nfc)
		}
		for _, code := range []string{nfc, nfd} {
			if got := titles(listTaxes(t, srv, "code="+url.QueryEscape(code))); !slices.Equal(got, []string{"Cafe 10%"}) {
				t.Errorf("code=%q: got %q", code, got)
			}
		}
		p := createProduct(t, srv, "CAFE", map[string]any{"taxCode": nfd, "isNetPrice": true})
		r := srv.Post(t, "/tax/v1/tax.cartTaxes", srv.API, map[string]any{"cartId": "c", "items": []map[string]any{{"id": "e", "productId": p, "price": 100}}}).Must(t)
		if !strings.Contains(string(r.Body["cart"]), `"tax":10,"taxDetail":"Cafe 10%"`) {
			t.Errorf("got %s, want the tax of the code", r.Body["cart"])
		}
	})
}
