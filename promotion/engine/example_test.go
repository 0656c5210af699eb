package engine_test

import (
	"encoding/json"
	"fmt"

	"github.com/commercekit/commerce/promotion/engine"
)

// The worked example of docs/api.md section 7: fixed price 10 for the 3
// cheapest units of a category.
func Example() {
	rules, err := engine.Parse(
		json.RawMessage(`{"category":{"id":"fridges","quantity":3,"lowestPrice":true}}`),
		json.RawMessage(`{"category":{"id":"fridges","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`))
	if err != nil {
		panic(err)
	}
	ix := engine.NewIndex([]engine.Promotion{{ID: "p1", Title: "3 fridges at 10", Priority: 100, Rules: rules}})
	cats := engine.Categories{"a": {"fridges"}, "b": {"fridges"}, "c": {"combi", "fridges"}}
	res := ix.Evaluate([]engine.Entry{
		{ID: "A", ProductID: "a", Quantity: 1, UnitPrice: 57765},
		{ID: "B", ProductID: "b", Quantity: 2, UnitPrice: 32147},
		{ID: "C", ProductID: "c", Quantity: 2, UnitPrice: 46900},
	}, 2, cats)
	for _, it := range res.ItemDiscounts {
		for _, d := range it.Discounts {
			fmt.Printf("%s: %d x %d off %d\n", it.ID, d.Quantity, d.Discount, d.UnitPrice)
		}
	}
	almost, _ := json.Marshal(res.AlmostFulfilled)
	fmt.Println(string(almost))
	// Output:
	// B: 2 x 31147 off 32147
	// C: 1 x 45900 off 46900
	// [{"id":"p1","data":[{"collectedQuantity":2,"promoQuantity":3,"threshold":0.6666666666666666,"value":0.6666666666666666,"type":"CATEGORY","code":"fridges","items":[{"itemId":"C","quantityToUse":1},{"itemId":"A","quantityToUse":1}]}]}]
}
