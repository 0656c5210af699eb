package pricelist_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestPriceListCRUD: create, info, list, update (fields, setPrices,
// removePrices, prices), remove, with their PRICELISTS events, and the
// errors of each.
func TestPriceListCRUD(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		a, b := s.product("A"), s.product("B")
		s.group("WHOLESALE")
		l := s.priceList(map[string]any{"code": "wholesale-2026", "title": "Wholesale", "groups": []string{"WHOLESALE"},
			"currency": "USD", "priority": 5, "validFrom": "2026-01-01", "validUntil": "2026-12-31",
			"prices": []map[string]any{{"productId": a, "amount": 80}, {"productId": a, "amount": json.Number("70.50"), "minQuantity": 10}}})
		if l.Status != "ACTIVE" || l.Code != "wholesale-2026" || !slices.Equal(l.Groups, []string{"WHOLESALE"}) || l.Priority != 5 ||
			len(l.Prices) != 2 || l.Prices[0].Amount != "80" || l.Prices[0].MinQuantity != 1 || l.Prices[1].Amount != "70.5" ||
			l.Prices[1].MinQuantity != 10 || l.ValidFrom == nil || !strings.HasPrefix(*l.ValidUntil, "2026-12-31T23:59:59.999") {
			t.Fatalf("created: %+v", l)
		}

		var info apiPriceList
		s.Get(t, "/catalog/v1/priceList.info?id="+l.ID, s.Admin).Must(t).Decode(t, "priceList", &info)
		if info.ID != l.ID || len(info.Prices) != 2 || info.Title != "Wholesale" {
			t.Fatalf("info: %+v", info)
		}

		// setPrices changes A's tier 10 and adds B; removePrices drops A's tier 1.
		var up apiPriceList
		s.Post(t, "/catalog/v1/priceList.update", s.Admin, map[string]any{"id": l.ID, "status": "DRAFT", "title": "Wholesale 2026",
			"setPrices":    []map[string]any{{"productId": a, "amount": 65, "minQuantity": 10}, {"productId": b, "amount": 50}},
			"removePrices": []map[string]any{{"productId": a, "minQuantity": 1}}}).Must(t).Decode(t, "priceList", &up)
		got := map[string]string{}
		for _, p := range up.Prices {
			got[p.ProductID+"@"+json.Number(strconv.FormatInt(p.MinQuantity, 10)).String()] = p.Amount.String()
		}
		if up.Status != "DRAFT" || up.Title != "Wholesale 2026" || len(up.Prices) != 2 || got[a+"@10"] != "65" || got[b+"@1"] != "50" {
			t.Fatalf("updated: %+v", up)
		}
		// prices replaces them all.
		s.Post(t, "/catalog/v1/priceList.update", s.Admin, map[string]any{"id": l.ID, "prices": []map[string]any{{"productId": b, "amount": 40}}}).
			Must(t).Decode(t, "priceList", &up)
		if len(up.Prices) != 1 || up.Prices[0].ProductID != b || up.Prices[0].Amount != "40" {
			t.Fatalf("prices replaced: %+v", up.Prices)
		}

		other := s.priceList(map[string]any{"code": "retail", "currency": "EUR"})
		var list []apiPriceList
		s.Get(t, "/catalog/v1/priceList.list", s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 2 || list[0].ID != l.ID || list[1].ID != other.ID || list[1].Title != "retail" || len(list[1].Groups) != 0 {
			t.Fatalf("list: %+v", list)
		}
		s.Get(t, "/catalog/v1/priceList.list?status=ACTIVE", s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != other.ID {
			t.Fatalf("list of ACTIVE: %+v", list)
		}
		s.Get(t, "/catalog/v1/priceList.list?productId="+b, s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != l.ID {
			t.Fatalf("list by product: %+v", list)
		}

		// Errors, each changing nothing.
		for _, tc := range []struct {
			name   string
			op     string
			body   map[string]any
			status int
			code   string
		}{
			{"no code", "create", map[string]any{"currency": "USD"}, 400, "validation_error"},
			{"no currency", "create", map[string]any{"code": "x"}, 400, "validation_error"},
			{"bad currency", "create", map[string]any{"code": "x", "currency": "EURO"}, 400, "validation_error"},
			{"bad country", "create", map[string]any{"code": "x", "currency": "USD", "country": "ZZ"}, 400, "validation_error"},
			{"bad status", "create", map[string]any{"code": "x", "currency": "USD", "status": "ON"}, 400, "validation_error"},
			{"bad group", "create", map[string]any{"code": "x", "currency": "USD", "groups": []string{"lower"}}, 400, "validation_error"},
			{"bad date", "create", map[string]any{"code": "x", "currency": "USD", "validFrom": "soon"}, 400, "validation_error"},
			{"dates reversed", "create", map[string]any{"code": "x", "currency": "USD", "validFrom": "2026-02-01", "validUntil": "2026-01-01"}, 400, "validation_error"},
			{"too many decimals", "create", map[string]any{"code": "x", "currency": "USD", "prices": []map[string]any{{"productId": a, "amount": json.Number("1.001")}}}, 400, "validation_error"},
			{"negative amount", "create", map[string]any{"code": "x", "currency": "USD", "prices": []map[string]any{{"productId": a, "amount": -1}}}, 400, "validation_error"},
			{"tier 0", "create", map[string]any{"code": "x", "currency": "USD", "prices": []map[string]any{{"productId": a, "amount": 1, "minQuantity": 0}}}, 400, "validation_error"},
			{"twice", "create", map[string]any{"code": "x", "currency": "USD", "prices": []map[string]any{{"productId": a, "amount": 1}, {"productId": a, "amount": 2}}}, 400, "validation_error"},
			{"unknown product", "create", map[string]any{"code": "x", "currency": "USD", "prices": []map[string]any{{"productId": "nope", "amount": 1}}}, 404, "product_not_found"},
			{"duplicate code", "create", map[string]any{"code": "retail", "currency": "USD"}, 409, "duplicate_key"},
			{"unknown id", "update", map[string]any{"id": "nope", "title": "x"}, 404, "price_list_not_found"},
			{"code taken", "update", map[string]any{"id": l.ID, "code": "retail"}, 409, "duplicate_key"},
			{"unknown product in setPrices", "update", map[string]any{"id": l.ID, "setPrices": []map[string]any{{"productId": "nope", "amount": 1}}}, 404, "product_not_found"},
			{"remove unknown", "remove", map[string]any{"id": "nope"}, 404, "price_list_not_found"},
			{"info unknown", "info", map[string]any{"id": "nope"}, 404, "price_list_not_found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s.Post(t, "/catalog/v1/priceList."+tc.op, s.Admin, tc.body).Expect(t, tc.status, tc.code)
			})
		}
		s.Get(t, "/catalog/v1/priceList.list?limit=100", s.Admin).Must(t).Decode(t, "data", &list)
		if len(list) != 2 || list[0].Code != "wholesale-2026" || len(list[0].Prices) != 1 {
			t.Fatalf("after the errors: %+v", list)
		}

		var removed apiPriceList
		s.Post(t, "/catalog/v1/priceList.remove", s.Admin, map[string]any{"id": other.ID}).Must(t).Decode(t, "priceList", &removed)
		if removed.ID != other.ID {
			t.Fatalf("removed: %+v", removed)
		}
		s.Get(t, "/catalog/v1/priceList.info?id="+other.ID, s.Admin).Expect(t, 404, "price_list_not_found")

		var evs []event.Event
		s.Get(t, "/event/v1/event.list?channel=PRICELISTS&limit=100", s.Admin).Must(t).Decode(t, "data", &evs)
		var types []string
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if !slices.Equal(types, []string{"CREATE", "UPDATE", "UPDATE", "CREATE", "REMOVE"}) {
			t.Fatalf("PRICELISTS events: %v", types)
		}
		var create struct {
			New  apiPriceList   `json:"new"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(evs[0].Payload, &create); err != nil || create.New.ID != l.ID || create.Data["code"] != "wholesale-2026" {
			t.Fatalf("CREATE payload: %s (%v)", evs[0].Payload, err)
		}
		var upd struct {
			Old, New apiPriceList
			Data     map[string]any
		}
		if err := json.Unmarshal(evs[1].Payload, &upd); err != nil || upd.Old.Status != "ACTIVE" || upd.New.Status != "DRAFT" || upd.Data["id"] != l.ID {
			t.Fatalf("UPDATE payload: %s (%v)", evs[1].Payload, err)
		}
		var rem struct {
			ID  string       `json:"id"`
			Old apiPriceList `json:"old"`
		}
		if err := json.Unmarshal(evs[4].Payload, &rem); err != nil || rem.ID != other.ID || rem.Old.Code != "retail" {
			t.Fatalf("REMOVE payload: %s (%v)", evs[4].Payload, err)
		}
	})
}

// TestPriceListsAndGroupsAdminOnly: every priceList.* and group.*
// operation is forbidden to api tokens (a customer's included), and
// changes nothing; a customer cannot set its own groups.
func TestPriceListsAndGroupsAdminOnly(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		a := s.product("A")
		s.group("VIP")
		l := s.priceList(map[string]any{"code": "vip", "currency": "USD", "groups": []string{"VIP"}, "prices": []map[string]any{{"productId": a, "amount": 1}}})
		customer := s.token("c1", "", "", "VIP")
		for _, tok := range []string{s.API, customer} {
			for _, c := range []struct {
				path string
				body map[string]any
			}{
				{"/catalog/v1/priceList.create", map[string]any{"code": "x", "currency": "USD"}},
				{"/catalog/v1/priceList.update", map[string]any{"id": l.ID, "title": "mine"}},
				{"/catalog/v1/priceList.remove", map[string]any{"id": l.ID}},
				{"/catalog/v1/priceList.info", map[string]any{"id": l.ID}},
				{"/catalog/v1/priceList.list", map[string]any{}},
				{"/customer/v1/group.create", map[string]any{"code": "X"}},
				{"/customer/v1/group.update", map[string]any{"code": "VIP", "title": "mine"}},
				{"/customer/v1/group.remove", map[string]any{"code": "VIP"}},
				{"/customer/v1/group.list", map[string]any{}},
			} {
				s.Post(t, c.path, tok, c.body).Expect(t, 403, "forbidden")
			}
		}
		var info apiPriceList
		s.Get(t, "/catalog/v1/priceList.info?id="+l.ID, s.Admin).Must(t).Decode(t, "priceList", &info)
		if info.Title != "vip" || len(info.Prices) != 1 {
			t.Fatalf("changed by the refused calls: %+v", info)
		}
		var groups []struct{ Code, Title string }
		s.Get(t, "/customer/v1/group.list", s.Admin).Must(t).Decode(t, "data", &groups)
		if len(groups) != 1 || groups[0].Title != "Group VIP" {
			t.Fatalf("groups changed by the refused calls: %+v", groups)
		}
	})
}

// TestGroups: group.* with their errors, a customer's groups set by an
// admin (unknown groups refused, customers refused), and the groups claim
// of the tokens from auth.login and auth.refresh.
func TestGroups(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		var g struct{ Code, Title string }
		s.Post(t, "/customer/v1/group.create", s.Admin, map[string]any{"code": "B2B-EU"}).Must(t).Decode(t, "group", &g)
		if g.Code != "B2B-EU" || g.Title != "B2B-EU" {
			t.Fatalf("created: %+v", g)
		}
		s.group("MEMBERS")
		s.Post(t, "/customer/v1/group.create", s.Admin, map[string]any{"code": "MEMBERS"}).Expect(t, 409, "duplicate_key")
		for _, bad := range []string{"", "lower", "WITH SPACE", strings.Repeat("A", 41)} {
			s.Post(t, "/customer/v1/group.create", s.Admin, map[string]any{"code": bad}).Expect(t, 400, "validation_error")
		}
		s.Post(t, "/customer/v1/group.update", s.Admin, map[string]any{"code": "B2B-EU", "title": "Trade, EU"}).Must(t).Decode(t, "group", &g)
		if g.Title != "Trade, EU" {
			t.Fatalf("updated: %+v", g)
		}
		s.Post(t, "/customer/v1/group.update", s.Admin, map[string]any{"code": "NOPE", "title": "x"}).Expect(t, 404, "group_not_found")
		s.Post(t, "/customer/v1/group.remove", s.Admin, map[string]any{"code": "NOPE"}).Expect(t, 404, "group_not_found")

		var c struct {
			ID     string   `json:"id"`
			Groups []string `json:"groups"`
		}
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "ada@example.com", "password": "correct horse battery",
			"firstName": "Ada", "lastName": "Lovelace"}).Must(t).Decode(t, "customer", &c)
		if c.Groups == nil || len(c.Groups) != 0 {
			t.Fatalf("a new customer's groups: %v", c.Groups)
		}
		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": c.ID, "groups": []string{"MEMBERS", "NOPE"}}).Expect(t, 404, "group_not_found")
		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": c.ID, "groups": []string{"MEMBERS", "B2B-EU"}}).Must(t).Decode(t, "customer", &c)
		if !slices.Equal(c.Groups, []string{"MEMBERS", "B2B-EU"}) {
			t.Fatalf("groups set: %v", c.Groups)
		}

		var sess struct {
			AccessToken  string `json:"accessToken"`
			RefreshToken string `json:"refreshToken"`
		}
		r := s.Post(t, "/auth/v1/auth.login", s.API, map[string]any{"email": "ada@example.com", "password": "correct horse battery"}).Must(t)
		if err := json.Unmarshal(r.Raw, &sess); err != nil {
			t.Fatal(err)
		}
		claims, err := s.Keys.Verify(sess.AccessToken)
		if err != nil || !slices.Equal(claims.Groups, []string{"MEMBERS", "B2B-EU"}) {
			t.Fatalf("login token's groups: %v (%v)", claims.Groups, err)
		}
		// The customer cannot change its own groups.
		s.Post(t, "/customer/v1/customer.update", sess.AccessToken, map[string]any{"groups": []string{}}).Expect(t, 403, "forbidden")

		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": c.ID, "groups": []string{"MEMBERS"}}).Must(t)
		r = s.Post(t, "/auth/v1/auth.refresh", s.API, map[string]any{"refreshToken": sess.RefreshToken}).Must(t)
		if err := json.Unmarshal(r.Raw, &sess); err != nil {
			t.Fatal(err)
		}
		claims, err = s.Keys.Verify(sess.AccessToken)
		if err != nil || !slices.Equal(claims.Groups, []string{"MEMBERS"}) {
			t.Fatalf("refreshed token's groups: %v (%v)", claims.Groups, err)
		}

		s.Post(t, "/customer/v1/group.remove", s.Admin, map[string]any{"code": "B2B-EU"}).Must(t)
		var groups []struct{ Code string }
		s.Get(t, "/customer/v1/group.list", s.Admin).Must(t).Decode(t, "data", &groups)
		if len(groups) != 1 || groups[0].Code != "MEMBERS" {
			t.Fatalf("groups: %+v", groups)
		}
		var evs []event.Event
		s.Get(t, "/event/v1/event.list?channel=CUSTOMERS&limit=100", s.Admin).Must(t).Decode(t, "data", &evs)
		var types []string
		for _, e := range evs {
			if strings.HasPrefix(e.Type, "GROUP_") {
				types = append(types, e.Type)
			}
		}
		if !slices.Equal(types, []string{"GROUP_CREATE", "GROUP_CREATE", "GROUP_UPDATE", "GROUP_REMOVE"}) {
			t.Fatalf("group events: %v", types)
		}
	})
}
