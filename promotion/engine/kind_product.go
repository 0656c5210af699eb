package engine

// The `product` rule: quantity units of the product with the id.
func init() {
	register(&kind{
		name:       "product",
		at:         anywhere,
		props:      unitProps,
		almostType: "PRODUCT",
		ids: func(buf []string, e *Entry, _ Categories) []string {
			return append(buf, e.ProductID)
		},
	})
}
