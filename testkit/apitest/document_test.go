package apitest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// jsonDoc is a decoded OpenAPI document.
type jsonDoc map[string]any

func getDoc(t *testing.T, s *apitest.Server, path string) ([]byte, jsonDoc) {
	t.Helper()
	res, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, res.StatusCode)
	}
	var d jsonDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return raw, d
}

// components are the document's named schemas.
func (d jsonDoc) components() map[string]any {
	return d["components"].(map[string]any)["schemas"].(map[string]any)
}

// resolve follows a $ref to its component; it returns the component's name
// ("" for an inline schema) and the schema.
func (d jsonDoc) resolve(s map[string]any) (string, map[string]any) {
	r, ok := s["$ref"].(string)
	if !ok {
		return "", s
	}
	name := strings.TrimPrefix(r, "#/components/schemas/")
	c, _ := d.components()[name].(map[string]any)
	return name, c
}

// operations calls fn with every operation object of the document's
// paths: path, method and the operation.
func (d jsonDoc) operations(fn func(path, method string, op map[string]any)) {
	paths := d["paths"].(map[string]any)
	names := make([]string, 0, len(paths))
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		for _, m := range []string{"get", "post"} {
			if op, ok := paths[p].(map[string]any)[m].(map[string]any); ok {
				fn(p, m, op)
			}
		}
	}
}

