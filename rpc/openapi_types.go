package rpc

import (
	"encoding/json"
	"reflect"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
	"github.com/commercekit/commerce/tax"
)

// fieldRules constrains the argument fields of types that carry no
// `openapi` struct tag, by type and JSON name, in the tag's syntax
// ("required", "enum=A|B", "min=1", "max=1000", "format=email"). New
// types may use the tag instead:
//
//	Email string `json:"email" openapi:"required,format=email"`
//
// The services check these rules themselves; the document only states them.
var fieldRules = map[reflect.Type]map[string]string{
	reflect.TypeFor[commerce.PageArgs](): {"limit": "min=1,max=1000", "skip": "min=0"},

	reflect.TypeFor[catalog.CreateProductInput](): {"sku": "required", "status": "required", "title": "required",
		"categories": "required", "stockStatus": "required"},
	reflect.TypeFor[catalog.ProductFields]():          {"status": "enum=" + catalog.StatusOnline + "|" + catalog.StatusDraft},
	reflect.TypeFor[catalog.UpdateProductInput]():     {"id": "required"},
	reflect.TypeFor[catalog.CategoryFields]():         {},
	reflect.TypeFor[catalog.UpdateCategoryInput]():    {"id": "required"},
	reflect.TypeFor[catalog.RemoveInput]():            {"id": "required"},
	reflect.TypeFor[catalog.ProductInfoInput]():       {"id": "required"},
	reflect.TypeFor[catalog.CategoryInfoInput]():      {"id": "required"},
	reflect.TypeFor[catalog.ClassificationDefInput](): {"type": "enum=STRING|NUMBER|BOOLEAN"},
	reflect.TypeFor[catalog.PriceInput]():             {"customerType": "enum=VIP|B2B|B2C"},

	reflect.TypeFor[promotion.UpdateInput](): {"id": "required"},
	reflect.TypeFor[promotionIDArgs]():       {"id": "required"},

	reflect.TypeFor[tax.UpdateInput](): {"id": "required"},
	reflect.TypeFor[taxIDArgs]():       {"id": "required"},

	reflect.TypeFor[stock.CreateInput](): {"productId": "required", "warehouseId": "required", "quantity": "required,min=0"},
	reflect.TypeFor[stock.UpdateInput](): {"productId": "required", "warehouseId": "required", "quantity": "required,min=0"},
	reflect.TypeFor[stock.InfoInput]():   {"productId": "required", "warehouseId": "required"},

	reflect.TypeFor[cart.View]():                 {"status": "enum=" + cart.StatusActive + "|" + cart.StatusCheckedOut + "|" + cart.StatusExpired},
	reflect.TypeFor[cart.AddInput]():             {"cartId": "required", "items": "required"},
	reflect.TypeFor[cart.AddItem]():              {"productId": "required"},
	reflect.TypeFor[cart.RemoveInput]():          {"cartId": "required", "itemId": "required"},
	reflect.TypeFor[cart.CartInput]():            {"cartId": "required"},
	reflect.TypeFor[cart.ShippingAddressInput](): {"cartId": "required"},
	reflect.TypeFor[cart.BillingAddressInput]():  {"cartId": "required"},
	reflect.TypeFor[cart.ShippingMethodInput]():  {"cartId": "required"},
	reflect.TypeFor[cart.CheckoutInput]():        {"cartId": "required"},
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
				"description": "A price: {amount, currency} with a plain amount in major units, or a money object.",
				"anyOf": []any{
					schema{"type": "object", "required": []string{"amount", "currency"}, "properties": schema{
						"amount": schema{"type": "number"}, "currency": schema{"type": "string"}}},
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
			return s
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
		reflect.TypeFor[cart.AddressArg](): func(g *schemaGen, m mode) schema {
			return schema{
				"description": "An address object, or the id of one of the customer's addresses.",
				"anyOf":       []any{g.of(reflect.TypeFor[cart.Address](), m), schema{"type": "string"}},
			}
		},
		reflect.TypeFor[cart.MethodRef](): func(*schemaGen, mode) schema {
			return schema{
				"description": "A shipping method id, or a method object with its id.",
				"anyOf": []any{schema{"type": "string"}, schema{"type": "object", "required": []string{"id"},
					"properties": schema{"id": schema{"type": "string"}}}},
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
