// Package enginetest generates promotion rules for tests and benchmarks of
// the engine and of the promotion service.
package enginetest

import "fmt"

// Rules returns the `if` and `then` JSON of the i-th promotion of a mixed
// set cycling through the nine types of PROMOTION-EXAMPLES.md (bundle,
// buy X get Y, fixed price, multi-buy, perfect partner, partner bundle,
// any of two products, percentage, cheapest of 3). prod and cat return the
// product and category ids to use.
func Rules(i int, prod, cat func() string) (ifJSON, thenJSON string) {
	leaf := func(kind, id string, q int, extra string) string {
		return fmt.Sprintf(`{%q:{"id":%q,"quantity":%d%s}}`, kind, id, q, extra)
	}
	d := func(rate int, flag string) string {
		if flag == "" {
			return fmt.Sprintf(`,"discount":{"rate":%d}`, rate)
		}
		return fmt.Sprintf(`,"discount":{"rate":%d,%q:true}`, rate, flag)
	}
	switch i % 9 {
	case 0: // bundle
		a, b := prod(), prod()
		return `{"all":[` + leaf("product", a, 1, "") + `,` + leaf("product", b, 1, "") + `]}`,
			`{"all":[` + leaf("product", a, 1, d(50, "isFixedPrice")) + `,` + leaf("product", b, 1, d(100, "isPercentage")) + `]}`
	case 1: // buy X get Y
		c := cat()
		return leaf("category", c, 2, ""), leaf("category", c, 1, d(100, "isPercentage"))
	case 2: // fixed price
		c := cat()
		return leaf("category", c, 1, ""), leaf("category", c, 1, d(5, "isFixedPrice"))
	case 3: // multi-buy
		c := cat()
		return leaf("category", c, 3, ""),
			`{"all":[` + leaf("category", c, 1, d(50, "isFixedPrice")) + `,` + leaf("category", c, 2, d(100, "isPercentage")) + `]}`
	case 4: // perfect partner
		return leaf("category", cat(), 1, ""), leaf("category", cat(), 1, d(10, "isFixedPrice"))
	case 5: // partner bundle
		p, c := prod(), cat()
		return `{"all":[` + leaf("product", p, 1, "") + `,` + leaf("category", c, 3, "") + `]}`,
			`{"all":[` + leaf("product", p, 1, d(200, "isFixedPrice")) + `,` + leaf("category", c, 3, d(100, "isPercentage")) + `]}`
	case 6: // any of two products
		a, b := prod(), prod()
		return `{"any":[` + leaf("product", a, 2, "") + `,` + leaf("product", b, 1, "") + `]}`, leaf("product", b, 1, d(3, ""))
	case 7: // percentage
		c := cat()
		return leaf("category", c, 1, ""), leaf("category", c, 1, d(20, "isPercentage"))
	default: // cheapest of 3
		c := cat()
		return leaf("category", c, 3, `,"lowestPrice":true`), leaf("category", c, 3, d(10, "isFixedPrice"))
	}
}
