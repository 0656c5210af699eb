package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Shopper is what a price is selected for: the cart's currency and
// channel, the customer's country and tags (customer types such as VIP)
// and the customer's groups (price lists, docs/api.md section 26).
type Shopper struct {
	Currency string
	Channel  string
	Country  string
	Tags     []string
	Groups   []string
}

// ListRule is what an ACTIVE price list is restricted to (docs/api.md
// section 26): Groups empty for everyone, Channel and Country empty for
// any, ValidFrom and ValidUntil nil when the list has no such bound.
// Priority is the list's (higher wins) and Seq its creation order
// (earlier wins a tie). Shared by the list's prices.
type ListRule struct {
	ListID     string
	Priority   int64
	Seq        int64
	Groups     []string
	Channel    string
	Country    string
	Currency   string
	ValidFrom  *time.Time
	ValidUntil *time.Time
}

// ListPrice is one price of an ACTIVE price list for one product: Amount
// in minor units of the list's currency for MinQuantity units or more.
type ListPrice struct {
	*ListRule
	MinQuantity int64
	Amount      int64
}

// SortListPrices puts a product's list prices in the order SelectPrice
// reads them: by list (priority descending, then creation order), and
// within a list by MinQuantity descending.
func SortListPrices(ps []ListPrice) {
	slices.SortFunc(ps, func(a, b ListPrice) int {
		switch {
		case a.Priority != b.Priority:
			if a.Priority > b.Priority {
				return -1
			}
			return 1
		case a.Seq != b.Seq:
			if a.Seq < b.Seq {
				return -1
			}
			return 1
		case a.MinQuantity != b.MinQuantity:
			if a.MinQuantity > b.MinQuantity {
				return -1
			}
			return 1
		}
		return 0
	})
}

// PriceLists gives the list prices of products (the price lists area).
type PriceLists interface {
	// ListPrices returns, for each product of ids that has any, the
	// prices of the ACTIVE price lists open to everyone or to one of
	// groups (the others cannot match a shopper of those groups), in
	// SortListPrices order. The slices must not be changed.
	ListPrices(ctx context.Context, ids, groups []string) (map[string][]ListPrice, error)
}

// Selected is a selected unit price: Amount in minor units of Currency,
// PriceID the product price's id when the product's prices gave it,
// PriceListID the list's id when a price list gave it.
type Selected struct {
	Amount      int64
	Currency    string
	PriceID     string
	PriceListID string
}

// SelectPrice is the one price selection of the service: the unit price
// of quantity units of a product for the shopper at now, and false when
// there is none (a cart's no_suitable_price). Catalog reads (product.info
// and product.list given a currency) and carts (every line, at every
// recalculation) call it, and nothing else selects prices.
//
// First the price lists (lists: the product's, in SortListPrices order):
// the first list, by priority, that is ACTIVE (lists holds only those),
// in the shopper's currency, open to the shopper (no groups, or one of
// the shopper's), for the shopper's channel and country (or any), valid
// at now (both ends inclusive) and with a tier for the quantity gives
// the price of its largest MinQuantity not above quantity.
//
// With none, the product's own prices (docs/api.md section 10's selection): a candidate
// has the shopper's currency and, when it has a validity period, now
// within it (both ends inclusive). Among the candidates the highest score
// wins: +1 when its country is the shopper's, +2 when its channel is the
// cart's, +4 when its customer type is among the shopper's tags. A price
// whose country, channel or customer type does not match is still a
// candidate: that criterion just adds nothing, so a plain price is the
// fallback for everyone. On a tie a price with a validity period wins
// over one without, and then the first in list order.
func SelectPrice(prices []Price, lists []ListPrice, s Shopper, quantity int64, now time.Time) (Selected, bool) {
	for i := range lists {
		lp := &lists[i]
		if lp.MinQuantity > quantity || !listMatches(lp.ListRule, s, now) {
			continue
		}
		return Selected{Amount: lp.Amount, Currency: lp.Currency, PriceListID: lp.ListID}, true
	}
	best, bestScore, bestPeriod := -1, -1, false
	for i, p := range prices {
		if p.Currency != s.Currency || !validAt(p.ValidFrom, p.ValidUntil, now) {
			continue
		}
		score := score(p, s)
		period := p.ValidFrom != nil || p.ValidUntil != nil
		if score > bestScore || score == bestScore && period && !bestPeriod {
			best, bestScore, bestPeriod = i, score, period
		}
	}
	if best < 0 {
		return Selected{}, false
	}
	return Selected{Amount: prices[best].Amount, Currency: prices[best].Currency, PriceID: prices[best].ID}, true
}

