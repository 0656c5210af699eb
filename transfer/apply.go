package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/stock"
)

// What became of a row.
const (
	outCreated = iota + 1
	outUpdated
	outUnchanged
	outRejected
)

type outcome struct {
	kind int
	err  RowError
}

// errDryRun rolls a dry run's batch back once it has been written.
var errDryRun = errors.New("transfer: dry run")

// writeError is a failed write inside a batch: the whole transaction is
// lost (PostgreSQL refuses every statement after a failed one), so the
// batch is done again a row a transaction to tell which row it was.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// batch is the work of one transaction: its rows, with the lines of the
// rows whose sku an earlier row of the file has.
type batch struct {
	rows   []*Row
	dups   map[int]int // line -> the line of the first row with that sku
	dryRun bool
	// job, when set, is saved with the batch's outcomes in the batch's
	// transaction (one commit, not two, a batch).
	job *Job
}

// applyBatch writes rows in one transaction and returns what became of
// each. A failed write fails the whole batch (writeError).
func (s *Service) applyBatch(ctx context.Context, b batch, idx *categoryIndex) ([]outcome, error) {
	var outs []outcome
	var created []*catalog.Category
	err := s.store.Update(ctx, func(tx Tx) error {
		outs = make([]outcome, len(b.rows))
		idx.begin()
		w := &batchWriter{s: s, tx: tx, idx: idx}
		var skus []string
		for _, r := range b.rows {
			skus = append(skus, r.SKU)
			if r.BaseSKU != nil {
				skus = append(skus, *r.BaseSKU)
			}
		}
		ids, err := tx.ProductIDs(ctx, skus)
		if err != nil {
			return err
		}
		w.ids = ids
		var existing []string
		for _, r := range b.rows {
			if id, ok := ids[r.SKU]; ok && r.Category == nil {
				existing = append(existing, id)
			}
		}
		if len(existing) > 0 {
			if w.olds, err = tx.LockProducts(ctx, existing); err != nil {
				return err
			}
			if w.stocks, err = tx.LockStocks(ctx, existing); err != nil {
				return err
			}
		}
		for i, r := range b.rows {
			if first, dup := b.dups[r.Line]; dup {
				outs[i] = outcome{outRejected, rowError(r.Line, r.SKU, commerce.Invalid(fmt.Sprintf("sku: %s is already on line %d of this file", r.SKU, first)))}
				continue
			}
			if r.Err != nil {
				outs[i] = outcome{outRejected, rowError(r.Line, r.SKU, r.Err)}
				continue
			}
			row := w.row
			if r.Category != nil {
				row = w.category
			}
			kind, err := row(ctx, r)
			if err != nil {
				var we *writeError
				if errors.As(err, &we) {
					return err
				}
				outs[i] = outcome{outRejected, rowError(r.Line, r.SKU, err)}
				continue
			}
			outs[i] = outcome{kind: kind}
		}
		if err := w.flush(ctx); err != nil {
			return err
		}
		created = idx.pendingList()
		if b.dryRun {
			return errDryRun
		}
		if b.job != nil {
			j := *b.job
			j.Errors = append([]RowError(nil), b.job.Errors...)
			record(&j, outs)
			j.Beat = s.now().UTC()
			return tx.SaveJob(ctx, &j)
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		idx.rollback()
		return outs, nil
	}
	if err != nil {
		idx.rollback()
		return nil, err
	}
	idx.commit(created)
	s.catalog.Changed()
	return outs, nil
}

// batchWriter writes the rows of one batch. New products are inserted
// together at the end (or before a row that needs one of them as its
// base), with their stock.
type batchWriter struct {
	s   *Service
	tx  Tx
	idx *categoryIndex
	ids map[string]string // sku -> product id, products created in the batch included
	// olds and stocks are the batch's existing products and their stock,
	// read (and locked) in one query each.
	olds   map[string]Locked
	stocks map[string]map[string]stock.Stock

	cached *cachedCategories

	pending      []*catalog.Product
	pendingStock []stock.Stock
	pendingSKU   map[string]bool
}

func (w *batchWriter) flush(ctx context.Context) error {
	if len(w.pending) > 0 {
		if err := w.tx.Catalog().CreateProducts(ctx, w.pending); err != nil {
			return &writeError{err}
		}
	}
	if len(w.pendingStock) > 0 {
		if err := w.tx.CreateStocks(ctx, w.pendingStock); err != nil {
			return &writeError{err}
		}
	}
	w.pending, w.pendingStock, w.pendingSKU = nil, nil, nil
	return nil
}

// row checks a row against the product it updates (if any), and writes
// it when it changes anything; a row error leaves nothing of the row
// written.
func (w *batchWriter) row(ctx context.Context, r *Row) (int, error) {
	now := w.s.now()
	var old *catalog.Product
	var version int64
	if id, ok := w.ids[r.SKU]; ok {
		if l, ok := w.olds[id]; ok {
			old, version = l.Product, l.Version
		} else {
			var err error
			if old, version, err = w.tx.Catalog().Product(ctx, id, true); err != nil {
				return 0, err
			}
		}
	}
	in := r.Fields
	in.SKU = &r.SKU
	var ps commerce.Problems
	if old == nil {
		if in.Status == nil {
			ps.Add("status", "required")
		}
		if in.Title == nil {
			ps.Add("title", "required")
		}
		if r.Categories == nil && r.BaseSKU == nil {
			ps.Add("categories", "required")
		}
		if in.StockStatus == nil {
			in.StockStatus = ptr(catalog.StockNormal)
		}
	}
	if err := ps.Err(); err != nil {
		return 0, err
	}
	if r.BaseSKU != nil {
		id, ok := w.ids[*r.BaseSKU]
		if !ok {
			return 0, commerce.NewError(commerce.EBaseProductNotFound, *r.BaseSKU)
		}
		if w.pendingSKU[*r.BaseSKU] {
			if err := w.flush(ctx); err != nil {
				return 0, err
			}
		}
		in.Base = &id
		if r.Categories == nil && old == nil {
			in.Categories = &[]string{}
		}
	}
	in.Prices = prices(old, r)
	in.Medias = medias(old, r)

	// Categories last among the checks that need no write: a row that
	// names categories the store does not have creates them, and removes
	// them again when the row is refused.
	var made []*catalog.Category
	if r.Categories != nil {
		ids, m, err := w.idx.resolve(ctx, w.tx, *r.Categories, now)
		made = m
		if err != nil {
			return 0, err
		}
		in.Categories = &ids
	}
	undo := func(err error) (int, error) {
		for i := len(made) - 1; i >= 0; i-- {
			if rerr := w.tx.Catalog().RemoveCategory(ctx, made[i].ID); rerr != nil {
				return 0, &writeError{rerr}
			}
			w.idx.forget(made[i])
		}
		return 0, err
	}
	p, err := w.s.catalog.PrepareImport(ctx, w.cats(), old, in)
	if err != nil {
		return undo(err)
	}
	// Stock: checked before anything of the row is written.
	type change struct {
		wh    string
		old   *stock.Stock
		quant int64
	}
	var changes []change
	for _, wh := range sortedKeys(r.Stock) {
		q := r.Stock[wh]
		k := stock.Key{ProductID: p.ID, WarehouseID: wh}
		if old == nil {
			changes = append(changes, change{wh, nil, q})
			continue
		}
		cur, ok := w.stocks[p.ID][wh]
		if _, loaded := w.olds[p.ID]; loaded && !ok {
			changes = append(changes, change{wh, nil, q}) // LockStocks read them all
			continue
		}
		if !ok {
			var err error
			cur, err = w.tx.Stock().Lock(ctx, k)
			if commerce.ErrorCode(err) == commerce.EStockNotFound {
				changes = append(changes, change{wh, nil, q})
				continue
			}
			if err != nil {
				return undo(err)
			}
		}
		if cur.Quantity == q {
			continue
		}
		if q < cur.Reserved {
			return undo(commerce.Invalid(fmt.Sprintf("stock.%s: %d is below the %d units carts hold reserved", wh, q, cur.Reserved)))
		}
		c := cur
		changes = append(changes, change{wh, &c, q})
	}
	for _, c := range made {
		if err := event.Emit(w.tx, event.Categories, event.Create, now, map[string]any{"new": c, "data": c}); err != nil {
			return 0, err
		}
	}
	kind := outCreated
	if old != nil {
		if len(changes) == 0 && sameProduct(old, p) {
			return outUnchanged, nil
		}
		kind = outUpdated
		if !sameProduct(old, p) {
			if err := w.tx.Catalog().UpdateProduct(ctx, p, version); err != nil {
				return 0, &writeError{err}
			}
			if err := event.Emit(w.tx, event.Products, event.Update, now, map[string]any{"data": in, "old": old, "new": p}); err != nil {
				return 0, err
			}
		}
	} else {
		w.pending = append(w.pending, p)
		if w.pendingSKU == nil {
			w.pendingSKU = map[string]bool{}
		}
		w.pendingSKU[p.SKU] = true
		w.ids[p.SKU] = p.ID
		if err := event.Emit(w.tx, event.Products, event.Create, now, map[string]any{"new": p, "data": in}); err != nil {
			return 0, err
		}
	}
	for _, c := range changes {
		data := map[string]any{"productId": p.ID, "warehouseId": c.wh, "quantity": c.quant}
		if c.old == nil {
			st := stock.Stock{ProductID: p.ID, WarehouseID: c.wh, Quantity: c.quant}
			if old == nil {
				w.pendingStock = append(w.pendingStock, st)
			} else if err := w.tx.Stock().Create(ctx, st); err != nil {
				return 0, &writeError{err}
			}
			if err := event.Emit(w.tx, event.Stock, event.Create, now, map[string]any{"new": st, "data": data}); err != nil {
				return 0, err
			}
			continue
		}
		st, err := w.tx.Stock().SetQuantity(ctx, c.old.Key(), c.quant)
		if err != nil {
			return 0, &writeError{err}
		}
		if err := event.Emit(w.tx, event.Stock, event.Update, now, map[string]any{"data": data, "old": *c.old, "new": st}); err != nil {
			return 0, err
		}
	}
	return kind, nil
}

// sameProduct reports whether two products are stored alike.
func sameProduct(a, b *catalog.Product) bool { return sameJSON(a, b) }

// sameJSON reports whether two records marshal alike.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// prices returns the prices a row gives, as product.update takes them:
// a price that the product has already (same currency, country, customer
// type, channel and dates) keeps its id, so that a row that changes
// nothing leaves the product as it is.
func prices(old *catalog.Product, r *Row) *[]*catalog.PriceInput {
	var have []catalog.Price
	if old != nil {
		have = old.Prices
	}
	used := map[string]bool{}
	idFor := func(in *catalog.PriceInput) *string {
		if in.ID != nil {
			return in.ID
		}
		for _, p := range have {
			if !used[p.ID] && p.Currency == str(in.Currency) && p.Country == str(in.Country) &&
				p.CustomerType == str(in.CustomerType) && p.Channel == strings.TrimSpace(str(in.Channel)) &&
				sameDate(p.ValidFrom, in.ValidFrom) && sameDate(p.ValidUntil, in.ValidUntil) {
				used[p.ID] = true
				return ptr(p.ID)
			}
		}
		return nil
	}
	switch {
	case r.Prices != nil:
		out := make([]*catalog.PriceInput, 0, len(*r.Prices))
		for _, in := range *r.Prices {
			if in != nil {
				c := *in
				c.ID = idFor(&c)
				in = &c
			}
			out = append(out, in)
		}
		return &out
	case r.CurrencyPrices != nil:
		out := []*catalog.PriceInput{}
		for _, p := range have {
			if _, given := r.CurrencyPrices[p.Currency]; given && unrestricted(p) {
				continue
			}
			out = append(out, priceInput(p))
		}
		for _, cur := range sortedKeys(r.CurrencyPrices) {
			amount := r.CurrencyPrices[cur]
			if amount == nil {
				continue
			}
			in := &catalog.PriceInput{Amount: catalog.NumberLiteral(*amount), Currency: ptr(cur)}
			in.ID = idFor(in)
			out = append(out, in)
		}
		return &out
	}
	return nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func sameDate(t *time.Time, l catalog.Literal) bool {
	if t == nil || l.IsNull() {
		return t == nil && l.IsNull()
	}
	if l.Kind() != catalog.KindString {
		return false
	}
	u, err := time.Parse(time.RFC3339Nano, l.Text())
	return err == nil && u.Equal(*t)
}

func unrestricted(p catalog.Price) bool {
	return p.Country == "" && p.CustomerType == "" && p.Channel == "" && p.ValidFrom == nil && p.ValidUntil == nil
}

// priceInput is a stored price as product.update takes it back.
func priceInput(p catalog.Price) *catalog.PriceInput {
	prec, _ := money.Precision(p.Currency) // stored prices have valid currencies
	in := &catalog.PriceInput{ID: ptr(p.ID), Amount: catalog.NumberLiteral(string(money.Major(p.Amount, prec))), Currency: ptr(p.Currency)}
	if p.Country != "" {
		in.Country = ptr(p.Country)
	}
	if p.CustomerType != "" {
		in.CustomerType = ptr(p.CustomerType)
	}
	if p.Channel != "" {
		in.Channel = ptr(p.Channel)
	}
	if p.ValidFrom != nil {
		in.ValidFrom = catalog.StringLiteral(p.ValidFrom.UTC().Format(time.RFC3339Nano))
	}
	if p.ValidUntil != nil {
		in.ValidUntil = catalog.StringLiteral(p.ValidUntil.UTC().Format(time.RFC3339Nano))
	}
	return in
}

// medias returns the medias a row gives: its Medias as they are, or its
// image URLs, each keeping the id of a media the product has with that
// URL, else numbered after the highest number in use.
func medias(old *catalog.Product, r *Row) *[]catalog.Media {
	if r.Medias != nil {
		return r.Medias
	}
	if r.Images == nil {
		return nil
	}
	var have []catalog.Media
	if old != nil {
		have = old.Medias
	}
	used := map[string]bool{}
	next := 0
	for _, m := range have {
		if n, err := strconv.Atoi(m.ID); err == nil && n > next {
			next = n
		}
	}
	out := make([]catalog.Media, 0, len(*r.Images))
	for _, url := range *r.Images {
		id := ""
		for _, m := range have {
			if m.URL == url && !used[m.ID] {
				id = m.ID
				break
			}
		}
		if id == "" {
			next++
			id = strconv.Itoa(next)
		}
		used[id] = true
		out = append(out, catalog.Media{ID: id, URL: url})
	}
	return &out
}

// cats returns the catalog's view of the transaction with its categories
// read once per batch: every row of a batch checks its categories and
// their ancestors, mostly the same few.
func (w *batchWriter) cats() catalog.Tx {
	if w.cached == nil {
		w.cached = &cachedCategories{Tx: w.tx.Catalog(), byID: map[string]*catalog.Category{}}
	}
	return w.cached
}

// cachedCategories is a catalog.Tx whose Categories answers from what it
// has read in the transaction. The import changes a category only through
// its own index (categories.go), which drops the entry.
type cachedCategories struct {
	catalog.Tx
	byID map[string]*catalog.Category
}

// Categories implements catalog.Tx.
func (c *cachedCategories) Categories(ctx context.Context, ids []string) (map[string]*catalog.Category, error) {
	out := make(map[string]*catalog.Category, len(ids))
	var missing []string
	for _, id := range ids {
		if v, ok := c.byID[id]; ok {
			if v != nil {
				out[id] = v
			}
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := c.Tx.Categories(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, id := range missing {
		if v := got[id]; v != nil {
			c.byID[id] = v
			out[id] = v
		}
	}
	return out, nil
}
