package promotion_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// promo is a promotion as a client reads it.
type promo struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Class    string          `json:"class"`
	Active   bool            `json:"active"`
	Priority int             `json:"priority"`
	If       json.RawMessage `json:"if"`
	Then     json.RawMessage `json:"then"`
	// UsageCount is always shown (0 for a promotion no order used).
	UsageCount int `json:"usageCount"`
}

// body returns a promotion.create body; the rules are JSON text.
func body(title string, priority int, ifJSON, thenJSON string) map[string]any {
	return map[string]any{
		"title": title, "class": "default", "active": true, "priority": priority,
		"if": json.RawMessage(ifJSON), "then": json.RawMessage(thenJSON),
	}
}

func create(t *testing.T, srv *apitest.Server, b any) promo {
	t.Helper()
	var p promo
	srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, b).Must(t).Decode(t, "promotion", &p)
	if p.ID == "" {
		t.Fatalf("created promotion has no id")
	}
	return p
}

// events returns the events of the PROMOTIONS channel, oldest first.
func events(t *testing.T, srv *apitest.Server) []event.Event {
	t.Helper()
	var evs []event.Event
	srv.Get(t, "/event/v1/event.list?channel=PROMOTIONS&limit=1000", srv.Admin).Must(t).Decode(t, "data", &evs)
	return evs
}

func payload(t *testing.T, e event.Event) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(e.Payload, &m); err != nil {
		t.Fatalf("event payload: %v: %s", err, e.Payload)
	}
	return m
}

// compact returns JSON text without insignificant space, for comparisons.
func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const (
	b1g1If   = `{"category":{"id":"c1","quantity":2}}`
	b1g1Then = `{"category":{"id":"c1","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`
	prodIf   = `{"product":{"id":"p1","quantity":1}}`
	prodThen = `{"product":{"id":"p1","quantity":1,"discount":{"rate":5}}}`
)

func TestCreateInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		for _, version := range []string{"v1", "v2"} {
			t.Run(version, func(t *testing.T) {
				req := map[string]any{
					"title": "Buy one get one " + version, "class": "default", "active": true, "priority": 7,
					// Not canonical: null member, 2.0, false flag.
					"if":   json.RawMessage(`{"category":{"id":"c1","quantity":2.0,"lowestPrice":false,"threshold":null}}`),
					"then": json.RawMessage(b1g1Then),
				}
				var p promo
				srv.Post(t, "/promotion/"+version+"/promotion.create", srv.Admin, req).Must(t).Decode(t, "promotion", &p)
				want := promo{ID: p.ID, Title: "Buy one get one " + version, Class: "default", Active: true, Priority: 7,
					If: json.RawMessage(b1g1If), Then: json.RawMessage(b1g1Then)}
				if p.ID == "" || show(p) != show(want) {
					t.Fatalf("got %s, want %s", show(p), show(want))
				}
				var got promo
				srv.Get(t, "/promotion/v1/promotion.info?id="+p.ID, srv.API).Must(t).Decode(t, "promotion", &got)
				if show(got) != show(want) {
					t.Errorf("info: got %s, want %s", show(got), show(want))
				}
				// The CREATE event carries the created promotion and the request.
				evs := events(t, srv)
				last := evs[len(evs)-1]
				if last.Type != event.Create || last.Channel != event.Promotions {
					t.Fatalf("last event %s %s, want PROMOTIONS CREATE", last.Channel, last.Type)
				}
				pl := payload(t, last)
				if got, w := compact(t, string(pl["new"])), compact(t, show(want)); got != w {
					t.Errorf("event new: got %s, want %s", got, w)
				}
				wantData := compact(t, show(req))
				if got := compact(t, string(pl["data"])); got != wantData {
					t.Errorf("event data: got %s, want %s", got, wantData)
				}
			})
		}
		if n := len(events(t, srv)); n != 2 {
			t.Errorf("got %d events, want 2", n)
		}
	})
}

func TestCreateAccess(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		srv.Post(t, "/promotion/v2/promotion.create", srv.API, body("x", 1, prodIf, prodThen)).Expect(t, 403, "forbidden")
		srv.Post(t, "/promotion/v2/promotion.create", "", body("x", 1, prodIf, prodThen)).Expect(t, 401, "invalid_token")
		srv.Post(t, "/promotion/v3/promotion.create", srv.Admin, body("x", 1, prodIf, prodThen)).Expect(t, 404, "operation_not_found")
		srv.Get(t, "/promotion/v2/promotion.create", srv.Admin).Expect(t, 405, "method_not_allowed")
		srv.Post(t, "/catalog/v1/promotion.create", srv.Admin, body("x", 1, prodIf, prodThen)).Expect(t, 404, "operation_not_found")
		// promotion.info, list and update exist under v1 only.
		srv.Get(t, "/promotion/v2/promotion.list", srv.Admin).Expect(t, 404, "operation_not_found")
		p := create(t, srv, body("x", 1, prodIf, prodThen))
		srv.Post(t, "/promotion/v1/promotion.update?id="+p.ID, srv.API, map[string]any{"title": "y"}).Expect(t, 403, "forbidden")
		srv.Post(t, "/services/promotion/v1/promotion.info", srv.API, map[string]any{"id": p.ID}).Must(t)
	})
}

