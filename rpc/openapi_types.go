package rpc

import (
	"encoding/json"
	"reflect"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
)

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
