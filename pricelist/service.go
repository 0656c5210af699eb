package pricelist

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/geo"
	"github.com/commercekit/commerce/internal/snapcache"
	"github.com/commercekit/commerce/money"
)

// Service is the price lists area.
type Service struct {
	store    Store
	products Products
	now      func() time.Time
	cache    *snapcache.Cache[index]
}

// index is the ACTIVE lists' prices by product, each product's in
// catalog.SortListPrices order: those of lists open to everyone, and
// those of each group's lists (a list of several groups is under each).
type index map[string]*productPrices

type productPrices struct {
	open    []catalog.ListPrice
	byGroup map[string][]catalog.ListPrice
}

// NewService returns the area over store; products tells which products
// exist.
func NewService(store Store, products Products, now func() time.Time) *Service {
	s := &Service{store: store, products: products, now: now}
	s.cache = snapcache.New(store.Version, func(ctx context.Context) (int64, index, error) {
		v, lists, err := store.Active(ctx)
		if err != nil {
			return 0, nil, err
		}
		return v, buildIndex(lists), nil
	})
	return s
}

// buildIndex indexes the lists' prices by product.
func buildIndex(lists []PriceList) index {
	idx := index{}
	for _, l := range lists {
		if l.Status != StatusActive {
			continue
		}
		rule := &catalog.ListRule{ListID: l.ID, Priority: l.Priority, Seq: l.Seq, Groups: l.Groups, Channel: l.Channel,
			Country: l.Country, Currency: l.Currency, ValidFrom: l.ValidFrom, ValidUntil: l.ValidUntil}
		for _, p := range l.Prices {
			pp := idx[p.ProductID]
			if pp == nil {
				pp = &productPrices{}
				idx[p.ProductID] = pp
			}
			lp := catalog.ListPrice{ListRule: rule, MinQuantity: p.MinQuantity, Amount: p.Amount}
			if len(l.Groups) == 0 {
				pp.open = append(pp.open, lp)
				continue
			}
			if pp.byGroup == nil {
				pp.byGroup = map[string][]catalog.ListPrice{}
			}
			for _, g := range l.Groups {
				pp.byGroup[g] = append(pp.byGroup[g], lp)
			}
		}
	}
	for _, pp := range idx {
		catalog.SortListPrices(pp.open)
		for _, ps := range pp.byGroup {
			catalog.SortListPrices(ps)
		}
	}
	return idx
}

// ListPrices implements catalog.PriceLists from the in-memory index,
// checked against the lists' version at least every snapcache.Interval
// (a change through this process is seen at once).
// A product's prices for several sources (everyone's lists and the
// groups') are merged into a new slice; for one source the index's own is
// returned.
func (s *Service) ListPrices(ctx context.Context, ids, groups []string) (map[string][]catalog.ListPrice, error) {
	idx, err := s.cache.Get(ctx)
	if err != nil {
		return nil, err
	}
	if len(idx) == 0 {
		return nil, nil
	}
	out := make(map[string][]catalog.ListPrice, len(ids))
	for _, id := range ids {
		pp := idx[id]
		if pp == nil {
			continue
		}
		ps, shared := pp.open, true
		for _, g := range groups {
			gs := pp.byGroup[g]
			if len(gs) == 0 {
				continue
			}
			if len(ps) == 0 {
				ps = gs
				continue
			}
			if shared {
				ps, shared = append(make([]catalog.ListPrice, 0, len(ps)+len(gs)), ps...), false
			}
			ps = append(ps, gs...)
		}
		if !shared {
			catalog.SortListPrices(ps)
		}
		if len(ps) > 0 {
			out[id] = ps
		}
	}
	return out, nil
}

// update runs fn in a transaction and drops the in-memory index after it.
func (s *Service) update(ctx context.Context, fn func(tx Tx) error) error {
	err := s.store.Update(ctx, fn)
	s.cache.Invalidate()
	return err
}

// GroupCode is the shape of a customer group's code.
var GroupCode = regexp.MustCompile(`^[A-Z0-9_-]{1,40}$`)

// maxCode is the longest list code.
const maxCode = 100

