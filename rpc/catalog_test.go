package rpc_test

import (
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// catalogAPI wraps a test server with the catalog's calls.
type catalogAPI struct {
	*apitest.Server
}

func newCatalogAPI(t *testing.T, db *sqldb.DB) catalogAPI {
	return catalogAPI{apitest.New(t, db)}
}

func (c catalogAPI) post(t *testing.T, op string, body any) apitest.Response {
	t.Helper()
	return c.Post(t, "/catalog/v1/"+op, c.Admin, body)
}

func (c catalogAPI) get(t *testing.T, op string, query url.Values) apitest.Response {
	t.Helper()
	return c.Get(t, "/catalog/v1/"+op+"?"+query.Encode(), c.API)
}

// category creates a category and returns its id.
func (c catalogAPI) category(t *testing.T, body map[string]any) string {
	t.Helper()
	var cat struct{ ID string }
	c.post(t, "category.create", body).Must(t).Decode(t, "category", &cat)
	return cat.ID
}

// product creates a product and returns it as a JSON object.
func (c catalogAPI) product(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	var p map[string]any
	c.post(t, "product.create", body).Must(t).Decode(t, "product", &p)
	return p
}

// productBody returns a valid product.create body in category cat.
func productBody(sku, cat string, extra ...any) map[string]any {
	b := map[string]any{"sku": sku, "title": "Product " + sku, "status": "ONLINE", "stockStatus": 0, "categories": []string{cat}}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i].(string)] = extra[i+1]
	}
	return b
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got any, want any) {
	t.Helper()
	norm := func(v any) any {
		var b []byte
		switch x := v.(type) {
		case json.RawMessage:
			b = x
		case []byte:
			b = x
		case string: // raw JSON when it is JSON, else a string value
			if json.Valid([]byte(x)) {
				b = []byte(x)
			} else {
				b, _ = json.Marshal(x)
			}
		default:
			var err error
			if b, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("not JSON: %s", b)
		}
		return out
	}
	g, w := norm(got), norm(want)
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		t.Fatalf("got %s, want %s", gb, wb)
	}
}

// listIDs returns the ids of a list response's data.
func listIDs(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var data []struct{ ID string }
	r.Decode(t, "data", &data)
	ids := make([]string, len(data))
	for i, d := range data {
		ids[i] = d.ID
	}
	return ids
}

func TestCatalogCategoryCreate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		parent := api.category(t, map[string]any{"title": "Appliances", "slug": "appliances"})

		t.Run("created under ROOT by default", func(t *testing.T) {
			var c map[string]any
			api.post(t, "category.create", map[string]any{"title": "Sports", "slug": "sports", "description": "All sports"}).Must(t).Decode(t, "category", &c)
			id := c["id"].(string)
			sameJSON(t, c, map[string]any{"id": id, "title": "Sports", "description": "All sports", "slug": "sports", "parent": "ROOT",
				"classifications": []any{}, "level": 2, "path": "ROOT." + id})
		})
		t.Run("child level and path", func(t *testing.T) {
			var c map[string]any
			api.post(t, "category.create", map[string]any{"title": "Fridges", "slug": "fridges", "parent": parent,
				"classifications": []any{map[string]any{"id": "energy", "description": "Energy", "type": "STRING", "mandatory": true}}}).Must(t).Decode(t, "category", &c)
			id := c["id"].(string)
			sameJSON(t, c, map[string]any{"id": id, "title": "Fridges", "description": nil, "slug": "fridges", "parent": parent,
				"level": 3, "path": "ROOT." + parent + "." + id,
				"classifications": []any{map[string]any{"id": "energy", "description": "Energy", "type": "STRING", "mandatory": true}}})
		})
		t.Run("same slug under another parent", func(t *testing.T) {
			api.category(t, map[string]any{"title": "Appliances 2", "slug": "appliances", "parent": parent})
		})

		errs := []struct {
			name   string
			body   any
			status int
			code   string
			data   any // nil: not checked
		}{
			{"missing title", map[string]any{"slug": "x"}, 400, commerce.EValidation, nil},
			{"missing slug", map[string]any{"title": "X"}, 400, commerce.EValidation, nil},
			{"slug with a space", map[string]any{"title": "X", "slug": "a b"}, 400, commerce.EValidation, nil},
			{"id given", map[string]any{"id": "mine", "title": "X", "slug": "x"}, 400, commerce.EValidation, []string{"id: unknown field"}},
			{"classification without type", map[string]any{"title": "X", "slug": "x",
				"classifications": []any{map[string]any{"id": "a", "description": "A", "mandatory": true}}}, 400, commerce.EValidation, nil},
			{"classification with a bad type", map[string]any{"title": "X", "slug": "x",
				"classifications": []any{map[string]any{"id": "a", "description": "A", "type": "DATE", "mandatory": true}}}, 400, commerce.EValidation, nil},
			{"classification without mandatory", map[string]any{"title": "X", "slug": "x",
				"classifications": []any{map[string]any{"id": "a", "description": "A", "type": "STRING"}}}, 400, commerce.EValidation, nil},
			{"duplicate classification", map[string]any{"title": "X", "slug": "x",
				"classifications": []any{
					map[string]any{"id": "a", "description": "A", "type": "STRING", "mandatory": true},
					map[string]any{"id": "a", "description": "A", "type": "NUMBER", "mandatory": true}}}, 400, commerce.EValidation, nil},
			{"unknown classification field", map[string]any{"title": "X", "slug": "x",
				"classifications": []any{map[string]any{"id": "a", "description": "A", "type": "STRING", "mandatory": true, "unit": "cm"}}}, 400, commerce.EValidation, nil},
			{"unknown parent", map[string]any{"title": "X", "slug": "x", "parent": "nope"}, 404, commerce.EParentCategoryNotFound, "nope"},
			{"duplicate slug", map[string]any{"title": "Other", "slug": "appliances"}, 409, commerce.EDuplicateKey,
				map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": "appliances"}},
			{"duplicate slug under a parent", map[string]any{"title": "Other", "slug": "fridges", "parent": parent}, 409, commerce.EDuplicateKey,
				map[string]any{"index": "parent_slug", "parent": parent, "slug": "fridges"}},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				r := api.post(t, "category.create", tc.body).Expect(t, tc.status, tc.code)
				if tc.data != nil {
					sameJSON(t, r.Data, tc.data)
				}
			})
		}
		t.Run("api token is forbidden", func(t *testing.T) {
			api.Post(t, "/catalog/v1/category.create", api.API, map[string]any{"title": "X", "slug": "x"}).Expect(t, 403, commerce.EForbidden)
		})
		t.Run("services prefix", func(t *testing.T) {
			api.Post(t, "/services/catalog/v1/category.create", api.Admin, map[string]any{"title": "Y", "slug": "y"}).Must(t)
		})
	})
}

func TestCatalogCategoryInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		a := api.category(t, map[string]any{"title": "A", "slug": "a"})
		a1 := api.category(t, map[string]any{"title": "A1", "slug": "a1", "parent": a})
		a2 := api.category(t, map[string]any{"title": "A2", "slug": "a2", "parent": a})
		a11 := api.category(t, map[string]any{"title": "A11", "slug": "a11", "parent": a1})

		// tree renders a category's children as "id(children...)".
		var tree func(c map[string]any) string
		tree = func(c map[string]any) string {
			s := c["id"].(string)
			kids, ok := c["children"]
			if !ok {
				return s
			}
			var parts []string
			for _, k := range kids.([]any) {
				parts = append(parts, tree(k.(map[string]any)))
			}
			return s + "(" + strings.Join(parts, " ") + ")"
		}
		tests := []struct {
			name  string
			query url.Values
			want  string
		}{
			{"plain", q("id", a), a},
			{"with children", q("id", a, "withChildren", "true"), a + "(" + a1 + " " + a2 + ")"},
			{"recursive", q("id", a, "withChildren", "true", "recursive", "true"), a + "(" + a1 + "(" + a11 + "()) " + a2 + "())"},
			{"recursive alone implies children", q("id", a, "recursive", "true"), a + "(" + a1 + "(" + a11 + "()) " + a2 + "())"},
			{"leaf with children", q("id", a11, "withChildren", "true"), a11 + "()"},
			{"ROOT", q("id", "ROOT", "withChildren", "true"), "ROOT(" + a + ")"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var c map[string]any
				api.get(t, "category.info", tc.query).Must(t).Decode(t, "category", &c)
				if got := tree(c); got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
			})
		}
		t.Run("ROOT", func(t *testing.T) {
			var c map[string]any
			api.get(t, "category.info", q("id", "ROOT")).Must(t).Decode(t, "category", &c)
			if c["level"] != 1.0 || c["path"] != "ROOT" {
				t.Errorf("got level %v path %v, want 1 ROOT", c["level"], c["path"])
			}
		})
		t.Run("POST works too", func(t *testing.T) {
			api.Post(t, "/catalog/v1/category.info", api.API, map[string]any{"id": a}).Must(t)
		})
		t.Run("not found", func(t *testing.T) {
			r := api.get(t, "category.info", q("id", "nope")).Expect(t, 404, commerce.ECategoryNotFound)
			sameJSON(t, r.Data, `"nope"`)
		})
		t.Run("no id", func(t *testing.T) {
			api.get(t, "category.info", q()).Expect(t, 400, commerce.EValidation)
		})
	})
}

