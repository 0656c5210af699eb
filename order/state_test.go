package order_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestStateMachine runs every operation in every state: allowed, or the
// error it gets (invalid_order_state mostly), on both stores.
func TestStateMachine(t *testing.T) {
	type setup func(s *shop, o *order.Order)
	capture := func(s *shop, o *order.Order) { s.op("capture", map[string]any{"id": o.ID}) }
	fulfillOne := func(s *shop, o *order.Order) {
		s.op("fulfill", map[string]any{"id": o.ID, "items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1}}})
	}
	fulfillAll := func(s *shop, o *order.Order) { s.op("fulfill", map[string]any{"id": o.ID}) }
	deliverAll := func(s *shop, o *order.Order) {
		var cur order.Order
		s.Get(s.t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(s.t).Decode(s.t, "order", &cur)
		for _, f := range cur.Fulfillments {
			s.op("deliver", map[string]any{"id": o.ID, "fulfillmentId": f.ID})
		}
	}
	cancel := func(s *shop, o *order.Order) { s.op("cancel", map[string]any{"id": o.ID}) }
	refund := func(amount float64) setup {
		return func(s *shop, o *order.Order) { s.op("refund", map[string]any{"id": o.ID, "amount": amount}) }
	}
	// Every state an order can reach (its total is 225.00: two units of
	// 100.00 and 25.00 shipping).
	states := []struct {
		name  string
		steps []setup
		want  string // the state reached: status/paymentStatus/fulfillmentStatus
	}{
		{"placed", nil, "PLACED/AUTHORIZED/NOT_SHIPPED"},
		{"paid", []setup{capture}, "PLACED/PAID/NOT_SHIPPED"},
		{"partially shipped", []setup{fulfillOne}, "PLACED/AUTHORIZED/PARTIALLY_SHIPPED"},
		{"shipped, not paid", []setup{fulfillAll}, "PLACED/AUTHORIZED/SHIPPED"},
		{"delivered, not paid", []setup{fulfillAll, deliverAll}, "PLACED/AUTHORIZED/DELIVERED"},
		{"paid, partially shipped", []setup{capture, fulfillOne}, "PLACED/PAID/PARTIALLY_SHIPPED"},
		{"shipped and paid", []setup{capture, fulfillAll}, "PLACED/PAID/SHIPPED"},
		{"completed", []setup{capture, fulfillAll, deliverAll}, "COMPLETED/PAID/DELIVERED"},
		{"completed, partially refunded", []setup{capture, fulfillAll, deliverAll, refund(10)}, "COMPLETED/PARTIALLY_REFUNDED/DELIVERED"},
		{"completed, refunded", []setup{capture, fulfillAll, deliverAll, refund(225)}, "COMPLETED/REFUNDED/DELIVERED"},
		{"cancelled", []setup{cancel}, "CANCELLED/VOIDED/NOT_SHIPPED"},
		{"cancelled after capture", []setup{capture, cancel}, "CANCELLED/REFUNDED/NOT_SHIPPED"},
		{"partially refunded", []setup{capture, refund(10)}, "PLACED/PARTIALLY_REFUNDED/NOT_SHIPPED"},
		{"refunded", []setup{capture, refund(225)}, "PLACED/REFUNDED/NOT_SHIPPED"},
	}
	const ok = ""
	const bad = "invalid_order_state"
	ops := []string{"capture", "fulfill", "deliver", "cancel", "refund"}
	// want[state][op]: "" allowed, else the error code.
	want := map[string][]string{
		"placed":                        {ok, ok, "fulfillment_not_found", ok, bad},
		"paid":                          {bad, ok, "fulfillment_not_found", ok, ok},
		"partially shipped":             {ok, ok, ok, bad, bad},
		"shipped, not paid":             {ok, bad, ok, bad, bad},
		"delivered, not paid":           {ok, bad, bad, bad, bad},
		"paid, partially shipped":       {bad, ok, ok, bad, ok},
		"shipped and paid":              {bad, bad, ok, bad, ok},
		"completed":                     {bad, bad, bad, bad, ok},
		"completed, partially refunded": {bad, bad, bad, bad, ok},
		"completed, refunded":           {bad, bad, bad, bad, "refund_exceeds_captured"},
		"cancelled":                     {bad, bad, "fulfillment_not_found", bad, bad},
		"cancelled after capture":       {bad, bad, "fulfillment_not_found", bad, bad},
		"partially refunded":            {bad, ok, "fulfillment_not_found", ok, ok},
		"refunded":                      {bad, ok, "fulfillment_not_found", ok, "refund_exceeds_captured"},
	}
	// after["state/op"]: the state an allowed operation leads to.
	after := map[string]string{
		"placed/capture":                       "PLACED/PAID/NOT_SHIPPED",
		"placed/fulfill":                       "PLACED/AUTHORIZED/SHIPPED",
		"placed/cancel":                        "CANCELLED/VOIDED/NOT_SHIPPED",
		"paid/cancel":                          "CANCELLED/REFUNDED/NOT_SHIPPED",
		"paid/refund":                          "PLACED/PARTIALLY_REFUNDED/NOT_SHIPPED",
		"partially shipped/capture":            "PLACED/PAID/PARTIALLY_SHIPPED",
		"partially shipped/fulfill":            "PLACED/AUTHORIZED/SHIPPED",
		"partially shipped/deliver":            "PLACED/AUTHORIZED/PARTIALLY_SHIPPED",
		"shipped, not paid/deliver":            "PLACED/AUTHORIZED/DELIVERED",
		"delivered, not paid/capture":          "COMPLETED/PAID/DELIVERED",
		"paid, partially shipped/deliver":      "PLACED/PAID/PARTIALLY_SHIPPED",
		"shipped and paid/deliver":             "COMPLETED/PAID/DELIVERED",
		"completed/refund":                     "COMPLETED/PARTIALLY_REFUNDED/DELIVERED",
		"completed, partially refunded/refund": "COMPLETED/PARTIALLY_REFUNDED/DELIVERED",
		"partially refunded/cancel":            "CANCELLED/REFUNDED/NOT_SHIPPED",
		"refunded/cancel":                      "CANCELLED/REFUNDED/NOT_SHIPPED",
		"refunded/fulfill":                     "PLACED/REFUNDED/SHIPPED",
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("SM", "100.00", 1000)
		for _, st := range states {
			for i, op := range ops {
				t.Run(st.name+"/"+op, func(t *testing.T) {
					s.t = t
					o := s.checkout(s.API, s.cart(s.API, p, 2))
					for _, step := range st.steps {
						step(s, o)
					}
					var before order.Order
					s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &before)
					if got := fmt.Sprintf("%s/%s/%s", before.Status, before.PaymentStatus, before.FulfillmentStatus); got != st.want {
						t.Fatalf("state %s, want %s", got, st.want)
					}
					body := map[string]any{"id": o.ID}
					switch op {
					case "deliver":
						body["fulfillmentId"] = "none"
						if len(before.Fulfillments) > 0 {
							body["fulfillmentId"] = before.Fulfillments[0].ID
						}
					case "refund":
						body["amount"] = 1
					}
					r := s.Post(t, "/order/v1/order."+op, s.Admin, body)
					if w := want[st.name][i]; w == ok {
						var got order.Order
						r.Must(t).Decode(t, "order", &got)
						if got.Version != before.Version+1 {
							t.Errorf("%s: version %d -> %d, want +1", op, before.Version, got.Version)
						}
						if a, found := after[st.name+"/"+op]; found {
							if got := fmt.Sprintf("%s/%s/%s", got.Status, got.PaymentStatus, got.FulfillmentStatus); got != a {
								t.Errorf("%s led to %s, want %s", op, got, a)
							}
						}
					} else {
						status := 400
						if w == "fulfillment_not_found" {
							status = 404
						}
						r.Expect(t, status, w)
						if w == bad {
							var d order.StateData
							if err := json.Unmarshal(r.Data, &d); err != nil || fmt.Sprintf("%s/%s/%s", d.Status, d.PaymentStatus, d.FulfillmentStatus) != st.want {
								t.Errorf("invalid_order_state data %s, want {status, paymentStatus, fulfillmentStatus} of %s", r.Data, st.want)
							}
						}
						var after order.Order
						s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Decode(t, "order", &after)
						if after.Version != before.Version {
							t.Errorf("refused %s changed the order: version %d -> %d", op, before.Version, after.Version)
						}
					}
				})
			}
		}
	})
}