// TestCreateValidation sends a bad request per failure class: each is one
// validation_error naming the field, and nothing is created.
func TestCreateValidation(t *testing.T) {
	set := func(k string, v any) map[string]any {
		b := body("t", 1, prodIf, prodThen)
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		body any
		want string // a field path named in the error data
	}{
		{"no title", set("title", nil), "title"},
		{"empty title", set("title", " "), "title"},
		{"title not a string", set("title", 5), "title"},
		{"no class", set("class", nil), "class"},
		{"unknown class", set("class", "buyxgety"), "class"},
		{"no active", set("active", nil), "active"},
		{"active not a boolean", set("active", "yes"), "active"},
		{"no priority", set("priority", nil), "priority"},
		{"priority not an integer", set("priority", 1.5), "priority"},
		{"priority a string", set("priority", "5"), "priority"},
		{"no if", set("if", nil), "if"},
		{"no then", set("then", nil), "then"},
		{"if not an object", set("if", raw(`[1]`)), "if"},
		{"unknown field", set("discount", 5), "discount"},
		{"id given", set("id", "mine"), "id"},
		{"isPercentaje typo", set("then", raw(`{"category":{"id":"c","quantity":3,"discount":{"rate":10,"isPercentaje":true}}}`)), "then.category.discount.isPercentaje"},
		{"two rules in one", set("if", raw(`{"product":{"id":"p","quantity":1},"category":{"id":"c","quantity":1}}`)), "if"},
		{"no rule", set("if", raw(`{}`)), "if"},
		{"unknown rule", set("if", raw(`{"cart":{"total":50}}`)), "if.cart"},
		{"empty all", set("if", raw(`{"all":[]}`)), "if.all"},
		{"any not an array", set("then", raw(`{"any":{"product":{"id":"p","quantity":1,"discount":{"rate":1}}}}`)), "then.any"},
		{"quantity zero", set("if", raw(`{"product":{"id":"p","quantity":0}}`)), "if.product.quantity"},
		{"quantity fractional", set("if", raw(`{"product":{"id":"p","quantity":1.5}}`)), "if.product.quantity"},
		{"quantity missing", set("if", raw(`{"product":{"id":"p"}}`)), "if.product.quantity"},
		{"id missing", set("if", raw(`{"all":[{"product":{"quantity":1}}]}`)), "if.all[0].product.id"},
		{"threshold above 1", set("if", raw(`{"product":{"id":"p","quantity":2,"threshold":1.5}}`)), "if.product.threshold"},
		{"threshold in then", set("then", raw(`{"product":{"id":"p","quantity":1,"threshold":0.5,"discount":{"rate":1}}}`)), "then.product.threshold"},
		{"lowestPrice not a boolean", set("if", raw(`{"category":{"id":"c","quantity":2,"lowestPrice":"yes"}}`)), "if.category.lowestPrice"},
		{"discount in if", set("if", raw(`{"product":{"id":"p","quantity":1,"discount":{"rate":1}}}`)), "if.product.discount"},
		{"no discount in then", set("then", raw(`{"product":{"id":"p","quantity":1}}`)), "then.product.discount"},
		{"no rate", set("then", raw(`{"product":{"id":"p","quantity":1,"discount":{"isPercentage":true}}}`)), "then.product.discount.rate"},
		{"negative rate", set("then", raw(`{"product":{"id":"p","quantity":1,"discount":{"rate":-1}}}`)), "then.product.discount.rate"},
		{"percentage above 100", set("then", raw(`{"product":{"id":"p","quantity":1,"discount":{"rate":150,"isPercentage":true}}}`)), "then.product.discount.rate"},
		{"both flags", set("then", raw(`{"product":{"id":"p","quantity":1,"discount":{"rate":5,"isPercentage":true,"isFixedPrice":true}}}`)), "then.product.discount"},
		{"nested 9 deep", set("if", raw(strings.Repeat(`{"all":[`, 8)+prodIf+strings.Repeat(`]}`, 8))), "if"},
		{"body not JSON", `{"title":`, "body"},
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, tc.body).Expect(t, 400, "validation_error")
				var problems []string
				if err := json.Unmarshal(r.Data, &problems); err != nil || len(problems) == 0 {
					t.Fatalf("data: got %s, want a list of problems", r.Data)
				}
				if !slices.ContainsFunc(problems, func(p string) bool {
					rest, ok := strings.CutPrefix(p, tc.want)
					return ok && rest != "" && strings.ContainsRune(":.[", rune(rest[0]))
				}) {
					t.Errorf("data: got %q, want a problem of %q", problems, tc.want)
				}
			})
		}
		var data []promo
		srv.Get(t, "/promotion/v1/promotion.list", srv.Admin).Must(t).Decode(t, "data", &data)
		if len(data) != 0 || len(events(t, srv)) != 0 {
			t.Errorf("got %d promotions and %d events after invalid requests, want none", len(data), len(events(t, srv)))
		}
	})
}

