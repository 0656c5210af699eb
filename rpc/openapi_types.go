package rpc

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
	"github.com/commercekit/commerce/webhook"
)

// fieldRules constrains the argument fields of types that carry no
// `openapi` struct tag, by type and JSON name, in the tag's syntax
// ("required", "enum=A|B", "min=1", "max=1000", "format=email",
// "pattern=currency" (a name in patterns), "minItems=1"). New types may
// use the tag instead:
//
//	Email string `json:"email" openapi:"required,format=email"`
//
// A type's entry also covers the fields promoted to it from the structs it
// embeds (catalog.CreateProductInput's sku is catalog.ProductFields'), and
// adds to their own rules.
//
// The services check these rules themselves; the document only states
// them, and states no more than they enforce: a request the document
// rejects but the service accepts fails the API tests (testkit/apitest),
// and TestRequiredArgumentsDocumented checks that every argument an
// operation reports as required when it is missing is required here.
var fieldRules = map[reflect.Type]map[string]string{
	reflect.TypeFor[commerce.PageArgs](): {"limit": "min=1,max=1000", "skip": "min=0"},

	reflect.TypeFor[catalog.CreateProductInput](): {"sku": "required", "status": "required", "title": "required",
		"categories": "required", "stockStatus": "required"},
	reflect.TypeFor[catalog.ProductFields]():          {"status": "enum=" + catalog.StatusOnline + "|" + catalog.StatusDraft},
	reflect.TypeFor[catalog.UpdateProductInput]():     {"id": "required"},
	reflect.TypeFor[catalog.CreateCategoryInput]():    {"title": "required", "slug": "required"}, // parent defaults to ROOT (docs/api.md section 6)
	reflect.TypeFor[catalog.UpdateCategoryInput]():    {"id": "required"},
	reflect.TypeFor[catalog.RemoveInput]():            {"id": "required"},
	reflect.TypeFor[catalog.ProductInfoInput]():       {"id": "required"},
	reflect.TypeFor[catalog.CategoryInfoInput]():      {"id": "required"},
	reflect.TypeFor[catalog.ClassificationDefInput](): {"type": "enum=STRING|NUMBER|BOOLEAN"},
	reflect.TypeFor[catalog.PriceInput](): {"customerType": "enum=VIP|B2B|B2C", "amount": "required",
		"currency": "required,pattern=currency", "country": "pattern=country-or-empty"},

	reflect.TypeFor[pricelist.CreateInput](): {"code": "required", "currency": "required,pattern=currency",
		"status": "enum=" + pricelist.StatusActive + "|" + pricelist.StatusDraft, "country": "pattern=country-or-empty"},
	reflect.TypeFor[pricelist.UpdateInput](): {"id": "required", "status": "enum=" + pricelist.StatusActive + "|" + pricelist.StatusDraft,
		"currency": "pattern=currency", "country": "pattern=country-or-empty"},
	reflect.TypeFor[pricelist.IDInput]():       {"id": "required"},
	reflect.TypeFor[pricelist.PriceInput]():    {"productId": "required", "amount": "required", "minQuantity": "min=1"},
	reflect.TypeFor[pricelist.PriceKey]():      {"productId": "required", "minQuantity": "min=1"},
	reflect.TypeFor[customer.GroupInput]():     {"code": "required"},
	reflect.TypeFor[customer.GroupCodeInput](): {"code": "required"},

	reflect.TypeFor[promotion.UpdateInput](): {"id": "required"},
	reflect.TypeFor[promotionIDArgs]():       {"id": "required"},

	reflect.TypeFor[tax.CreateInput]():    {"code": "required", "class": "required", "title": "required", "rate": "required"},
	reflect.TypeFor[tax.UpdateInput]():    {"id": "required"},
	reflect.TypeFor[taxIDArgs]():          {"id": "required"},
	reflect.TypeFor[tax.CartTaxesInput](): {"cartId": "required", "items": "required", "currency": "pattern=currency"},

	reflect.TypeFor[shipping.CreateInput]():   {"title": "required", "rates": "required,minItems=1"},
	reflect.TypeFor[shipping.GroupInput]():    {"locations": "required,minItems=1", "rates": "required,minItems=1"},
	reflect.TypeFor[shipping.LocationInput](): {"country": "required,pattern=country"},
	reflect.TypeFor[shipping.RateInput]():     {"currency": "required,pattern=currency", "amount": "required"},

	reflect.TypeFor[search.SearchInput](): {"currency": "pattern=currency"},

	reflect.TypeFor[stock.CreateInput](): {"productId": "required", "warehouseId": "required", "quantity": "required,min=0"},
	reflect.TypeFor[stock.UpdateInput](): {"productId": "required", "warehouseId": "required", "quantity": "required,min=0"},
	reflect.TypeFor[stock.InfoInput]():   {"productId": "required", "warehouseId": "required"},

	reflect.TypeFor[cart.View]():                 {"status": "enum=" + cart.StatusActive + "|" + cart.StatusCheckedOut + "|" + cart.StatusExpired + "|" + cart.StatusDraft + "|" + cart.StatusExchange},
	reflect.TypeFor[cart.CreateInput]():          {"currency": "pattern=currency", "country": "pattern=country"},
	reflect.TypeFor[cart.AddInput]():             {"cartId": "required", "items": "required,minItems=1"},
	reflect.TypeFor[cart.AddItem]():              {"productId": "required", "warehouseId": "required", "quantity": "required,min=1"},
	reflect.TypeFor[cart.RemoveInput]():          {"cartId": "required", "itemId": "required", "quantity": "required,min=1"},
	reflect.TypeFor[cart.CartInput]():            {"cartId": "required"},
	reflect.TypeFor[cart.ShippingAddressInput](): {"cartId": "required", "shippingAddress": "required"},
	reflect.TypeFor[cart.BillingAddressInput]():  {"cartId": "required"},
	reflect.TypeFor[cart.ShippingMethodInput]():  {"cartId": "required", "methodId": "required"},
	reflect.TypeFor[cart.CheckoutInput]():        {"cartId": "required", "paymentId": "required", "paymentData": "required"},
	reflect.TypeFor[cart.CouponInput]():          {"cartId": "required", "code": "required"},
	reflect.TypeFor[cart.Address](): {"firstName": "required", "address_1": "required", "postCode": "required",
		"city": "required", "state": "required", "country": "required,pattern=country"},

	reflect.TypeFor[promotion.CreateInput](): {"title": "required", "class": "required,enum=" + promotion.ClassDefault,
		"active": "required", "priority": "required", "if": "required", "then": "required"},
	reflect.TypeFor[promotion.CartInput](): {"cartId": "required", "items": "required", "currency": "pattern=currency"},
	reflect.TypeFor[promotion.Coupon](): {"startDate": "format=date-time", "endDate": "format=date-time",
		"usageLimit": "min=1", "usageLimitPerCustomer": "min=1"},

	reflect.TypeFor[order.InfoInput](): {"id": "required"},
	reflect.TypeFor[order.ListInput](): {"status": "enum=" + strings.Join(order.Statuses, "|"),
		"paymentStatus":     "enum=" + strings.Join(order.PaymentStatuses, "|"),
		"fulfillmentStatus": "enum=" + strings.Join(order.FulfillmentStatuses, "|"),
		"createdFrom":       "format=date-time", "createdTo": "format=date-time"},
	reflect.TypeFor[order.CaptureInput](): {"id": "required"},
	reflect.TypeFor[order.ItemQuantity](): {"itemId": "required", "quantity": "required,min=1"},
	reflect.TypeFor[order.FulfillInput](): {"id": "required"},
	reflect.TypeFor[order.DeliverInput](): {"id": "required", "fulfillmentId": "required"},
	reflect.TypeFor[order.CancelInput]():  {"id": "required"},
	reflect.TypeFor[order.RefundInput]():  {"id": "required", "amount": "required"},
	reflect.TypeFor[order.Order](): {"status": "enum=" + strings.Join(order.Statuses, "|"),
		"paymentStatus":     "enum=" + strings.Join(order.PaymentStatuses, "|"),
		"fulfillmentStatus": "enum=" + strings.Join(order.FulfillmentStatuses, "|"),
		"source":            "enum=" + order.SourceStorefront + "|" + order.SourceDraft},
	reflect.TypeFor[order.Payment](): {"status": "enum=" + order.PayAuthorized + "|" + order.PayCaptured + "|" + order.PayVoided + "|" +
		order.PayRefunded + "|" + order.PayPartiallyRefunded + "|" + order.PayFailed},
	reflect.TypeFor[order.Fulfillment]():       {"status": "enum=" + order.FulfillmentShipped + "|" + order.FulfillmentDelivered},
	reflect.TypeFor[order.RequestInput]():      {"orderId": "required", "items": "required"},
	reflect.TypeFor[order.ReturnItemInput]():   {"itemId": "required", "quantity": "required,min=1", "reason": "enum=" + strings.Join(order.ReturnReasons, "|")},
	reflect.TypeFor[order.ExchangeInput]():     {"items": "required"},
	reflect.TypeFor[order.ExchangeItemInput](): {"productId": "required", "quantity": "required,min=1", "warehouseId": "required"},
	reflect.TypeFor[order.ReceiveInput]():      {"id": "required"},
	reflect.TypeFor[order.ReceiveItemInput]():  {"itemId": "required", "quantity": "required,min=0"},
	reflect.TypeFor[order.ReturnRefundInput](): {"id": "required"},
	reflect.TypeFor[order.RejectInput]():       {"id": "required"},
	reflect.TypeFor[order.ReturnInput]():       {"id": "required"},
	reflect.TypeFor[order.ReturnListInput]():   {"status": "enum=" + strings.Join(order.ReturnStatuses, "|")},
	reflect.TypeFor[order.Return]():            {"status": "enum=" + strings.Join(order.ReturnStatuses, "|")},
	reflect.TypeFor[order.ReturnItem]():        {"reason": "enum=" + strings.Join(order.ReturnReasons, "|")},
	reflect.TypeFor[cart.CompleteInput]():      {"id": "required", "paymentId": "required", "paymentData": "required"},
	reflect.TypeFor[order.StateData](): {"status": "enum=" + strings.Join(order.Statuses, "|"),
		"paymentStatus":     "enum=" + strings.Join(order.PaymentStatuses, "|"),
		"fulfillmentStatus": "enum=" + strings.Join(order.FulfillmentStatuses, "|")},

	// The email of customer.register is checked as an address (after
	// trimming, lower-casing and NFC), internationalised ones included
	// ("rené@example.com"), hence idn-email rather than email, which is
	// ASCII only; stored emails are such addresses. auth.login and
	// auth.requestPasswordReset take any string (an unknown one is
	// invalid_credentials, or ok): no format.
	reflect.TypeFor[customer.RegisterInput]():      {"email": "required,format=idn-email", "password": "required", "firstName": "required"},
	reflect.TypeFor[customer.Customer]():           {"email": "format=idn-email"},
	reflect.TypeFor[customer.RemoveAddressInput](): {"addressId": "required"},
	reflect.TypeFor[customer.AddAddressInput]():    {"address": "required"},
	reflect.TypeFor[customer.LoginInput]():         {"email": "required", "password": "required"},
	reflect.TypeFor[customer.RefreshInput]():       {"refreshToken": "required"},
	reflect.TypeFor[customer.RequestResetInput]():  {"email": "required"},
	reflect.TypeFor[customer.ResetInput]():         {"token": "required", "password": "required"},
	reflect.TypeFor[customer.ClientCreateInput]():  {"name": "required", "scope": "required,enum=" + commerce.ScopeAPI + "|" + commerce.ScopeAdmin},
	reflect.TypeFor[customer.ClientRemoveInput]():  {"id": "required"},
	reflect.TypeFor[customer.Client]():             {"scope": "enum=" + commerce.ScopeAPI + "|" + commerce.ScopeAdmin},

	reflect.TypeFor[webhook.CreateInput]():     {"url": "required,format=uri", "channels": "required"},
	reflect.TypeFor[webhook.UpdateInput]():     {"id": "required", "url": "format=uri"},
	reflect.TypeFor[webhook.InfoInput]():       {"id": "required"},
	reflect.TypeFor[webhook.DeliveriesInput](): {"status": "enum=" + webhook.Pending + "|" + webhook.Delivered + "|" + webhook.Failed},
	reflect.TypeFor[webhook.RedeliverInput]():  {"deliveryId": "required"},
	reflect.TypeFor[webhook.Delivery]():        {"status": "enum=" + webhook.Pending + "|" + webhook.Delivered + "|" + webhook.Failed},

	reflect.TypeFor[mail.ListInput]():    {"status": "enum=" + strings.Join(mail.Statuses, "|"), "template": "enum=" + strings.Join(mail.Templates, "|")},
	reflect.TypeFor[mail.InfoInput]():    {"id": "required"},
	reflect.TypeFor[mail.PreviewInput](): {"template": "required,enum=" + strings.Join(mail.Templates, "|")},
	reflect.TypeFor[mail.Mail]():         {"status": "enum=" + strings.Join(mail.Statuses, "|"), "template": "enum=" + strings.Join(mail.Templates, "|")},
}