func TestCatalogCategoryList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		ap := api.category(t, map[string]any{"title": "Electrodomésticos", "slug": "electro", "description": "Home appliances"})
		fr := api.category(t, map[string]any{"title": "Frigoríficos combi", "slug": "combi", "parent": ap})
		fz := api.category(t, map[string]any{"title": "Congeladores", "slug": "freezers", "parent": ap, "description": "Cold"})
		sp := api.category(t, map[string]any{"title": "Deportes", "slug": "sports"})

		tests := []struct {
			name  string
			query url.Values
			want  []string
		}{
			{"all in creation order", q(), []string{"ROOT", ap, fr, fz, sp}},
			{"ids", q("id", sp+","+fr), []string{fr, sp}},
			{"title regex ignores case", q("title", "^frigo"), []string{fr}},
			{"title anchored exact", q("title", "^Deportes$"), []string{sp}},
			{"description regex", q("description", "cold|HOME"), []string{ap, fz}},
			{"slugs", q("slug", "combi,sports"), []string{fr, sp}},
			{"parent", q("parent", ap), []string{fr, fz}},
			{"path prefix", q("path", "ROOT."+ap), []string{ap, fr, fz}},
			{"path prefix of the children only", q("path", "ROOT."+ap+`\.`), []string{fr, fz}},
			{"path matches only at the start", q("path", ap), nil},
			{"limit", q("limit", "2"), []string{"ROOT", ap}},
			{"skip", q("limit", "2", "skip", "3"), []string{fz, sp}},
			{"skip past the end", q("skip", "10"), nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.get(t, "category.list", tc.query).Must(t)
				if got := listIDs(t, r); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run("page", func(t *testing.T) {
			r := api.get(t, "category.list", q("limit", "2", "skip", "1")).Must(t)
			sameJSON(t, r.Body["page"], `{"limit": 2, "skip": 1}`)
			r = api.get(t, "category.list", q()).Must(t)
			sameJSON(t, r.Body["page"], `{"limit": 10, "skip": 0}`)
		})
		t.Run("fields", func(t *testing.T) {
			r := api.get(t, "category.list", q("id", fr, "fields", "slug,level,nonsense")).Must(t)
			sameJSON(t, r.Body["data"], []any{map[string]any{"id": fr, "slug": "combi", "level": 3}})
		})
		t.Run("description null", func(t *testing.T) {
			r := api.get(t, "category.list", q("id", fr, "fields", "description")).Must(t)
			sameJSON(t, r.Body["data"], []any{map[string]any{"id": fr, "description": nil}})
		})
		errs := []struct {
			name  string
			query url.Values
		}{
			{"invalid title regex", q("title", "(")},
			{"invalid path regex", q("path", "[")},
			{"limit 0", q("limit", "0")},
			{"limit 1001", q("limit", "1001")},
			{"negative skip", q("skip", "-1")},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				api.get(t, "category.list", tc.query).Expect(t, 400, commerce.EValidation)
			})
		}
	})
}