// TestCreateReportsEveryProblem: one request, every problem listed.
func TestCreateReportsEveryProblem(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		r := srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, map[string]any{
			"class": "other", "priority": 1, "active": true,
			"if":   json.RawMessage(`{"product":{"id":"p","quantity":-1}}`),
			"then": json.RawMessage(`{"product":{"id":"p","quantity":1,"discount":{"rate":1,"isPercentaje":true}}}`),
		}).Expect(t, 400, "validation_error")
		var problems []string
		json.Unmarshal(r.Data, &problems)
		for _, want := range []string{"title:", "class:", "if.product.quantity:", "then.product.discount.isPercentaje:"} {
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
				t.Errorf("got %q, want a problem starting %q", problems, want)
			}
		}
	})
}

func TestInfoErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		r := srv.Get(t, "/promotion/v1/promotion.info?id=nope", srv.API).Expect(t, 404, "promotion_not_found")
		if string(r.Data) != `"nope"` {
			t.Errorf("data: got %s, want \"nope\"", r.Data)
		}
		srv.Get(t, "/promotion/v1/promotion.info", srv.API).Expect(t, 400, "validation_error")
	})
}

func TestList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		var ids []string
		for i, title := range []string{"Summer sale", "Winter SALE", "Bundle", "summer bundle", "Clearance"} {
			b := body(title, 10-i, prodIf, prodThen) // priorities descend: the list ignores them
			b["active"] = i%2 == 0
			ids = append(ids, create(t, srv, b).ID)
		}
		tests := []struct {
			name  string
			query string
			want  []int // indexes into ids, in order
		}{
			{"all in creation order", "", []int{0, 1, 2, 3, 4}},
			{"by ids", "?id=" + ids[3] + "," + ids[0] + ",unknown", []int{0, 3}},
			{"title case-insensitive", "?title=sale", []int{0, 1}},
			{"title regex", "?title=^summer", []int{0, 3}},
			{"active", "?active=true", []int{0, 2, 4}},
			{"inactive", "?active=false", []int{1, 3}},
			{"title and active", "?title=bundle&active=false", []int{3}},
			{"limit", "?limit=2", []int{0, 1}},
			{"skip", "?skip=3", []int{3, 4}},
			{"limit and skip", "?limit=2&skip=1", []int{1, 2}},
			{"regex with skip and limit", "?title=e&skip=1&limit=2", []int{1, 2}},
			{"skip past the end", "?skip=10", []int{}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Get(t, "/promotion/v1/promotion.list"+tc.query, srv.API).Must(t)
				var data []promo
				r.Decode(t, "data", &data)
				var got, want []string
				for _, p := range data {
					got = append(got, p.ID)
				}
				for _, i := range tc.want {
					want = append(want, ids[i])
				}
				if !slices.Equal(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			})
		}
		t.Run("page and body arguments", func(t *testing.T) {
			r := srv.Post(t, "/promotion/v1/promotion.list", srv.API, map[string]any{"id": []string{ids[1], ids[2]}, "limit": 1}).Must(t)
			var page struct{ Limit, Skip int }
			var data []promo
			r.Decode(t, "page", &page)
			r.Decode(t, "data", &data)
			if page.Limit != 1 || page.Skip != 0 || len(data) != 1 || data[0].ID != ids[1] {
				t.Errorf("got page %+v data %s, want {1 0} and %s", page, show(data), ids[1])
			}
		})
		for _, q := range []string{"?title=(", "?limit=0", "?limit=1001", "?skip=-1", "?active=maybe"} {
			t.Run("invalid "+q, func(t *testing.T) {
				srv.Get(t, "/promotion/v1/promotion.list"+q, srv.API).Expect(t, 400, "validation_error")
			})
		}
	})
}