// requiredOneOf are the argument types of which one of several fields is
// required (either name of the same argument, docs/api.md section 4): the
// body schema says so with anyOf, the GET's parameters cannot.
var requiredOneOf = map[reflect.Type][]string{
	reflect.TypeFor[cart.InfoInput]():     {"cartId", "id"},
	reflect.TypeFor[shipping.InfoInput](): {"id", "shippingId"},
}

// fieldsForm are the types whose MarshalJSON writes their fields exactly as
// encoding/json would (a faster encoder, checked by their tests): they are
// documented from their fields.
var fieldsForm = map[reflect.Type]bool{
	reflect.TypeFor[cart.View](): true,
}

// overrides are the schemas of types whose JSON form is their own
// (MarshalJSON, UnmarshalJSON), by type; the mode is the use.
var overrides map[reflect.Type]func(g *schemaGen, m mode) schema

func init() { overrides = typeOverrides() }

func typeOverrides() map[reflect.Type]func(g *schemaGen, m mode) schema {
	return map[reflect.Type]func(g *schemaGen, m mode) schema{
		reflect.TypeFor[commerce.StringList](): stringListSchema,
		reflect.TypeFor[json.Number](): func(*schemaGen, mode) schema {
			return schema{"type": "number"}
		},
		reflect.TypeFor[money.Number](): func(*schemaGen, mode) schema {
			return schema{"type": "number"}
		},
		reflect.TypeFor[money.Decimal](): func(*schemaGen, mode) schema {
			return schema{"type": "number"}
		},
		reflect.TypeFor[money.Amount](): func(g *schemaGen, m mode) schema {
			return schema{
				"description": "An amount: a plain number in major units (311.47) or a money object.",
				"anyOf":       []any{schema{"type": "number"}, g.of(reflect.TypeFor[money.Money](), m)},
			}
		},
		reflect.TypeFor[cart.PriceView](): func(g *schemaGen, m mode) schema {
			return schema{
				"description": "A price: {amount, currency} with a plain amount in major units, or a money object; an entry's price also carries priceListId, the price list that gave it (docs/api.md section 26).",
				"anyOf": []any{
					schema{"type": "object", "required": []string{"amount", "currency"}, "properties": schema{
						"amount": schema{"type": "number"}, "currency": schema{"type": "string"},
						"priceListId": schema{"type": "string", "description": "The price list that gave an entry's price."}}},
					g.of(reflect.TypeFor[money.Money](), m),
				},
			}
		},
		reflect.TypeFor[catalog.Literal](): func(*schemaGen, mode) schema {
			return schema{"description": "A JSON value as given (a number, string or boolean)."}
		},
		reflect.TypeFor[catalog.Price](): func(*schemaGen, mode) schema {
			return schema{"type": "object", "required": []string{"id", "amount", "currency"}, "properties": schema{
				"id": schema{"type": "string"}, "amount": schema{"type": "number", "description": "In major units (577.65)."},
				"currency": schema{"type": "string"}, "country": schema{"type": "string"},
				"customerType": schema{"type": "string", "enum": []any{"VIP", "B2B", "B2C"}}, "channel": schema{"type": "string"},
				"validFrom": schema{"type": "string", "format": "date-time"}, "validUntil": schema{"type": "string", "format": "date-time"},
			}}
		},
		reflect.TypeFor[catalog.Product](): func(g *schemaGen, m mode) schema {
			type alias catalog.Product
			s := g.object(reflect.TypeFor[alias](), m)
			s["properties"].(schema)["variants"] = schema{"type": "array", "items": schema{"type": "string"},
				"description": "The ids of the variants of a Base product (Base products only)."}
			s["properties"].(schema)["status"] = schema{"type": "string", "enum": []any{catalog.StatusOnline, catalog.StatusDraft}}
			s["properties"].(schema)["price"] = schema{"description": "With currency: the unit price the token gets for quantity in a new cart (null: none).",
				"anyOf": []any{g.of(reflect.TypeFor[catalog.ShownPrice](), m), schema{"type": "null"}}}
			return s
		},
		reflect.TypeFor[pricelist.PriceList](): func(g *schemaGen, m mode) schema {
			return g.object(reflect.TypeFor[pricelist.View](), m)
		},
		reflect.TypeFor[catalog.Category](): func(g *schemaGen, m mode) schema {
			type alias catalog.Category
			s := g.object(reflect.TypeFor[alias](), m)
			s["properties"].(schema)["children"] = schema{"type": "array", "items": g.of(reflect.TypeFor[catalog.Category](), m),
				"description": "With withChildren: the child categories (recursively with recursive)."}
			return s
		},
		reflect.TypeFor[stock.Stock](): func(g *schemaGen, m mode) schema {
			type alias stock.Stock
			s := g.object(reflect.TypeFor[alias](), m)
			s["properties"].(schema)["available"] = schema{"type": "integer", "description": "quantity - reserved"}
			if m == modeOut {
				s["required"] = append(s["required"].([]string), "available")
			}
			return s
		},
		reflect.TypeFor[shipping.Rate](): func(*schemaGen, mode) schema {
			return schema{"type": "object", "required": []string{"currency", "amount"}, "properties": schema{
				"currency": schema{"type": "string"}, "amount": schema{"type": "number", "description": "In major units."}}}
		},
		reflect.TypeFor[cart.Text](): func(*schemaGen, mode) schema {
			return schema{"type": []any{"string", "number"}}
		},
		reflect.TypeFor[cart.BillingAddressArg](): func(g *schemaGen, m mode) schema {
			return schema{
				"description": "An address object, or the string SAMEASSHIPPING.",
				"anyOf":       []any{g.of(reflect.TypeFor[cart.AddressArg](), m), schema{"const": cart.SameAsShipping}},
			}
		},
		reflect.TypeFor[cart.MethodRef](): func(*schemaGen, mode) schema {
			return schema{
				"description": "A shipping method id, or a method object with its id.",
				"anyOf": []any{schema{"type": "string"}, schema{"type": "object", "required": []string{"id"},
					"properties": schema{"id": schema{"type": "string", "description": "The shipping method's id."}}}},
			}
		},
		reflect.TypeFor[promotion.Price](): func(g *schemaGen, m mode) schema {
			return schema{
				"description": "A price: a plain number (v1) or a money object (v2).",
				"anyOf":       []any{schema{"type": "number"}, g.of(reflect.TypeFor[money.Money](), modeOut)},
			}
		},
		reflect.TypeFor[engine.Rule](): func(*schemaGen, mode) schema {
			return schema{"description": "A rule of the promotion language (JSON)."}
		},
	}
}