func TestCatalogCategoryUpdate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		a := api.category(t, map[string]any{"title": "A", "slug": "a"})
		b := api.category(t, map[string]any{"title": "B", "slug": "b"})
		a1 := api.category(t, map[string]any{"title": "A1", "slug": "a1", "parent": a})
		a11 := api.category(t, map[string]any{"title": "A11", "slug": "a11", "parent": a1})
		api.category(t, map[string]any{"title": "B-a1", "slug": "a1", "parent": b})

		t.Run("partial update", func(t *testing.T) {
			var c map[string]any
			api.post(t, "category.update", map[string]any{"id": a, "title": "A!", "description": "desc"}).Must(t).Decode(t, "category", &c)
			sameJSON(t, c, map[string]any{"id": a, "title": "A!", "description": "desc", "slug": "a", "parent": "ROOT",
				"classifications": []any{}, "level": 2, "path": "ROOT." + a})
		})
		t.Run("id in the query string", func(t *testing.T) {
			api.Post(t, "/catalog/v1/category.update?id="+a, api.Admin, map[string]any{"title": "A"}).Must(t)
		})

		errs := []struct {
			name   string
			body   map[string]any
			status int
			code   string
			data   any
		}{
			{"unknown category", map[string]any{"id": "nope", "title": "X"}, 404, commerce.ECategoryNotFound, "nope"},
			{"unknown parent", map[string]any{"id": a1, "parent": "nope"}, 404, commerce.EParentCategoryNotFound, "nope"},
			{"under itself", map[string]any{"id": a1, "parent": a1}, 400, commerce.EValidation, nil},
			{"under its own subtree", map[string]any{"id": a, "parent": a11}, 400, commerce.EValidation, nil},
			{"duplicate slug among new siblings", map[string]any{"id": a1, "parent": b}, 409, commerce.EDuplicateKey,
				map[string]any{"index": "parent_slug", "parent": b, "slug": "a1"}},
			{"duplicate slug by rename", map[string]any{"id": a, "slug": "b"}, 409, commerce.EDuplicateKey,
				map[string]any{"index": "parent_slug", "parent": "ROOT", "slug": "b"}},
			{"blank title", map[string]any{"id": a, "title": " "}, 400, commerce.EValidation, nil},
			{"ROOT cannot move", map[string]any{"id": "ROOT", "parent": a}, 400, commerce.EValidation, nil},
			{"no id", map[string]any{"title": "X"}, 400, commerce.EValidation, nil},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				r := api.post(t, "category.update", tc.body).Expect(t, tc.status, tc.code)
				if tc.data != nil {
					sameJSON(t, r.Data, tc.data)
				}
			})
		}

		t.Run("move a subtree", func(t *testing.T) {
			api.post(t, "category.update", map[string]any{"id": a1, "parent": b, "slug": "moved"}).Must(t)
			want := map[string]struct {
				level int
				path  string
			}{
				a1:  {3, "ROOT." + b + "." + a1},
				a11: {4, "ROOT." + b + "." + a1 + "." + a11},
				a:   {2, "ROOT." + a},
			}
			for id, w := range want {
				var c struct {
					Level  int
					Path   string
					Parent string
				}
				api.get(t, "category.info", q("id", id)).Must(t).Decode(t, "category", &c)
				if c.Level != w.level || c.Path != w.path {
					t.Errorf("%s: got level %d path %s, want %d %s", id, c.Level, c.Path, w.level, w.path)
				}
			}
			var c map[string]any
			api.get(t, "category.info", q("id", b, "recursive", "true")).Must(t).Decode(t, "category", &c)
			if n := len(c["children"].([]any)); n != 2 {
				t.Errorf("b has %d children, want 2", n)
			}
			// and back up to the root, two levels up
			api.post(t, "category.update", map[string]any{"id": a1, "parent": "ROOT"}).Must(t)
			var leaf struct {
				Level int
				Path  string
			}
			api.get(t, "category.info", q("id", a11)).Must(t).Decode(t, "category", &leaf)
			if leaf.Level != 3 || leaf.Path != "ROOT."+a1+"."+a11 {
				t.Errorf("a11 after moving up: got %d %s", leaf.Level, leaf.Path)
			}
		})
		t.Run("ROOT title can change", func(t *testing.T) {
			api.post(t, "category.update", map[string]any{"id": "ROOT", "title": "Everything"}).Must(t)
		})
	})
}

func TestCatalogCategoryRemove(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		api := newCatalogAPI(t, db)
		a := api.category(t, map[string]any{"title": "A", "slug": "a"})
		child := api.category(t, map[string]any{"title": "C", "slug": "c", "parent": a})
		used := api.category(t, map[string]any{"title": "U", "slug": "u"})
		empty := api.category(t, map[string]any{"title": "E", "slug": "e"})
		api.product(t, productBody("P1", used))

		tests := []struct {
			name   string
			id     string
			status int
			code   string
			data   any
		}{
			{"has children", a, 400, commerce.ECategoryNotEmpty, a},
			{"has products", used, 400, commerce.ECategoryNotEmpty, used},
			{"unknown", "nope", 404, commerce.ECategoryNotFound, "nope"},
			{"ROOT", "ROOT", 400, commerce.EValidation, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := api.post(t, "category.remove", map[string]any{"id": tc.id}).Expect(t, tc.status, tc.code)
				if tc.data != nil {
					sameJSON(t, r.Data, tc.data)
				}
			})
		}
		t.Run("empty one", func(t *testing.T) {
			r := api.post(t, "category.remove", map[string]any{"id": empty}).Must(t)
			sameJSON(t, r.Raw, `{"ok": true}`)
			api.get(t, "category.info", q("id", empty)).Expect(t, 404, commerce.ECategoryNotFound)
		})
		t.Run("leaf, then its emptied parent", func(t *testing.T) {
			api.post(t, "category.remove", map[string]any{"id": child}).Must(t)
			api.post(t, "category.remove", map[string]any{"id": a}).Must(t)
		})
		t.Run("api token is forbidden", func(t *testing.T) {
			api.Post(t, "/catalog/v1/category.remove", api.API, map[string]any{"id": used}).Expect(t, 403, commerce.EForbidden)
		})
	})
}
