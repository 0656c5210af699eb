package admin

import (
	"net/http"
	"strings"

	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/event"
)

// effectivePrice is the product page's "Price for a group" card: the unit
// price a customer of a group (or of none) gets for a quantity in a new
// cart of a currency and country, as product.info answers it for a token
// with those claims (catalog.Service.PricesOf: the price selection of
// carts, price lists included), and the price list it came from.
type effectivePrice struct {
	Group, Quantity, Currency, Country string
	// For is the price for the group; Base the price for no group (shown
	// next to it when a group is chosen).
	For, Base *shownPrice
	// Problem says why the price could not be read.
	Problem string
}

// shownPrice is a price product.info answered.
type shownPrice struct {
	Money string
	// ListID and ListCode name the price list that gave it ("": the
	// product's own prices).
	ListID, ListCode string
}

// addEffectivePrice fills the product page's price card from its query
// (eg: group, eq: quantity, ec: currency, ek: country; a GET form, so
// every role that reads products may use it).
func (h *Handler) addEffectivePrice(r *http.Request, p *page, pr map[string]any) {
	if !h.features["pricelists"] {
		return
	}
	q := r.URL.Query()
	ep := effectivePrice{Group: strings.ToUpper(strings.TrimSpace(q.Get("eg"))), Quantity: strings.TrimSpace(q.Get("eq")),
		Currency: strings.ToUpper(strings.TrimSpace(q.Get("ec"))), Country: strings.ToUpper(strings.TrimSpace(q.Get("ek")))}
	if ep.Quantity == "" {
		ep.Quantity = "1"
	}
	if ep.Currency == "" {
		ep.Currency = "USD"
		if ps := asList(pr["prices"]); len(ps) > 0 {
			if m, ok := ps[0].(map[string]any); ok && str(m["currency"]) != "" {
				ep.Currency = str(m["currency"])
			}
		}
	}
	if ep.Country == "" {
		ep.Country = "US"
	}
	p.Data["effective"] = &ep
	p.Data["effectiveGroups"] = h.groupChoices(r)
	id := str(pr["id"])
	var err error
	if ep.Base, err = h.priceFor(r, id, ep, ""); err != nil {
		ep.Problem = explain(err, formSpec{}).Sentence
		return
	}
	if ep.Group != "" {
		if ep.For, err = h.priceFor(r, id, ep, ep.Group); err != nil {
			ep.Problem = explain(err, formSpec{}).Sentence
		}
	}
}

// priceFor asks product.info for the product's price as a customer of the
// group ("" none) would get it; nil when the product has none.
func (h *Handler) priceFor(r *http.Request, id string, ep effectivePrice, group string) (*shownPrice, error) {
	s := who(r)
	cl := s.staff.Claims()
	cl.Country = ep.Country
	if group != "" {
		cl.Groups = []string{group}
	}
	ctx := audit.WithCaller(event.WithActor(r.Context(), s.staff.Actor()), s.staff.Email, clientIP(r))
	raw, err := h.opts.RPC.CallOnce(ctx, cl, "catalog/v1/product.info", map[string]any{"id": id, "fields": "id",
		"currency": ep.Currency, "quantity": number(ep.Quantity)}, "")
	if err != nil {
		return nil, err
	}
	res, err := decode(raw)
	if err != nil {
		return nil, err
	}
	pr, _ := res["product"].(map[string]any)
	price, ok := pr["price"].(map[string]any)
	if !ok {
		return nil, nil
	}
	out := &shownPrice{Money: majorMoney(price["amount"], str(price["currency"])), ListID: str(price["priceListId"])}
	if out.ListID != "" && s.staff.Can("priceList", false) {
		if l, err := h.call(r, "catalog/v1/priceList.info", map[string]any{"id": out.ListID}); err == nil {
			m, _ := l["priceList"].(map[string]any)
			out.ListCode = str(m["code"])
		}
	}
	return out, nil
}