// fields checks the list's fields other than its prices as given (nil:
// keep l's) and sets them on l.
type fields struct {
	code, title, status, channel, country, currency, from, until *string
	groups                                                       *[]string
	priority                                                     *int64
}

func (f fields) apply(p *commerce.Problems, l *PriceList) {
	if f.code != nil {
		code := commerce.Key(strings.TrimSpace(*f.code))
		if code == "" || len(code) > maxCode {
			p.Add("code", "must be 1 to %d characters", maxCode)
		}
		l.Code = code
	}
	if f.title != nil {
		l.Title = strings.TrimSpace(*f.title)
		if len(l.Title) > 500 {
			p.Add("title", "at most 500 characters")
		}
	}
	if f.status != nil {
		if *f.status != StatusActive && *f.status != StatusDraft {
			p.Add("status", "must be ACTIVE or DRAFT")
		}
		l.Status = *f.status
	}
	if f.groups != nil {
		l.Groups = []string{}
		for i, g := range *f.groups {
			g = strings.TrimSpace(g)
			if !GroupCode.MatchString(g) {
				p.Add(commerce.Index("groups", i), "must be a group code ([A-Z0-9_-]{1,40})")
			} else if !slices.Contains(l.Groups, g) {
				l.Groups = append(l.Groups, g)
			}
		}
	}
	if f.channel != nil {
		l.Channel = strings.TrimSpace(*f.channel)
	}
	if f.country != nil {
		l.Country = strings.TrimSpace(*f.country)
		if l.Country != "" && !geo.ValidCountry(l.Country) {
			p.Add("country", "must be an ISO 3166-1 alpha-2 country code")
		}
	}
	if f.currency != nil {
		l.Currency = strings.TrimSpace(*f.currency)
	}
	if l.Currency == "" {
		p.Add("currency", "required")
	} else if _, err := money.Precision(l.Currency); err != nil {
		p.Add("currency", "must be an ISO 4217 currency code")
	}
	if f.from != nil {
		l.ValidFrom = date(p, "validFrom", *f.from, false)
	}
	if f.until != nil {
		l.ValidUntil = date(p, "validUntil", *f.until, true)
	}
	if l.ValidFrom != nil && l.ValidUntil != nil && l.ValidUntil.Before(*l.ValidFrom) {
		p.Add("validUntil", "must not be before validFrom")
	}
	if f.priority != nil {
		l.Priority = *f.priority
	}
}

// date parses a bound of the list's period: "" is none; an RFC 3339
// date-time, or a date (its start UTC, or for the end its last
// millisecond).
func date(p *commerce.Problems, path, s string, end bool) *time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = t.UTC()
		return &t
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		p.Add(path, "must be an RFC 3339 date-time or a date (2026-01-31)")
		return nil
	}
	if end {
		t = t.Add(24*time.Hour - time.Millisecond)
	}
	return &t
}

// MaxQuantity bounds a tier's minQuantity.
const MaxQuantity = 1_000_000

// prices checks prices given at path and returns them in minor units of
// currency (0: the currency is unknown, already reported).
func prices(p *commerce.Problems, path string, in []PriceInput, currency string) []Price {
	prec, err := money.Precision(currency)
	out := make([]Price, 0, len(in))
	for i, pin := range in {
		at := commerce.Index(path, i) + "."
		pr := Price{ProductID: strings.TrimSpace(pin.ProductID), MinQuantity: 1}
		if pr.ProductID == "" {
			p.Add(at+"productId", "required")
		}
		if pin.MinQuantity != nil {
			pr.MinQuantity = *pin.MinQuantity
			if pr.MinQuantity < 1 || pr.MinQuantity > MaxQuantity {
				p.Add(at+"minQuantity", "must be an integer from 1 to %d", MaxQuantity)
			}
		}
		d, msg := pin.Amount.NonNegative()
		if msg != "" {
			p.Add(at+"amount", "%s", msg)
		} else if err == nil {
			if pr.Amount, err = d.Minor(prec); err != nil || pr.Amount > money.MaxAmount {
				p.Add(at+"amount", "must have at most %d decimals for %s and be at most %s", prec, currency, money.Major(money.MaxAmount, prec))
			}
			err = nil
		}
		out = append(out, pr)
	}
	return out
}

