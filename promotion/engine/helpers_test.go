package engine

import (
	"encoding/json"
	"testing"
)

// promo is a promotion in test tables: rules as JSON, title "T <id>".
type promo struct {
	id       string
	priority int
	ifJSON   string
	thenJSON string
}

// newIndex parses the promotions, giving them creation order as listed.
func newIndex(t testing.TB, ps ...promo) *Index {
	t.Helper()
	return NewIndex(promotions(t, ps...))
}

// promotions parses the promotions, giving them creation order as listed.
func promotions(t testing.TB, ps ...promo) []Promotion {
	t.Helper()
	var list []Promotion
	for i, p := range ps {
		r, err := Parse(json.RawMessage(p.ifJSON), json.RawMessage(p.thenJSON))
		if err != nil {
			t.Fatalf("promotion %s: %v", p.id, err)
		}
		list = append(list, Promotion{ID: p.id, Title: "T " + p.id, Priority: p.priority, Seq: int64(i), Rules: r})
	}
	return list
}

func item(id string, ds ...AppliedDiscount) ItemDiscount {
	return ItemDiscount{ID: id, Discounts: ds}
}

func disc(promoID string, qty int, price, discount int64) AppliedDiscount {
	return AppliedDiscount{PromotionID: promoID, PromotionTitle: "T " + promoID, Quantity: qty, UnitPrice: price, Discount: discount}
}

func af(promoID string, leaves ...AlmostLeaf) AlmostFulfilled {
	return AlmostFulfilled{PromotionID: promoID, Data: leaves}
}

// leaf is an almost fulfilled leaf with the default threshold.
func leaf(typ, code string, collected, qty int, items ...ItemUse) AlmostLeaf {
	return leafT(typ, code, collected, qty, float64(qty-1)/float64(qty), items...)
}

func leafT(typ, code string, collected, qty int, threshold float64, items ...ItemUse) AlmostLeaf {
	return AlmostLeaf{
		CollectedQuantity: collected,
		PromoQuantity:     qty,
		Threshold:         threshold,
		Value:             float64(collected) / float64(qty),
		Type:              typ,
		Code:              code,
		Items:             items,
	}
}

func use(id string, n int) ItemUse { return ItemUse{ItemID: id, QuantityToUse: n} }

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
