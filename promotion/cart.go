package promotion

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion/engine"
)

// CartRequest is the argument of promotion.cartPromotions.
//
// The form is decided by the shape of items[].price, whatever the path's
// version (CONTRACT.md section 2): a plain number is the v1 form, a money
// object {amount, currency, precision} the v2 form; every item must use the
// same form, and the response uses it too.
//
// In the v1 form prices are in major units of Currency (an optional
// argument SPEC.md does not have, default USD; it gives the precision the
// prices are read with and the discounts computed in); more decimals than
// the currency has is validation_error. In the v2 form amounts are integers
// in minor units, precision must equal the currency's ISO 4217 minor unit,
// and every item must have the same currency (Currency, when given too,
// must be it).
type CartRequest struct {
	// CartID is a reference the caller chooses (required, not checked
	// against the carts).
	CartID string     `json:"cartId"`
	Items  []CartItem `json:"items"`
	// Currency is the currency of v1 prices (default DefaultCurrency).
	Currency *string `json:"currency"`
}

// CartItem is an entry of a cartPromotions request: Quantity (default 1,
// at most MaxQuantity) units of a product at a unit price. IDs must be
// distinct within a request, since the response names entries by id.
type CartItem struct {
	ID        string          `json:"id"`
	ProductID string          `json:"productId"`
	Quantity  *int            `json:"quantity"`
	Price     json.RawMessage `json:"price"`
}

// CartResult is the response of promotion.cartPromotions:
// {almostFulfilledPromos, itemDiscounts}, both always lists.
type CartResult struct {
	AlmostFulfilledPromos []engine.AlmostFulfilled `json:"almostFulfilledPromos"`
	ItemDiscounts         []ItemDiscount           `json:"itemDiscounts"`
}

// ItemDiscount is the discounts of one entry, in the order applied.
type ItemDiscount struct {
	ID        string     `json:"id"`
	Discounts []Discount `json:"discounts"`
}

// Discount is Quantity units of an entry discounted by one promotion:
// Price is the unit price, Discount the per-unit discount.
type Discount struct {
	PromotionID    string `json:"promotionId"`
	PromotionTitle string `json:"promotionTitle"`
	Quantity       int    `json:"quantity"`
	Price          Amount `json:"price"`
	Discount       Amount `json:"discount"`
}

// Amount is an amount in the v1 form (Plain) or the v2 form.
type Amount = money.Amount

// form of a cartPromotions request.
type form uint8

const (
	formUnknown form = iota
	formPlain        // v1: price is a number in major units
	formMoney        // v2: price is a money object
)

// CartPromotions computes the promotions that apply to the request's
// entries (see CartRequest for the two forms). Bad input is one
// validation_error listing every problem.
func (s *Service) CartPromotions(ctx context.Context, req CartRequest) (CartResult, error) {
	entries, cur, err := parseCart(req)
	if err != nil {
		return CartResult{}, err
	}
	res, err := s.Evaluate(ctx, entries, cur.Precision)
	if err != nil {
		return CartResult{}, err
	}
	out := CartResult{AlmostFulfilledPromos: res.AlmostFulfilled, ItemDiscounts: make([]ItemDiscount, len(res.ItemDiscounts))}
	amount := func(v int64) Amount {
		return Amount{Money: money.Money{Amount: v, Currency: cur.Currency, Precision: cur.Precision}, Plain: cur.Plain}
	}
	for i, it := range res.ItemDiscounts {
		ds := make([]Discount, len(it.Discounts))
		for j, d := range it.Discounts {
			ds[j] = Discount{
				PromotionID:    d.PromotionID,
				PromotionTitle: d.PromotionTitle,
				Quantity:       d.Quantity,
				Price:          amount(d.UnitPrice),
				Discount:       amount(d.Discount),
			}
		}
		out.ItemDiscounts[i] = ItemDiscount{ID: it.ID, Discounts: ds}
	}
	return out, nil
}

// cartCurrency is the currency of a request and its form.
type cartCurrency struct {
	Currency  string
	Precision int
	Plain     bool
}