// eachSchema calls fn with every schema object of the document (its
// components, and those of parameters, bodies, answers and headers) and
// of the schemas inside them, each with a path naming where it is.
func (d jsonDoc) eachSchema(fn func(where string, s map[string]any)) {
	var visit func(where string, s map[string]any)
	visit = func(where string, s map[string]any) {
		fn(where, s)
		for _, k := range []string{"items", "not", "additionalProperties"} {
			if sub, ok := s[k].(map[string]any); ok {
				visit(where+"."+k, sub)
			}
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			for i, a := range asList(s[k]) {
				if sub, ok := a.(map[string]any); ok {
					visit(fmt.Sprintf("%s.%s[%d]", where, k, i), sub)
				}
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for name, p := range props {
				if sub, ok := p.(map[string]any); ok {
					visit(where+".properties."+name, sub)
				}
			}
		}
	}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(map[string]any); ok && k == "schema" {
					visit(where+".schema", s)
					continue
				}
				walk(where+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", where, i), e)
			}
		}
	}
	walk("paths", d["paths"])
	for name, s := range d.components() {
		if sm, ok := s.(map[string]any); ok {
			visit(name, sm)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestDocument30 checks /openapi-3.0.json, the OpenAPI 3.0.3 rendering
// of /openapi.json for generators that read 3.0 only (oapi-codegen): a
// valid 3.0.3 document (libopenapi-validator) without any keyword 3.0
// lacks (type lists, the null type, const, siblings of $ref), with the
// same operations as the 3.1 document; and real answers (carts in both
// forms, a product list) validate against it.
func TestDocument30(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	_, d31 := getDoc(t, s, "/openapi.json")
	raw, d30 := getDoc(t, s, "/openapi-3.0.json")
	if d30["openapi"] != "3.0.3" {
		t.Fatalf("openapi %v, want 3.0.3", d30["openapi"])
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetSpecInfo().Version; v != "3.0.3" {
		t.Fatalf("libopenapi reads version %q", v)
	}
	// No schema cache: the few answers below compile only their schemas
	// (warming the cache for the whole document takes seconds).
	v, errs := validator.NewValidator(doc, config.WithSchemaCache(nil))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, errs := v.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("%s: %s", e.Message, e.Reason)
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("  %s at %s", f.Reason, f.FieldPath)
			}
		}
		t.FailNow()
	}
	n := 0
	d30.eachSchema(func(where string, sch map[string]any) {
		n++
		if _, list := sch["type"].([]any); list {
			t.Errorf("%s: a type list: %v", where, sch["type"])
		}
		if sch["type"] == "null" {
			t.Errorf("%s: the null type", where)
		}
		if _, ok := sch["const"]; ok {
			t.Errorf("%s: const", where)
		}
		if _, ok := sch["$ref"]; ok && len(sch) > 1 {
			t.Errorf("%s: $ref with siblings: %v", where, sch)
		}
	})
	if n < 1000 {
		t.Fatalf("only %d schemas visited", n)
	}
	ids := func(d jsonDoc) []string {
		var out []string
		d.operations(func(path, method string, op map[string]any) {
			out = append(out, fmt.Sprintf("%s %s %v", method, path, op["operationId"]))
		})
		return out
	}
	if a, b := ids(d31), ids(d30); strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) < 100 {
		t.Errorf("operations differ:\n3.1: %v\n3.0: %v", a, b)
	}

	// Real answers validate against the 3.0 rendering too.
	check := func(method, path string, body any) map[string]json.RawMessage {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, s.URL+path, rd)
		req.Header.Set("Authorization", "Bearer "+s.Admin)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(got))
		if body != nil {
			b, _ := json.Marshal(body)
			req.Body = io.NopCloser(bytes.NewReader(b))
		}
		if ok, errs := v.ValidateHttpRequestResponse(req, res); !ok {
			for _, e := range errs {
				t.Errorf("%s %s against /openapi-3.0.json: %s: %s %v", method, path, e.Message, e.Reason, e.SchemaValidationErrors)
			}
		}
		var out map[string]json.RawMessage
		json.Unmarshal(got, &out)
		if string(out["ok"]) != "true" {
			t.Fatalf("%s %s: %s", method, path, got)
		}
		return out
	}
	cat := check("POST", "/catalog/v1/category.create", map[string]any{"title": "Fridges", "slug": "fridges"})
	var c struct{ ID string }
	json.Unmarshal(cat["category"], &c)
	prod := check("POST", "/catalog/v1/product.create", map[string]any{"sku": "d30", "status": "ONLINE", "title": "Fridge",
		"categories": []string{c.ID}, "stockStatus": 1, "prices": []any{map[string]any{"amount": 9.99, "currency": "USD"}}})
	var p struct{ ID string }
	json.Unmarshal(prod["product"], &p)
	check("GET", "/catalog/v1/product.list?sku=d30", nil)
	created := check("POST", "/cart/v1/cart.create", map[string]any{"currency": "USD"})
	var cart struct{ ID string }
	json.Unmarshal(created["cart"], &cart)
	check("POST", "/cart/v1/cart.addToCart", map[string]any{"cartId": cart.ID,
		"items": []any{map[string]any{"productId": p.ID, "quantity": 2, "warehouseId": "w"}}})
	check("POST", "/cart/v1/cart.setShippingAddress", map[string]any{"cartId": cart.ID, "shippingAddress": map[string]any{
		"firstName": "Ana", "address_1": "1 Beach Rd", "postCode": "96815", "city": "Honolulu", "state": "HI", "country": "US"}})
	check("GET", "/cart/v1/cart.calculateCart?cartId="+cart.ID, nil)
}

