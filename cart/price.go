package cart

import (
	"slices"
	"time"

	"github.com/commercekit/commerce/catalog"
)

// Price is a product price as price selection sees it: the catalog's,
// with Amount in minor units of Currency, Country, CustomerType and
// Channel empty when the price is not restricted by them, and ValidFrom
// and ValidUntil nil when it has no validity period.
type Price = catalog.Price

// Shopper is what a price is selected for: the cart's currency and channel,
// and the customer's country and tags (customer types such as VIP).
type Shopper struct {
	Currency string
	Channel  string
	Country  string
	Tags     []string
}

// SelectPrice returns the index in prices of the price to charge the
// shopper at time now, and false when there is none (the caller's
// no_suitable_price).
//
// A candidate has the shopper's currency and, when it has a validity period,
// now within it (both ends inclusive). Among the candidates the highest score
// wins: +1 when its country is the shopper's, +2 when its channel is the
// cart's, +4 when its customer type is among the shopper's tags. A price
// whose country, channel or customer type does not match is still a
// candidate: that criterion just adds nothing, so a plain price is the
// fallback for everyone. On a tie a price with a validity period wins over
// one without, and then the first in list order.
func SelectPrice(prices []Price, s Shopper, now time.Time) (int, bool) {
	best, bestScore, bestPeriod := -1, -1, false
	for i, p := range prices {
		if p.Currency != s.Currency || !validAt(p, now) {
			continue
		}
		score := score(p, s)
		period := p.ValidFrom != nil || p.ValidUntil != nil
		if score > bestScore || score == bestScore && period && !bestPeriod {
			best, bestScore, bestPeriod = i, score, period
		}
	}
	return best, best >= 0
}

// validAt reports whether now is within the price's validity period, if it
// has one.
func validAt(p Price, now time.Time) bool {
	if p.ValidFrom != nil && now.Before(*p.ValidFrom) {
		return false
	}
	if p.ValidUntil != nil && now.After(*p.ValidUntil) {
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
