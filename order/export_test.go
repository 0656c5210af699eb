package order_test

import (
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestOrderExport: order.export streams one CSV row per order item, with
// the filters; bad filters are 400 before anything is streamed; an api
// token is 403 (docs/api.md section 25).
func TestOrderExport(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("A1", "100.00", 10)
		body := checkoutBody(s.cart(s.API, p, 3))
		body["email"] = "ada@example.com"
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t)

		get := func(token string, q url.Values) (int, string) {
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/order/v1/order.export?"+q.Encode(), nil)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b)
		}
		st, out := get(s.Admin, url.Values{"status": {"PLACED"}, "createdFrom": {"2000-01-01T00:00:00Z"}})
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if st != 200 || err != nil || len(recs) != 2 {
			t.Fatalf("export: %d %v %q", st, err, out)
		}
		if strings.Join(recs[0], ",") != "number,date,customerEmail,sku,quantity,unitPrice,discount,tax,total,currency,paymentStatus,fulfillmentStatus" {
			t.Errorf("header %v", recs[0])
		}
		r := recs[1]
		if r[0] != "1001" || r[2] != "ada@example.com" || r[3] != "A1" || r[4] != "3" || r[5] != "100" || r[6] != "0" ||
			r[8] != "300" || r[9] != "USD" || r[10] != "AUTHORIZED" || r[11] != "NOT_SHIPPED" || r[7] == "0" || !strings.HasPrefix(r[1], "20") {
			t.Errorf("row %v", r)
		}
		if st, out := get(s.Admin, url.Values{"createdFrom": {"2999-01-01T00:00:00Z"}}); st != 200 || strings.Count(out, "\n") != 1 {
			t.Errorf("no order after 2999: %d %q", st, out)
		}
		if st, out := get(s.Admin, url.Values{"status": {"CANCELLED"}}); st != 200 || strings.Count(out, "\n") != 1 {
			t.Errorf("no cancelled order: %d %q", st, out)
		}
		for _, q := range []url.Values{{"createdFrom": {"yesterday"}}, {"status": {"LOST"}}} {
			if st, out := get(s.Admin, q); st != 400 || !strings.Contains(out, "validation_error") {
				t.Errorf("%v: %d %s", q, st, out)
			}
		}
		if st, _ := get(s.API, nil); st != 403 {
			t.Errorf("api token: %d", st)
		}
	})
}