// setPrices adds or changes prices of l (by product and minQuantity).
func setPrices(l *PriceList, ps []Price) {
	for _, np := range ps {
		i := slices.IndexFunc(l.Prices, func(p Price) bool { return p.ProductID == np.ProductID && p.MinQuantity == np.MinQuantity })
		if i >= 0 {
			l.Prices[i] = np
		} else {
			l.Prices = append(l.Prices, np)
		}
	}
}

// checkPrices reports prices given twice (product and minQuantity) and
// products that do not exist (product_not_found, data: the first id).
func (s *Service) checkPrices(ctx context.Context, l *PriceList) error {
	seen := map[Price]bool{}
	var ids []string
	for i, pr := range l.Prices {
		k := Price{ProductID: pr.ProductID, MinQuantity: pr.MinQuantity}
		if seen[k] {
			return commerce.Invalid(fmt.Sprintf("%s: product %s has two prices for minQuantity %d", commerce.Index("prices", i), pr.ProductID, pr.MinQuantity))
		}
		seen[k] = true
		if !slices.Contains(ids, pr.ProductID) {
			ids = append(ids, pr.ProductID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	found, err := s.products(ctx, ids)
	if err != nil {
		return fmt.Errorf("price list: products: %w", err)
	}
	for _, id := range ids {
		if found[id] == nil {
			return &commerce.Error{Code: commerce.EProductNotFound, Data: id, Message: "no product " + id}
		}
	}
	return nil
}

// sortPrices orders a list's prices by product, then tier.
func sortPrices(ps []Price) {
	slices.SortFunc(ps, func(a, b Price) int {
		return cmp.Or(cmp.Compare(a.ProductID, b.ProductID), cmp.Compare(a.MinQuantity, b.MinQuantity))
	})
}

// duplicateCode is duplicate_key on the code.
func duplicateCode(code string) error {
	return &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": "code", "code": code},
		Message: "a price list with code " + code + " exists"}
}

// Create is priceList.create (admin): CREATE on PRICELISTS {new, data}.
// Errors: validation_error, duplicate_key (data {index: "code", code}),
// product_not_found (data: the product id).
func (s *Service) Create(ctx context.Context, in CreateInput) (*PriceList, error) {
	var p commerce.Problems
	now := s.now().UTC().Truncate(time.Millisecond)
	l := &PriceList{ID: commerce.NewID(), Status: StatusActive, Groups: []string{}, CreatedAt: now, UpdatedAt: now}
	if in.Code == nil {
		p.Add("code", "required")
	}
	groups := []string(in.Groups)
	fields{code: in.Code, title: in.Title, status: in.Status, channel: in.Channel, country: in.Country, currency: in.Currency,
		from: in.ValidFrom, until: in.ValidUntil, groups: &groups, priority: in.Priority}.apply(&p, l)
	l.Prices = prices(&p, "prices", in.Prices, l.Currency)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if l.Title == "" {
		l.Title = l.Code
	}
	sortPrices(l.Prices)
	if err := s.checkPrices(ctx, l); err != nil {
		return nil, err
	}
	err := s.update(ctx, func(tx Tx) error {
		if owner, err := tx.CodeOwner(ctx, l.Code); err != nil {
			return err
		} else if owner != "" {
			return duplicateCode(l.Code)
		}
		if err := tx.Insert(ctx, l); err != nil {
			return err
		}
		return event.Emit(tx, event.PriceLists, event.Create, now, map[string]any{"new": l, "data": in})
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Update is priceList.update (admin): UPDATE on PRICELISTS {data, old,
// new}. Errors: validation_error, price_list_not_found (data: id),
// duplicate_key, product_not_found.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*PriceList, error) {
	if err := commerce.CheckArgs(in); err != nil { // id
		return nil, err
	}
	var out *PriceList
	err := s.update(ctx, func(tx Tx) error {
		old, err := tx.Lock(ctx, in.ID)
		if err != nil {
			return err
		}
		l := *old
		l.Groups = slices.Clone(old.Groups)
		l.Prices = slices.Clone(old.Prices)
		var p commerce.Problems
		var groups *[]string
		if in.Groups != nil {
			g := []string(*in.Groups)
			groups = &g
		}
		fields{code: in.Code, title: in.Title, status: in.Status, channel: in.Channel, country: in.Country, currency: in.Currency,
			from: in.ValidFrom, until: in.ValidUntil, groups: groups, priority: in.Priority}.apply(&p, &l)
		if in.Prices != nil {
			l.Prices = prices(&p, "prices", *in.Prices, l.Currency)
		}
		setPrices(&l, prices(&p, "setPrices", in.SetPrices, l.Currency))
		for i, k := range in.RemovePrices {
			p.CheckArgs(commerce.Index("removePrices", i), k) // productId
			l.Prices = slices.DeleteFunc(l.Prices, func(pr Price) bool {
				return pr.ProductID == k.ProductID && (k.MinQuantity == nil || *k.MinQuantity == pr.MinQuantity)
			})
		}
		if err := p.Err(); err != nil {
			return err
		}
		if in.Currency != nil && in.Prices == nil && l.Currency != old.Currency {
			// The stored amounts are minor units of the old currency.
			if a, _ := money.Precision(old.Currency); a != func() int { b, _ := money.Precision(l.Currency); return b }() {
				return commerce.Invalid("currency: a currency of another precision needs the prices given again (prices)")
			}
		}
		sortPrices(l.Prices)
		if err := s.checkPrices(ctx, &l); err != nil {
			return err
		}
		if l.Code != old.Code {
			if owner, err := tx.CodeOwner(ctx, l.Code); err != nil {
				return err
			} else if owner != "" && owner != l.ID {
				return duplicateCode(l.Code)
			}
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		l.UpdatedAt = now
		if err := tx.Save(ctx, &l); err != nil {
			return err
		}
		out = &l
		return event.Emit(tx, event.PriceLists, event.Update, now, map[string]any{"data": in, "old": old, "new": &l})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Info is priceList.info (admin). Errors: validation_error,
// price_list_not_found (data: id).
func (s *Service) Info(ctx context.Context, id string) (*PriceList, error) {
	if err := commerce.CheckArgs(IDInput{ID: id}); err != nil {
		return nil, err
	}
	return s.store.PriceList(ctx, id)
}

// Remove is priceList.remove (admin): REMOVE on PRICELISTS {id, old}.
// Errors: validation_error, price_list_not_found (data: id).
func (s *Service) Remove(ctx context.Context, id string) (*PriceList, error) {
	if err := commerce.CheckArgs(IDInput{ID: id}); err != nil {
		return nil, err
	}
	var old *PriceList
	err := s.update(ctx, func(tx Tx) (err error) {
		if old, err = tx.Lock(ctx, id); err != nil {
			return err
		}
		if err := tx.Delete(ctx, id); err != nil {
			return err
		}
		return event.Emit(tx, event.PriceLists, event.Remove, s.now().UTC(), map[string]any{"id": id, "old": old})
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// List is priceList.list (admin): the lists matching the filters, in
// creation order. Errors: validation_error (the page, a status).
func (s *Service) List(ctx context.Context, in ListInput) (commerce.List, error) {
	page, err := in.Page()
	if err != nil {
		return commerce.List{}, err
	}
	var p commerce.Problems
	for i, st := range in.Status {
		if st != StatusActive && st != StatusDraft {
			p.Add(commerce.Index("status", i), "must be ACTIVE or DRAFT")
		}
	}
	for i, g := range in.Group {
		if !GroupCode.MatchString(g) {
			p.Add(commerce.Index("group", i), "must be a group code ([A-Z0-9_-]{1,40})")
		}
	}
	if err := p.Err(); err != nil {
		return commerce.List{}, err
	}
	codes := make([]string, len(in.Code))
	for i, c := range in.Code {
		codes[i] = commerce.Key(c)
	}
	ls, err := s.store.PriceLists(ctx, Filter{Codes: codes, Statuses: in.Status, ProductIDs: in.ProductID, Groups: in.Group, Limit: page.Limit, Skip: page.Skip})
	if err != nil {
		return commerce.List{}, err
	}
	data := make([]any, len(ls))
	for i := range ls {
		data[i] = ls[i]
	}
	return commerce.List{Page: page, Data: data}, nil
}