// parseCart validates a request and returns its entries in minor units.
func parseCart(req CartRequest) ([]engine.Entry, cartCurrency, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if req.CartID == "" {
		add("cartId: required")
	}
	switch {
	case req.Items == nil:
		add("items: required")
	case len(req.Items) > MaxEntries:
		// Checked before any per-item work, which it bounds.
		add("items: at most %d entries", MaxEntries)
		return nil, cartCurrency{}, commerce.Invalid(problems...)
	}

	// The form is the shape of the first well-formed price. Money objects
	// are decoded once, here.
	f := formUnknown
	forms := make([]form, len(req.Items))
	objects := make([]moneyObject, len(req.Items))
	for i, it := range req.Items {
		forms[i] = priceForm(it.Price)
		if f == formUnknown {
			f = forms[i]
		}
		if forms[i] == formMoney {
			objects[i] = decodeMoney(it.Price)
		}
	}
	cur := cartCurrency{Currency: DefaultCurrency, Plain: f != formMoney}
	if req.Currency != nil {
		cur.Currency = *req.Currency
	}
	curOK := true
	if p, err := money.Precision(cur.Currency); err != nil {
		if req.Currency != nil {
			add("currency: %q is not an ISO 4217 currency code", cur.Currency)
		}
		curOK = false
	} else {
		cur.Precision = p
	}
	if f == formMoney {
		// The items' currency; the first valid one, which every item must
		// share.
		cur.Currency, curOK = "", true
		for _, m := range objects {
			if p, ok := m.precisionOf(); ok {
				cur.Currency, cur.Precision = m.currency, p
				break
			}
		}
		if req.Currency != nil && cur.Currency != "" && *req.Currency != cur.Currency {
			add("currency: %s differs from the items' currency %s", *req.Currency, cur.Currency)
		}
	}

	entries := make([]engine.Entry, 0, len(req.Items))
	seen := make(map[string]int, len(req.Items))
	for i, it := range req.Items {
		path := itemPath(i)
		e := engine.Entry{ID: it.ID, ProductID: it.ProductID, Quantity: 1}
		if it.ID == "" {
			add("%s.id: required", path)
		} else if j, dup := seen[it.ID]; dup {
			add("%s.id: duplicate of items[%d].id", path, j)
		} else {
			seen[it.ID] = i
		}
		if it.ProductID == "" {
			add("%s.productId: required", path)
		}
		if it.Quantity != nil {
			e.Quantity = *it.Quantity
			switch {
			case e.Quantity < 1:
				add("%s.quantity: must be a positive integer", path)
			case e.Quantity > MaxQuantity:
				add("%s.quantity: must be at most %d", path, MaxQuantity)
			}
		}
		pf := forms[i]
		switch {
		case isNull(it.Price):
			add("%s.price: required", path)
		case pf == formUnknown:
			add("%s.price: must be a number or a money object {amount, currency, precision}", path)
		case pf != f:
			add("%s.price: must have the same form as the other items' prices (%s)", path, formName(f))
		case pf == formPlain:
			if !curOK {
				break // the currency is reported once
			}
			v, err := money.ParseMajor(string(bytes.TrimSpace(it.Price)), cur.Precision)
			switch {
			case err != nil:
				add("%s.price: must be a number with at most %d decimals (%s)", path, cur.Precision, cur.Currency)
			case v < 0:
				add("%s.price: must not be negative", path)
			}
			e.UnitPrice = v
		default:
			v, ps := objects[i].check(path+".price", cur.Currency)
			problems = append(problems, ps...)
			e.UnitPrice = v
		}
		entries = append(entries, e)
	}
	if len(problems) > 0 {
		return nil, cartCurrency{}, commerce.Invalid(problems...)
	}
	return entries, cur, nil
}

// itemPaths are the field paths of the items, built once.
var itemPaths = func() []string {
	out := make([]string, MaxEntries)
	for i := range out {
		out[i] = fmt.Sprintf("items[%d]", i)
	}
	return out
}()

func itemPath(i int) string {
	if i < len(itemPaths) {
		return itemPaths[i]
	}
	return fmt.Sprintf("items[%d]", i)
}

