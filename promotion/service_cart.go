package promotion

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/promotion/engine"
)

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

// CartPromotions computes the promotions that apply to the request's
// entries (see CartInput for the two forms). Bad input is one
// validation_error listing every problem.
func (s *Service) CartPromotions(ctx context.Context, in CartInput) (CartResult, error) {
	entries, cur, err := parseCart(in)
	if err != nil {
		return CartResult{}, err
	}
	out0, err := s.EvaluateCart(ctx, CartEval{Entries: entries, Precision: cur.Precision, Coupons: in.Coupons})
	if err != nil {
		return CartResult{}, err
	}
	res := out0.Result
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
func parseCart(in CartInput) ([]engine.Entry, cartCurrency, error) {
	var problems commerce.Problems
	if in.CartID == "" {
		problems.Add("cartId", "required")
	}
	if len(in.Coupons) > MaxCoupons {
		problems.Add("coupons", "at most %d codes", MaxCoupons)
	}
	switch {
	case in.Items == nil:
		problems.Add("items", "required")
	case len(in.Items) > MaxEntries:
		// Checked before any per-item work, which it bounds.
		problems.Add("items", "at most %d entries", MaxEntries)
		return nil, cartCurrency{}, problems.Err()
	}

	// The form is the shape of the first well-formed price.
	f := formAbsent
	for _, it := range in.Items {
		if it.Price.form == formPlain || it.Price.form == formMoney {
			f = it.Price.form
			break
		}
	}
	cur := cartCurrency{Currency: DefaultCurrency, Plain: f != formMoney}
	if in.Currency != nil {
		cur.Currency = *in.Currency
	}
	curOK := true
	if p, err := money.Precision(cur.Currency); err != nil {
		if in.Currency != nil {
			problems.Add("currency", "%q is not an ISO 4217 currency code", cur.Currency)
		}
		curOK = false
	} else {
		cur.Precision = p
	}
	if f == formMoney {
		// The items' currency; the first valid one, which every item must
		// share.
		cur.Currency, curOK = "", true
		for _, it := range in.Items {
			if p, ok := it.Price.obj.precisionOf(); it.Price.form == formMoney && ok {
				cur.Currency, cur.Precision = it.Price.obj.currency, p
				break
			}
		}
		if in.Currency != nil && cur.Currency != "" && *in.Currency != cur.Currency {
			problems.Add("currency", "%s differs from the items' currency %s", *in.Currency, cur.Currency)
		}
	}

	entries := make([]engine.Entry, 0, len(in.Items))
	seen := make(map[string]int, len(in.Items))
	for i, it := range in.Items {
		path := itemPath(i)
		e := engine.Entry{ID: it.ID, ProductID: it.ProductID, Quantity: 1}
		if it.ID == "" {
			problems.Add(path+".id", "required")
		} else if j, dup := seen[it.ID]; dup {
			problems.Add(path+".id", "duplicate of items[%d].id", j)
		} else {
			seen[it.ID] = i
		}
		if it.ProductID == "" {
			problems.Add(path+".productId", "required")
		}
		if it.Quantity != nil {
			e.Quantity = *it.Quantity
			switch {
			case e.Quantity < 1:
				problems.Add(path+".quantity", "must be a positive integer")
			case e.Quantity > MaxQuantity:
				problems.Add(path+".quantity", "must be at most %d", MaxQuantity)
			}
		}
		switch pf := it.Price.form; {
		case pf == formAbsent:
			problems.Add(path+".price", "required")
		case pf == formOther:
			problems.Add(path+".price", "must be a number or a money object {amount, currency, precision}")
		case pf != f:
			problems.Add(path+".price", "must have the same form as the other items' prices (%s)", formName(f))
		case pf == formPlain:
			if curOK { // else the currency is reported once
				e.UnitPrice = it.Price.plainMinor(path+".price", cur.Precision, cur.Currency, &problems)
			}
		default:
			e.UnitPrice = it.Price.obj.check(path+".price", cur.Currency, &problems)
		}
		entries = append(entries, e)
	}
	if err := problems.Err(); err != nil {
		return nil, cartCurrency{}, err
	}
	return entries, cur, nil
}

// itemPaths are the field paths of the items, built once.
var itemPaths = func() []string {
	out := make([]string, MaxEntries)
	for i := range out {
		out[i] = commerce.Index("items", i)
	}
	return out
}()

func itemPath(i int) string {
	if i < len(itemPaths) {
		return itemPaths[i]
	}
	return commerce.Index("items", i)
}
