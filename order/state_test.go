package order_test

import (
	"fmt"
	"testing"

	"github.com/commercekit/commerce/internal/testdb"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
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
	states := []struct {
		name  string
		steps []setup
		want  string // the state reached: status/paymentStatus/fulfillmentStatus
	}{
		{"placed", nil, "PLACED/AUTHORIZED/NOT_SHIPPED"},
		{"paid", []setup{capture}, "PLACED/PAID/NOT_SHIPPED"},
		{"partially shipped", []setup{fulfillOne}, "PLACED/AUTHORIZED/PARTIALLY_SHIPPED"},
		{"shipped and paid", []setup{capture, fulfillAll}, "PLACED/PAID/SHIPPED"},
		{"completed", []setup{capture, fulfillAll, deliverAll}, "COMPLETED/PAID/DELIVERED"},
		{"cancelled", []setup{func(s *shop, o *order.Order) { s.op("cancel", map[string]any{"id": o.ID}) }}, "CANCELLED/VOIDED/NOT_SHIPPED"},
		{"refunded", []setup{capture, func(s *shop, o *order.Order) {
			s.op("refund", map[string]any{"id": o.ID, "amount": 225})
		}}, "PLACED/REFUNDED/NOT_SHIPPED"},
	}
	const ok = ""
	ops := []string{"capture", "fulfill", "deliver", "cancel", "refund"}
	// want[state][op]: "" allowed, else the error code.
	want := map[string][]string{
		"placed":            {ok, ok, "fulfillment_not_found", ok, "invalid_order_state"},
		"paid":              {"invalid_order_state", ok, "fulfillment_not_found", ok, ok},
		"partially shipped": {ok, ok, ok, "invalid_order_state", "invalid_order_state"},
		"shipped and paid":  {"invalid_order_state", "invalid_order_state", ok, "invalid_order_state", ok},
		"completed":         {"invalid_order_state", "invalid_order_state", "invalid_order_state", "invalid_order_state", ok},
		"cancelled":         {"invalid_order_state", "invalid_order_state", "fulfillment_not_found", "invalid_order_state", "invalid_order_state"},
		"refunded":          {"invalid_order_state", ok, "fulfillment_not_found", ok, "refund_exceeds_captured"},
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
						r.Must(t)
					} else {
						status := 400
						if w == "fulfillment_not_found" {
							status = 404
						}
						r.Expect(t, status, w)
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