// TestCartAnswersDocumented: every operation answering a cart names one
// of the two documented cart schemas (docs/api.md section 10: the
// addToCart form for cart.addToCart and cart.removeFromCart, the
// calculateCart form for the others), whose items are typed entries and
// whose every amount has one form (no free-form schema but address_2, no
// choice between a number and a money object anywhere inside).
func TestCartAnswersDocumented(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	_, d := getDoc(t, s, "/openapi.json")
	n := 0
	d.operations(func(path, method string, op map[string]any) {
		if !strings.HasPrefix(path, "/cart/v1/cart.") {
			return
		}
		ok := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		var cartSchema map[string]any
		for _, part := range asList(ok["allOf"]) {
			_, res := d.resolve(part.(map[string]any))
			if props, _ := res["properties"].(map[string]any); props != nil {
				if c, has := props["cart"].(map[string]any); has {
					cartSchema = c
				}
			}
		}
		if cartSchema == nil {
			t.Errorf("%s %s: no cart in the answer's schema", method, path)
			return
		}
		n++
		want := "cart.ViewCalculateForm"
		if strings.HasSuffix(path, "/cart.addToCart") || strings.HasSuffix(path, "/cart.removeFromCart") {
			want = "cart.ViewAddForm"
		}
		name, view := d.resolve(cartSchema)
		if name != want {
			t.Errorf("%s %s: cart is %q, want %s", method, path, name, want)
			return
		}
		items := view["properties"].(map[string]any)["items"].(map[string]any)
		if entry, _ := d.resolve(items["items"].(map[string]any)); entry == "" {
			t.Errorf("%s: items are not typed entries: %v", name, items)
		}
		seen := map[string]bool{}
		var check func(where string, sch map[string]any)
		check = func(where string, sch map[string]any) {
			if ref, _ := sch["$ref"].(string); ref != "" {
				n, c := d.resolve(sch)
				if !seen[n] {
					seen[n] = true
					check(n, c)
				}
				return
			}
			// address_2 is any JSON value, as given (the original interface
			// typed it "Array Number"): the one free-form field of a cart.
			if (len(sch) == 0 || (len(sch) == 1 && sch["description"] != nil)) && where != "cart.Address.address_2" {
				t.Errorf("%s: %s is free-form", name, where)
			}
			alts := asList(sch["anyOf"])
			types := map[any]bool{}
			for _, a := range alts {
				am := a.(map[string]any)
				if _, ref := am["$ref"]; ref {
					types["object"] = true
				} else {
					types[am["type"]] = true
				}
			}
			if types["number"] && types["object"] {
				t.Errorf("%s: %s is a number or an object", name, where)
			}
			for _, k := range []string{"anyOf", "allOf", "oneOf"} {
				for i, a := range asList(sch[k]) {
					check(fmt.Sprintf("%s.%s[%d]", where, k, i), a.(map[string]any))
				}
			}
			if sub, ok := sch["items"].(map[string]any); ok {
				check(where+"[]", sub)
			}
			props, _ := sch["properties"].(map[string]any)
			for p, ps := range props {
				check(where+"."+p, ps.(map[string]any))
			}
		}
		check(name, view)
	})
	if n < 11 {
		t.Errorf("only %d operations answer a cart", n)
	}
}

// TestArgumentsDescribed: every argument of every operation has a
// description in /openapi.json: each query parameter and header, and each
// property of a request body, at any depth (inside lists, alternatives and
// the components they refer to). Descriptions come from the doc comments
// of the argument structs' fields (go generate ./rpc), or from the
// document's own text for the endpoints outside the operations.
func TestArgumentsDescribed(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	_, d := getDoc(t, s, "/openapi.json")
	missing := map[string]bool{}
	n := 0
	seen := map[string]bool{}
	var body func(where string, sch map[string]any)
	body = func(where string, sch map[string]any) {
		if name, c := d.resolve(sch); name != "" {
			if !seen[name] {
				seen[name] = true
				body(name, c)
			}
			return
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			for _, a := range asList(sch[k]) {
				body(where, a.(map[string]any))
			}
		}
		if items, ok := sch["items"].(map[string]any); ok {
			body(where+"[]", items)
		}
		props, _ := sch["properties"].(map[string]any)
		for p, ps := range props {
			psm := ps.(map[string]any)
			n++
			if desc, _ := psm["description"].(string); strings.TrimSpace(desc) == "" {
				missing[where+"."+p] = true
			}
			body(where+"."+p, psm)
		}
	}
	d.operations(func(path, method string, op map[string]any) {
		for _, p := range asList(op["parameters"]) {
			pm := p.(map[string]any)
			n++
			if desc, _ := pm["description"].(string); strings.TrimSpace(desc) == "" {
				missing[fmt.Sprintf("%s %s: %s parameter %v", method, path, pm["in"], pm["name"])] = true
			}
		}
		rb, _ := op["requestBody"].(map[string]any)
		content, _ := rb["content"].(map[string]any)
		for _, media := range content {
			if sch, ok := media.(map[string]any)["schema"].(map[string]any); ok {
				body(method+" "+path+" body", sch)
			}
		}
	})
	if n < 500 {
		t.Fatalf("only %d arguments found", n)
	}
	list := make([]string, 0, len(missing))
	for m := range missing {
		list = append(list, m)
	}
	sort.Strings(list)
	for _, m := range list {
		t.Errorf("%s: no description", m)
	}
}
