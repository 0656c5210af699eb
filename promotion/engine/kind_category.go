package engine

// The `category` rule: quantity units of products in the category with the
// id or in any category below it (the catalog gives each product's
// categories with their ancestors). A lowestPrice category rule in `if`
// makes `then` pick the cheapest units first.
func init() {
	register(&kind{
		name:       "category",
		at:         anywhere,
		props:      unitProps,
		almostType: "CATEGORY",
		ids: func(buf []string, e *Entry, cats Categories) []string {
			return append(buf, cats[e.ProductID]...)
		},
		lowestPriceOrdersThen: true,
		usesCategories:        true,
	})
}
