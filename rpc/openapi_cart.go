package rpc

import (
	"reflect"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/money"
)

// The cart's two answer forms (docs/api.md section 10), which the contract
// fixes: cart.addToCart and cart.removeFromCart answer in the addToCart
// form (amounts are plain numbers in major units, entries are
// cart.AddEntry, the cart carries tax and beforeTax), every other
// operation that returns a cart in the calculateCart form (amounts are
// money objects, entries are cart.CalculateEntry). Both are written from
// one Go type, cart.View, whose amounts (money.Amount, cart.PriceView) and
// items ([]any) take either form; the document shows each form as a
// schema of its own, named with the form ("cart.ViewAddForm",
// "cart.ViewCalculateForm", and so for every type inside that holds an
// amount), by generating the view's types under the form of the result
// that holds them (resultForms).

// cartForm is the form the schemas being generated take: formNone outside
// a cart answer.
type cartForm int

const (
	formNone cartForm = iota
	formAdd
	formCalculate
)

// suffix names a component in the form.
func (f cartForm) suffix() string {
	switch f {
	case formAdd:
		return "AddForm"
	case formCalculate:
		return "CalculateForm"
	}
	return ""
}

// resultForms are the results that hold a cart, with its form.
var resultForms = map[reflect.Type]cartForm{
	reflect.TypeFor[cartAddResult]():      formAdd,
	reflect.TypeFor[cartResult]():         formCalculate,
	reflect.TypeFor[cartReadResult]():     formCalculate,
	reflect.TypeFor[cartShippingResult](): formCalculate,
	reflect.TypeFor[cartOrderResult]():    formCalculate,
}

// formOnly are the view's types that appear in one form only: their
// components need no form in their names.
var formOnly = map[reflect.Type]bool{
	reflect.TypeFor[cart.AddEntry]():       true,
	reflect.TypeFor[cart.CalculateEntry](): true,
	reflect.TypeFor[cart.TaxLineView]():    true,
}

var (
	viewType      = reflect.TypeFor[cart.View]()
	amountType    = reflect.TypeFor[money.Amount]()
	priceViewType = reflect.TypeFor[cart.PriceView]()
)

// formDependent reports whether the schema of t differs between the two
// forms: t is an amount, the view, or holds one of them.
func formDependent(t reflect.Type) bool {
	return dependsOnForm(t, map[reflect.Type]bool{})
}

func dependsOnForm(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == amountType || t == priceViewType || t == viewType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return dependsOnForm(t.Elem(), seen)
	case reflect.Struct:
		if t == timeType {
			return false
		}
		for _, f := range jsonFields(t) {
			if dependsOnForm(f.sf.Type, seen) {
				return true
			}
		}
	}
	return false
}

// formSchema is the schema of t in the form being generated, for the
// types whose schema the form decides (the amounts and the view); false
// for the others.
func (g *schemaGen) formSchema(t reflect.Type, m mode) (schema, bool) {
	if g.form == formNone || m == modeIn {
		return nil, false
	}
	switch t {
	case amountType:
		if g.form == formAdd {
			return schema{"type": "number", "description": "In major units of the cart's currency (577.65)."}, true
		}
		return g.of(reflect.TypeFor[money.Money](), m), true
	case priceViewType:
		if g.form == formAdd {
			return schema{"type": "object", "required": []string{"amount", "currency"},
				"description": "A price with its amount in major units (577.65).", "properties": schema{
					"amount": schema{"type": "number"}, "currency": schema{"type": "string"}}}, true
		}
		return g.of(reflect.TypeFor[money.Money](), m), true
	case viewType:
		return g.named(t, m, func() schema { return g.formView(t, m) }), true
	}
	return nil, false
}

// formView is the schema of cart.View in the form: its items the form's
// entries; tax and beforeTax present in the addToCart form only.
func (g *schemaGen) formView(t reflect.Type, m mode) schema {
	s := g.object(t, m)
	props := s["properties"].(schema)
	entry := reflect.TypeFor[cart.CalculateEntry]()
	desc := "A cart in the calculateCart form (docs/api.md section 10): the answer of every cart operation but " +
		"cart.addToCart and cart.removeFromCart. Every computed amount is a money object {amount (minor units), " +
		"currency, precision}; an entry shows its taxes as a list of lines."
	if g.form == formAdd {
		entry = reflect.TypeFor[cart.AddEntry]()
		desc = "A cart in the addToCart form (docs/api.md section 10): the answer of cart.addToCart and " +
			"cart.removeFromCart. Every amount is a plain number in major units (577.65); an entry shows its " +
			"tax, beforeTax and taxDetail, and the cart carries tax and beforeTax besides taxes."
		props["tax"] = nonNull(props["tax"].(schema))
		props["beforeTax"] = nonNull(props["beforeTax"].(schema))
		s["required"] = append(s["required"].([]string), "beforeTax", "tax")
	} else {
		delete(props, "tax")
		delete(props, "beforeTax")
	}
	props["items"] = schema{"type": "array", "items": g.of(entry, m), "description": "The cart's entries."}
	s["description"] = desc
	return s
}
