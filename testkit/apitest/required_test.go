package apitest_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// openAPI is the part of /openapi.json these tests read.
type openAPI struct {
	Paths map[string]struct {
		Get  *apiOperation `json:"get"`
		Post *apiOperation `json:"post"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]apiSchema `json:"schemas"`
	} `json:"components"`
}

type apiOperation struct {
	Security    []map[string][]string `json:"security"`
	Parameters  []apiParam            `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema apiSchema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

type apiParam struct {
	Name     string `json:"name"`
	In       string `json:"in"`
	Required bool   `json:"required"`
}

type apiSchema struct {
	Ref      string      `json:"$ref"`
	Required []string    `json:"required"`
	AnyOf    []apiSchema `json:"anyOf"`
}

func readOpenAPI(t *testing.T, raw []byte) openAPI {
	t.Helper()
	var d openAPI
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// resolve follows a $ref to its component.
func (d openAPI) resolve(s apiSchema) apiSchema {
	for s.Ref != "" {
		s = d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	return s
}

// bodyRequired returns the required properties of a POST operation's body
// and, for a body of alternatives (one of several names required), the
// names some alternative requires.
func (d openAPI) bodyRequired(path string) (all, some []string) {
	op := d.Paths[path].Post
	if op == nil || op.RequestBody == nil {
		return nil, nil
	}
	body := op.RequestBody
	s := d.resolve(body.Content["application/json"].Schema)
	for _, alt := range s.AnyOf {
		some = append(some, d.resolve(alt).Required...)
	}
	return s.Required, some
}

// missingRequired matches a problem reported for an absent top-level
// argument: "cartId: required", "channels: required: at least one".
var missingRequired = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*): required\b`)

// TestRequiredArgumentsDocumented is the drift check of required
// arguments: every registered operation is called with no arguments (POST
// {}, and a bare GET for reads, with a token of the scope the document
// says it needs), and every top-level argument it reports as required
// must be required in /openapi.json (the POST body's required list, or
// one of the names of a body of alternatives; the GET's required query
// parameters). The other direction needs no code here: a request that the
// document rejects but the service accepts fails any test (the test
// servers' middleware), this one included.
func TestRequiredArgumentsDocumented(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	raw, _ := s.Document(t)
	d := readOpenAPI(t, raw)
	var paths []string
	streams := s.App.RPC().Streams() // their answers are files, not the envelope
	for p := range s.App.RPC().Operations() {
		if !streams[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	reported := 0
	for _, path := range paths {
		op := d.Paths[path].Post
		if op == nil {
			t.Errorf("%s: registered, no POST in /openapi.json", path)
			continue
		}
		token := s.API
		for _, sec := range op.Security {
			if slices.Contains(sec["bearerAuth"], commerce.ScopeAdmin) {
				token = s.Admin
			}
		}
		all, some := d.bodyRequired(path)
		for _, name := range requiredReported(t, s.Post(t, path, token, map[string]any{})) {
			reported++
			if !slices.Contains(all, name) && !slices.Contains(some, name) {
				t.Errorf("POST %s {}: the service reports %q as required; /openapi.json's body does not require it (required: %v)", path, name, all)
			}
		}
		get := d.Paths[path].Get
		if get == nil {
			continue
		}
		var params []string
		for _, p := range get.Parameters {
			if p.In == "query" && p.Required {
				params = append(params, p.Name)
			}
		}
		for _, name := range requiredReported(t, s.Do(t, http.MethodGet, path, token, nil)) {
			if !slices.Contains(params, name) && !slices.Contains(some, name) {
				t.Errorf("GET %s: the service reports %q as required; /openapi.json's query parameters do not require it (required: %v)", path, name, params)
			}
		}
	}
	if reported < 40 {
		t.Fatalf("only %d required arguments reported by the operations: the check checks little", reported)
	}
}

// requiredReported returns the top-level arguments that a validation_error
// answer reports as missing.
func requiredReported(t *testing.T, r apitest.Response) []string {
	t.Helper()
	if r.OK || r.Error != commerce.EValidation {
		return nil
	}
	var problems []string
	if err := json.Unmarshal(r.Data, &problems); err != nil {
		t.Fatalf("validation_error data %s: %v", r.Data, err)
	}
	var out []string
	for _, p := range problems {
		if m := missingRequired.FindStringSubmatch(p); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestDocumentRequired: the document states the required arguments of the
// operations, those of embedded structs included (product.create's are
// fields of catalog.ProductFields), in the POST body and as required query
// parameters of a GET, and a required argument is not nullable (null is
// absent).
func TestDocumentRequired(t *testing.T) {
	s := apitest.New(t, testdb.SQLite(t))
	raw, _ := s.Document(t)
	d := readOpenAPI(t, raw)
	for path, want := range map[string][]string{
		"/catalog/v1/product.create":             {"categories", "sku", "status", "stockStatus", "title"},
		"/catalog/v1/category.create":            {"slug", "title"},
		"/tax/v1/tax.create":                     {"class", "code", "rate", "title"},
		"/cart/v1/shipping.create":               {"rates", "title"},
		"/cart/v1/cart.applyCoupon":              {"cartId", "code"},
		"/cart/v1/cart.removeCoupon":             {"cartId", "code"},
		"/cart/v1/cart.addToCart":                {"cartId", "items"},
		"/cart/v1/cart.checkout":                 {"cartId", "paymentData", "paymentId"},
		"/promotion/v1/promotion.cartPromotions": {"cartId", "items"},
		"/promotion/v2/promotion.cartPromotions": {"cartId", "items"},
	} {
		if all, _ := d.bodyRequired(path); !slices.Equal(all, want) {
			t.Errorf("%s: body requires %v, want %v", path, all, want)
		}
	}
	item := d.Components.Schemas["cart.AddItemInput"]
	if !slices.Equal(item.Required, []string{"productId", "quantity", "warehouseId"}) {
		t.Errorf("cart.AddItemInput requires %v", item.Required)
	}
	var required []string
	for _, p := range d.Paths["/cart/v1/cart.calculateCart"].Get.Parameters {
		if p.Required {
			required = append(required, p.Name)
		}
	}
	if !slices.Equal(required, []string{"cartId"}) {
		t.Errorf("GET cart.calculateCart: required parameters %v, want [cartId]", required)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc["components"].(map[string]any)["schemas"].(map[string]any)["catalog.CreateProductInput"].(map[string]any)["properties"].(map[string]any)
	if typ := props["sku"].(map[string]any)["type"]; typ != "string" {
		t.Errorf("product.create sku: type %v, want string (not nullable: required)", typ)
	}
}
