// Package pricelist is the price lists area (docs/api.md section 26):
// named lists of prices for groups of customers, a channel, a country
// and a period, with a priority and quantity tiers. Prices are selected
// by catalog.SelectPrice, with the lists' prices this area keeps in
// memory (Service.ListPrices).
package pricelist

import (
	"encoding/json"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

// Statuses of a price list: only ACTIVE lists price anything.
const (
	StatusActive = "ACTIVE"
	StatusDraft  = "DRAFT"
)

// PriceList is a price list. Prices hold minor units of Currency; its JSON
// form shows them in major units, as the arguments give them.
type PriceList struct {
	ID       string
	Code     string
	Title    string
	Status   string
	Groups   []string // empty: everyone
	Channel  string   // empty: any
	Country  string   // empty: any
	Currency string
	// ValidFrom and ValidUntil bound when the list applies (both ends
	// inclusive); nil: no bound.
	ValidFrom  *time.Time
	ValidUntil *time.Time
	Priority   int64 // higher wins
	Prices     []Price
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// Seq is the list's creation order (a tie of priorities: the earlier
	// list wins).
	Seq int64
}

// Price is the unit price of a product from MinQuantity units on, in
// minor units of the list's currency.
type Price struct {
	ProductID   string
	Amount      int64
	MinQuantity int64
}

// PriceView is a price as clients see it (the API document's schema).
type PriceView struct {
	ProductID   string      `json:"productId"`
	Amount      json.Number `json:"amount"`
	MinQuantity int64       `json:"minQuantity"`
}

// View is a price list as clients see it (PriceList.MarshalJSON, the
// API document's schema).
type View struct {
	ID         string      `json:"id"`
	Code       string      `json:"code"`
	Title      string      `json:"title"`
	Status     string      `json:"status"`
	Groups     []string    `json:"groups"`
	Channel    string      `json:"channel,omitempty"`
	Country    string      `json:"country,omitempty"`
	Currency   string      `json:"currency"`
	ValidFrom  *time.Time  `json:"validFrom,omitempty"`
	ValidUntil *time.Time  `json:"validUntil,omitempty"`
	Priority   int64       `json:"priority"`
	Prices     []PriceView `json:"prices"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
}

// MarshalJSON writes the list with amounts in major units (577.65).
func (l PriceList) MarshalJSON() ([]byte, error) {
	prec, _ := money.Precision(l.Currency)
	v := View{ID: l.ID, Code: l.Code, Title: l.Title, Status: l.Status, Groups: l.Groups, Channel: l.Channel,
		Country: l.Country, Currency: l.Currency, ValidFrom: l.ValidFrom, ValidUntil: l.ValidUntil,
		Priority: l.Priority, Prices: make([]PriceView, len(l.Prices)), CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if v.Groups == nil {
		v.Groups = []string{}
	}
	for i, p := range l.Prices {
		v.Prices[i] = PriceView{ProductID: p.ProductID, Amount: money.Major(p.Amount, prec), MinQuantity: p.MinQuantity}
	}
	return json.Marshal(v)
}

// NotFound is price_list_not_found, data the id.
func NotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EPriceListNotFound, Data: id, Message: "no price list " + id}
}
