package cart

import (
	"github.com/commercekit/commerce/catalog"
)

// Price is a product price as price selection sees it: the catalog's,
// with Amount in minor units of Currency, Country, CustomerType and
// Channel empty when the price is not restricted by them, and ValidFrom
// and ValidUntil nil when it has no validity period.
type Price = catalog.Price

// Shopper is what a price is selected for: the cart's currency and
// channel, the customer's country and tags (customer types such as VIP)
// and groups. Prices are selected by catalog.SelectPrice, the one
// selection of the service (price lists, then the product's prices).
type Shopper = catalog.Shopper