// priceForm tells the form of a price by its JSON shape.
func priceForm(raw json.RawMessage) form {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0:
		return formUnknown
	case t[0] == '{':
		return formMoney
	case isNumber(t):
		return formPlain
	}
	return formUnknown
}

func formName(f form) string {
	if f == formMoney {
		return "money objects"
	}
	return "plain numbers"
}

// moneyObject is a v2 price as given: its fields raw, the currency
// decoded when it is a string.
type moneyObject struct {
	amount, precision json.RawMessage
	currency          string
	currencyOK        bool   // currency present and a string
	hasCurrency       bool   // currency present (not null)
	unknown           string // the first unknown field, if any
	bad               bool   // not a JSON object
}

// decodeMoney decodes a v2 price in one pass over its bytes (a
// json.Decoder per item would cost more than the evaluation).
func decodeMoney(raw json.RawMessage) moneyObject {
	var m moneyObject
	ok := members(raw, func(key, val []byte) {
		switch string(key) {
		case "amount":
			m.amount = val
		case "precision":
			m.precision = val
		case "currency":
			m.hasCurrency = !isNull(val)
			switch {
			case len(val) >= 2 && val[0] == '"' && bytes.IndexByte(val, '\\') < 0:
				m.currency, m.currencyOK = string(val[1:len(val)-1]), true
			case len(val) > 0 && val[0] == '"':
				m.currencyOK = json.Unmarshal(val, &m.currency) == nil
			}
		default:
			if m.unknown == "" {
				m.unknown = string(key)
			}
		}
	})
	if !ok {
		return moneyObject{bad: true}
	}
	return m
}

// members calls fn with the key and the raw value of each member of the
// JSON object raw, in order, and reports whether raw is an object. Values
// are delimited, not validated: the callers check them.
func members(raw []byte, fn func(key, val []byte)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	if i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		end := stringEnd(raw, i)
		if end < 0 {
			return false
		}
		key := raw[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(raw[i:end], &k) != nil {
				return false
			}
			key = []byte(k)
		}
		if i = skipSpace(raw, end); i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		vend := valueEnd(raw, i)
		if vend < 0 {
			return false
		}
		fn(key, raw[i:vend])
		switch i = skipSpace(raw, vend); {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at i,
// or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the JSON value starting at i, or
// -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// precisionOf returns the precision of the object's currency when it is a
// valid ISO 4217 code.
func (m moneyObject) precisionOf() (int, bool) {
	if !m.currencyOK {
		return 0, false
	}
	p, err := money.Precision(m.currency)
	return p, err == nil
}

// check validates a v2 price against the request's currency (want; ""
// when no item has a valid one) and returns its amount.
func (m moneyObject) check(path string, want string) (int64, []string) {
	if m.bad {
		return 0, []string{path + ": must be a money object {amount, currency, precision}"}
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if m.unknown != "" {
		add("%s.%s: unknown field", path, m.unknown)
	}
	var amount int64
	if isNull(m.amount) {
		add("%s.amount: required", path)
	} else {
		v, ok := integer(m.amount)
		switch {
		case !ok:
			add("%s.amount: must be an integer in minor units", path)
		case v < 0:
			add("%s.amount: must not be negative", path)
		}
		amount = v
	}
	precision := -1
	switch p, ok := m.precisionOf(); {
	case !m.hasCurrency:
		add("%s.currency: required", path)
	case !m.currencyOK:
		add("%s.currency: must be a string", path)
	case !ok:
		add("%s.currency: %q is not an ISO 4217 currency code", path, m.currency)
	case want != "" && m.currency != want:
		add("%s.currency: must be the same for every item (%s)", path, want)
	default:
		precision = p
	}
	if isNull(m.precision) {
		add("%s.precision: required", path)
	} else {
		v, ok := integer(m.precision)
		switch {
		case !ok:
			add("%s.precision: must be an integer", path)
		case precision >= 0 && v != int64(precision):
			add("%s.precision: must be %d, the minor unit of %s", path, precision, m.currency)
		}
	}
	return amount, problems
}
