package pricelist_test

import (
	"slices"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestPriceListListByGroup: priceList.list's group matches the lists
// that name any of the groups (a list for everyone names none), with the
// other filters; a code that is no group code is a validation error.
func TestPriceListListByGroup(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		s.group("WHOLESALE")
		s.group("VIP")
		w := s.priceList(map[string]any{"code": "w", "currency": "USD", "groups": []string{"WHOLESALE"}})
		v := s.priceList(map[string]any{"code": "v", "currency": "USD", "groups": []string{"VIP", "WHOLESALE"}, "status": "DRAFT"})
		s.priceList(map[string]any{"code": "all", "currency": "USD"})
		codes := func(path string, body map[string]any) []string {
			t.Helper()
			var list []apiPriceList
			if body == nil {
				s.Get(t, path, s.Admin).Must(t).Decode(t, "data", &list)
			} else {
				s.Post(t, path, s.Admin, body).Must(t).Decode(t, "data", &list)
			}
			out := []string{}
			for _, l := range list {
				out = append(out, l.ID)
			}
			return out
		}
		for _, tc := range []struct {
			name string
			path string
			body map[string]any
			want []string
		}{
			{"one group", "/catalog/v1/priceList.list?group=VIP", nil, []string{v.ID}},
			{"a group of two lists", "/catalog/v1/priceList.list?group=WHOLESALE", nil, []string{w.ID, v.ID}},
			{"any of two (POST)", "/catalog/v1/priceList.list", map[string]any{"group": []string{"VIP", "WHOLESALE"}}, []string{w.ID, v.ID}},
			{"with a status", "/catalog/v1/priceList.list?group=WHOLESALE&status=ACTIVE", nil, []string{w.ID}},
			{"a group no list names", "/catalog/v1/priceList.list?group=NOBODY", nil, []string{}},
		} {
			if got := codes(tc.path, tc.body); !slices.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
		s.Get(t, "/catalog/v1/priceList.list?group=lower", s.Admin).Expect(t, 400, "validation_error")
	})
}