// listMatches reports whether a list price's list is open to the shopper
// at now (everything but the quantity).
func listMatches(lp *ListRule, s Shopper, now time.Time) bool {
	if lp.Currency != s.Currency || !validAt(lp.ValidFrom, lp.ValidUntil, now) {
		return false
	}
	if lp.Channel != "" && lp.Channel != s.Channel || lp.Country != "" && lp.Country != s.Country {
		return false
	}
	if len(lp.Groups) == 0 {
		return true
	}
	for _, g := range lp.Groups {
		if slices.Contains(s.Groups, g) {
			return true
		}
	}
	return false
}

// validAt reports whether now is within a validity period, if there is
// one (either bound may be absent).
func validAt(from, until *time.Time, now time.Time) bool {
	if from != nil && now.Before(*from) {
		return false
	}
	if until != nil && now.After(*until) {
		return false
	}
	return true
}

func score(p Price, s Shopper) int {
	score := 0
	if p.Country != "" && p.Country == s.Country {
		score++
	}
	if p.Channel != "" && p.Channel == s.Channel {
		score += 2
	}
	if p.CustomerType != "" && slices.Contains(s.Tags, p.CustomerType) {
		score += 4
	}
	return score
}

// Defaults of the shopper of a catalog read (docs/api.md section 26): a
// new cart's channel and country, and the tag of a customer without a
// customerType (cart.Anonymous).
const (
	readChannel = "WEB"
	readCountry = "US"
	readTag     = "ANON"
)

// ShownPrice is the price product.info and product.list show with a
// currency: amount in major units, and the list that gave it.
type ShownPrice struct {
	Amount      json.Number `json:"amount"`
	Currency    string      `json:"currency"`
	PriceListID string      `json:"priceListId,omitempty"`
}

// PriceQuery is what a catalog read prices for: a currency and a line
// quantity (0: 1).
type PriceQuery struct {
	Currency string
	Quantity int64
}

// CheckPriceQuery returns the query of a read's currency and quantity
// arguments, nil when no currency is given. Errors: validation_error.
func CheckPriceQuery(currency *string, quantity *int64) (*PriceQuery, error) {
	var p commerce.Problems
	if currency == nil {
		if quantity != nil {
			p.Add("quantity", "only with currency")
		}
		return nil, p.Err()
	}
	q := &PriceQuery{Currency: strings.TrimSpace(*currency), Quantity: 1}
	if _, err := money.Precision(q.Currency); err != nil {
		p.Add("currency", "must be an ISO 4217 currency code")
	}
	if quantity != nil {
		if q.Quantity = *quantity; q.Quantity < 1 {
			p.Add("quantity", "must be a positive integer")
		}
	}
	return q, p.Err()
}

// PricesOf returns the unit price the caller's token would get for each
// product in a new cart of the query's currency (country from the token,
// else US; channel WEB; the token's customerType and groups), chosen by
// SelectPrice as a cart line's is; a product without a price is absent.
func (s *Service) PricesOf(ctx context.Context, products []*Product, q PriceQuery) (map[string]*ShownPrice, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	sh := Shopper{Currency: q.Currency, Channel: readChannel, Country: cmp.Or(cl.Country, readCountry), Tags: []string{readTag}, Groups: cl.Groups}
	if cl.CustomerType != "" {
		sh.Tags = []string{cl.CustomerType}
	}
	var lists map[string][]ListPrice
	if s.PriceLists != nil && len(products) > 0 {
		ids := make([]string, len(products))
		for i, p := range products {
			ids[i] = p.ID
		}
		var err error
		if lists, err = s.PriceLists.ListPrices(ctx, ids, sh.Groups); err != nil {
			return nil, err
		}
	}
	prec, _ := money.Precision(q.Currency)
	out := make(map[string]*ShownPrice, len(products))
	now := s.now()
	for _, p := range products {
		if sel, ok := SelectPrice(p.Prices, lists[p.ID], sh, max(q.Quantity, 1), now); ok {
			out[p.ID] = &ShownPrice{Amount: money.Major(sel.Amount, prec), Currency: sel.Currency, PriceListID: sel.PriceListID}
		}
	}
	return out, nil
}
