package app

import (
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
	"github.com/commercekit/commerce/transfer"
)

// areas registers every area's operations, in dependency order; each area
// adds its line here.
var areas = []func(a *App) error{
	func(a *App) error { rpc.RegisterEvents(a.srv, a.db); return nil },
	func(a *App) error {
		a.Catalog = catalog.NewService(sqldb.NewCatalogStore(a.db), a.viewed, a.now)
		a.Catalog.Locales = a.opts.Locales
		rpc.RegisterCatalog(a.srv, a.Catalog)
		return nil
	},
	mediaArea,
	func(a *App) error {
		a.PriceLists = pricelist.NewService(sqldb.NewPriceListStore(a.db), a.Catalog.Products, a.now)
		a.Catalog.PriceLists = a.PriceLists
		rpc.RegisterPriceLists(a.srv, a.PriceLists)
		return nil
	},
	func(a *App) error {
		a.Stock = stock.NewService(sqldb.NewStockStore(a.db), a.now, a.opts.ReservationTTL)
		rpc.RegisterStock(a.srv, a.Stock)
		return nil
	},
	func(a *App) error {
		a.Tax = tax.NewService(sqldb.NewTaxStore(a.db), taxProducts(a), a.now)
		rpc.RegisterTax(a.srv, a.Tax)
		return nil
	},
	func(a *App) error {
		a.Shipping = shipping.NewService(sqldb.NewShippingStore(a.db), a.now)
		rpc.RegisterShipping(a.srv, a.Shipping)
		return nil
	},
	func(a *App) error {
		a.Promotion = promotion.NewService(sqldb.NewPromotionStore(a.db), a.Catalog, a.now)
		rpc.RegisterPromotion(a.srv, a.Promotion)
		return nil
	},
	func(a *App) (err error) {
		a.Payments, err = payments(a.opts)
		return err
	},
	func(a *App) error {
		a.Order = order.NewService(sqldb.NewOrderStore(a.db), a.Payments, a.now)
		a.Order.Logger = a.logger
		a.Order.ReturnWindow = a.opts.ReturnWindow
		a.Notifications = a.Order
		rpc.RegisterOrder(a.srv, a.Order)
		return nil
	},
	mailArea,
	func(a *App) error {
		a.Transfer = transfer.NewService(sqldb.NewTransferStore(a.db), a.Catalog, a.now)
		a.Transfer.Logger = a.logger
		rpc.RegisterTransfer(a.srv, a.Transfer)
		return nil
	},
	func(a *App) error {
		a.Customer = customer.NewService(sqldb.NewCustomerStore(a.db), a.opts.Keys, a.now,
			customer.Options{AccessTTL: a.opts.AccessTTL, RefreshTTL: a.opts.RefreshTTL, Mail: a.Mail, Locales: a.opts.Locales})
		a.Customer.SetExporter(customer.ExportReturns, returnsExport{a.Order})
		if a.Mail != nil {
			a.Customer.SetExporter(customer.ExportEmails, mailExport{a.Mail})
		}
		rpc.RegisterCustomer(a.srv, a.Customer)
		rpc.RegisterGroups(a.srv, a.Customer)
		return nil
	},
	func(a *App) error {
		a.Cart = cart.NewService(sqldb.NewCartStore(a.db), cart.Deps{
			Catalog: a.Catalog, Promotions: a.Promotion, Taxes: a.Tax, Shipping: a.Shipping, Stock: a.Stock,
			Payments: a.Payments, Orders: a.Order, Customers: a.Customer, PriceLists: a.PriceLists,
		}, a.now, a.opts.CartTTL)
		a.Cart.Logger = a.logger
		a.Cart.Locales = a.opts.Locales
		a.Order.Exchanges = a.Cart // a return's exchange is a cart (docs/api.md section 24)
		rpc.RegisterCart(a.srv, a.Cart)
		rpc.RegisterReturns(a.srv, a.Order, a.Cart)
		return nil
	},
	func(a *App) error {
		srch := search.NewService(sqldb.NewSearchStore(a.db), a.Catalog.Products)
		srch.Locales = a.opts.Locales
		rpc.RegisterSearch(a.srv, srch)
		return nil
	},
	webhooks,
}