func TestUpdate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		p := create(t, srv, body("Old title", 5, prodIf, prodThen))
		update := func(b map[string]any) promo {
			t.Helper()
			var got promo
			srv.Post(t, "/promotion/v1/promotion.update?id="+p.ID, srv.Admin, b).Must(t).Decode(t, "promotion", &got)
			return got
		}

		got := update(map[string]any{"title": "New title", "priority": -3})
		want := p
		want.Title, want.Priority = "New title", -3
		if show(got) != show(want) {
			t.Fatalf("got %s, want %s", show(got), show(want))
		}
		evs := events(t, srv)
		last := evs[len(evs)-1]
		if last.Type != event.Update || len(evs) != 2 {
			t.Fatalf("got %d events, the last %s, want 2, the last UPDATE", len(evs), last.Type)
		}
		pl := payload(t, last)
		for k, w := range map[string]string{
			"old":  compact(t, show(p)),
			"new":  compact(t, show(want)),
			"data": compact(t, fmt.Sprintf(`{"id":%q,"title":"New title","priority":-3}`, p.ID)),
		} {
			if g := compact(t, string(pl[k])); g != w {
				t.Errorf("event %s: got %s, want %s", k, g, w)
			}
		}

		// A new `then` alone is validated with the stored `if`, and stored
		// in canonical form.
		got = update(map[string]any{"then": json.RawMessage(`{"product":{"id":"p1","quantity":1,"discount":{"rate":2.50,"isFixedPrice":true}}}`)})
		if wantThen := `{"product":{"id":"p1","quantity":1,"discount":{"rate":2.5,"isFixedPrice":true}}}`; string(got.Then) != wantThen || string(got.If) != prodIf || got.Title != "New title" {
			t.Errorf("got %s, want then %s with the rest unchanged", show(got), wantThen)
		}
		got = update(map[string]any{"active": false, "if": json.RawMessage(b1g1If)})
		if got.Active || string(got.If) != b1g1If {
			t.Errorf("got %s, want inactive with if %s", show(got), b1g1If)
		}

		before := show(got)
		for _, tc := range []struct {
			name string
			body any
		}{
			{"nothing to change", map[string]any{}},
			{"class", map[string]any{"class": "default"}},
			{"empty title", map[string]any{"title": ""}},
			{"priority fractional", map[string]any{"priority": 0.5}},
			{"bad if", map[string]any{"if": json.RawMessage(`{"product":{"id":"p","quantity":0}}`)}},
			{"isPercentaje", map[string]any{"then": json.RawMessage(`{"product":{"id":"p","quantity":1,"discount":{"rate":1,"isPercentaje":true}}}`)}},
			{"bad then with good title", map[string]any{"title": "ok", "then": json.RawMessage(`{"product":{"id":"p","quantity":1}}`)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				srv.Post(t, "/promotion/v1/promotion.update?id="+p.ID, srv.Admin, tc.body).Expect(t, 400, "validation_error")
			})
		}
		var after promo
		srv.Get(t, "/promotion/v1/promotion.info?id="+p.ID, srv.API).Must(t).Decode(t, "promotion", &after)
		if show(after) != before {
			t.Errorf("after invalid updates: got %s, want %s", show(after), before)
		}
		if n := len(events(t, srv)); n != 4 {
			t.Errorf("got %d events, want 4 (no event for a failed update)", n)
		}
		r := srv.Post(t, "/promotion/v1/promotion.update?id=nope", srv.Admin, map[string]any{"title": "x"}).Expect(t, 404, "promotion_not_found")
		if string(r.Data) != `"nope"` {
			t.Errorf("data: got %s, want \"nope\"", r.Data)
		}
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"title": "x"}).Expect(t, 400, "validation_error")
	})
}

// TestConcurrentUpdates: parallel updates of different fields of one
// promotion all survive.
func TestConcurrentUpdates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		p := create(t, srv, body("T", 0, prodIf, prodThen))
		bodies := []map[string]any{
			{"title": "Concurrent"},
			{"priority": 42},
			{"active": false},
			{"if": json.RawMessage(b1g1If)},
			{"then": json.RawMessage(b1g1Then)},
		}
		errs := make(chan string, len(bodies))
		for _, b := range bodies {
			go func() {
				r := srv.Post(t, "/promotion/v1/promotion.update?id="+p.ID, srv.Admin, b)
				if !r.OK {
					errs <- string(r.Raw)
					return
				}
				errs <- ""
			}()
		}
		for range bodies {
			if e := <-errs; e != "" {
				t.Errorf("update failed: %s", e)
			}
		}
		var got promo
		srv.Get(t, "/promotion/v1/promotion.info?id="+p.ID, srv.API).Must(t).Decode(t, "promotion", &got)
		want := promo{ID: p.ID, Title: "Concurrent", Class: "default", Active: false, Priority: 42, If: json.RawMessage(b1g1If), Then: json.RawMessage(b1g1Then)}
		if show(got) != show(want) {
			t.Errorf("got %s, want %s", show(got), show(want))
		}
	})
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
