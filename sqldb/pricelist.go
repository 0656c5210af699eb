package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/pricelist"
)

// versionPriceLists is the price lists' version (their prices, which
// every process keeps in memory).
const versionPriceLists = "pricelists"

// PriceListStore keeps the price lists (pricelist.Store): a row of
// price_lists each, the fields the store does not look up by in its
// JSON document, and a row of price_list_prices per price.
type PriceListStore struct {
	db *DB
}

// NewPriceListStore returns the price list store of db.
func NewPriceListStore(db *DB) *PriceListStore { return &PriceListStore{db: db} }

var _ pricelist.Store = (*PriceListStore)(nil)

const priceListColumns = `id, code, status, currency, created_at, seq, data`

// priceListDoc is the JSON document of a list (price_lists.data).
type priceListDoc struct {
	Title      string     `json:"title"`
	Groups     []string   `json:"groups"`
	Channel    string     `json:"channel,omitempty"`
	Country    string     `json:"country,omitempty"`
	ValidFrom  *time.Time `json:"validFrom,omitempty"`
	ValidUntil *time.Time `json:"validUntil,omitempty"`
	Priority   int64      `json:"priority"`
	UpdatedAt  time.Time  `json:"updatedAt"`
}

// Update implements pricelist.Store; it moves the lists' version.
func (s *PriceListStore) Update(ctx context.Context, fn func(tx pricelist.Tx) error) error {
	return s.db.updateVersioned(ctx, versionPriceLists, func(tx *Tx) error { return fn(priceListTx{tx}) })
}

// Version implements pricelist.Store.
func (s *PriceListStore) Version(ctx context.Context) (int64, error) {
	return s.db.areaVersion(ctx, versionPriceLists)
}

// PriceList implements pricelist.Store.
func (s *PriceListStore) PriceList(ctx context.Context, id string) (*pricelist.PriceList, error) {
	l, err := scanPriceList(s.db.QueryRow(ctx, `SELECT `+priceListColumns+` FROM price_lists WHERE id = ?`, id))
	if err != nil {
		return nil, s.db.NotFound(err, pricelist.NotFound(id))
	}
	if err := loadPrices(ctx, s.db.Query, []*pricelist.PriceList{l}); err != nil {
		return nil, err
	}
	return l, nil
}

// PriceLists implements pricelist.Store.
func (s *PriceListStore) PriceLists(ctx context.Context, f pricelist.Filter) ([]pricelist.PriceList, error) {
	var w where
	w.in("code", f.Codes)
	w.in("status", f.Statuses)
	if len(f.ProductIDs) > 0 {
		args := make([]any, len(f.ProductIDs))
		for i, v := range f.ProductIDs {
			args[i] = v
		}
		w.add(`EXISTS (SELECT 1 FROM price_list_prices p WHERE p.list_id = price_lists.id AND p.product_id IN (`+Placeholders(len(args))+`))`, args...)
	}
	if len(f.Groups) > 0 {
		// The groups are in the document, a JSON array of codes
		// ([A-Z0-9_-]: the quotes delimit a code, and only _ is special
		// to LIKE); the lists are few and read by staff, so no index.
		conds := make([]string, len(f.Groups))
		args := make([]any, len(f.Groups))
		for i, g := range f.Groups {
			conds[i] = s.db.dialect.JSONText("data", "groups") + ` LIKE ? ESCAPE '!'`
			args[i] = `%"` + likeEscaper.Replace(g) + `"%`
		}
		w.add("("+strings.Join(conds, " OR ")+")", args...)
	}
	out, err := listPage(ctx, s.db, `SELECT `+priceListColumns+` FROM price_lists`, `ORDER BY seq`, &w, nil, f.Limit, f.Skip,
		func(r rowScanner) (pricelist.PriceList, error) {
			l, err := scanPriceList(r)
			if err != nil {
				return pricelist.PriceList{}, err
			}
			return *l, nil
		})
	if err != nil {
		return nil, fmt.Errorf("list price lists: %w", err)
	}
	ptrs := make([]*pricelist.PriceList, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	if err := loadPrices(ctx, s.db.Query, ptrs); err != nil {
		return nil, err
	}
	return out, nil
}

// likeEscaper escapes a text for a LIKE pattern with ESCAPE '!'.
var likeEscaper = strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")

// Active implements pricelist.Store: the version, then the ACTIVE lists,
// then their prices (a change committed in between moved the version, so
// the next check loads again).
func (s *PriceListStore) Active(ctx context.Context) (int64, []pricelist.PriceList, error) {
	v, err := s.Version(ctx)
	if err != nil {
		return 0, nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT `+priceListColumns+` FROM price_lists WHERE status = ? ORDER BY seq`, pricelist.StatusActive)
	if err != nil {
		return 0, nil, fmt.Errorf("active price lists: %w", err)
	}
	var lists []pricelist.PriceList
	for rows.Next() {
		l, err := scanPriceList(rows)
		if err != nil {
			rows.Close()
			return 0, nil, err
		}
		lists = append(lists, *l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, s.db.translate(fmt.Errorf("active price lists: %w", err))
	}
	if len(lists) == 0 {
		return v, nil, nil
	}
	byID := make(map[string]*pricelist.PriceList, len(lists))
	for i := range lists {
		byID[lists[i].ID] = &lists[i]
	}
	prows, err := s.db.Query(ctx, `SELECT p.list_id, p.product_id, p.min_quantity, p.amount FROM price_list_prices p
		JOIN price_lists l ON l.id = p.list_id WHERE l.status = ?`, pricelist.StatusActive)
	if err != nil {
		return 0, nil, fmt.Errorf("active prices: %w", err)
	}
	defer prows.Close()
	for prows.Next() {
		var listID string
		var p pricelist.Price
		if err := prows.Scan(&listID, &p.ProductID, &p.MinQuantity, &p.Amount); err != nil {
			return 0, nil, s.db.translate(fmt.Errorf("scan price: %w", err))
		}
		if l := byID[listID]; l != nil {
			l.Prices = append(l.Prices, p)
		}
	}
	if err := prows.Err(); err != nil {
		return 0, nil, s.db.translate(fmt.Errorf("active prices: %w", err))
	}
	return v, lists, nil
}

// loadPrices sets the prices of lists, by product then tier.
func loadPrices(ctx context.Context, query queryFunc, lists []*pricelist.PriceList) error {
	if len(lists) == 0 {
		return nil
	}
	byID := make(map[string]*pricelist.PriceList, len(lists))
	args := make([]any, len(lists))
	for i, l := range lists {
		byID[l.ID] = l
		l.Prices = []pricelist.Price{}
		args[i] = l.ID
	}
	rows, err := query(ctx, `SELECT list_id, product_id, min_quantity, amount FROM price_list_prices WHERE list_id IN (`+
		Placeholders(len(args))+`) ORDER BY list_id, product_id, min_quantity`, args...)
	if err != nil {
		return fmt.Errorf("price list prices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var listID string
		var p pricelist.Price
		if err := rows.Scan(&listID, &p.ProductID, &p.MinQuantity, &p.Amount); err != nil {
			return fmt.Errorf("scan price: %w", err)
		}
		if l := byID[listID]; l != nil {
			l.Prices = append(l.Prices, p)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("price list prices: %w", err)
	}
	return nil
}

// scanPriceList reads a row of priceListColumns; sql.ErrNoRows is
// returned as is.
func scanPriceList(row rowScanner) (*pricelist.PriceList, error) {
	var l pricelist.PriceList
	var created int64
	var data string
	if err := row.Scan(&l.ID, &l.Code, &l.Status, &l.Currency, &created, &l.Seq, &data); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("scan price list: %w", err)
	}
	var d priceListDoc
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return nil, fmt.Errorf("price list %s: %w", l.ID, err)
	}
	l.CreatedAt = time.UnixMilli(created).UTC()
	l.Title, l.Groups, l.Channel, l.Country = d.Title, d.Groups, d.Channel, d.Country
	l.ValidFrom, l.ValidUntil, l.Priority, l.UpdatedAt = d.ValidFrom, d.ValidUntil, d.Priority, d.UpdatedAt
	if l.Groups == nil {
		l.Groups = []string{}
	}
	return &l, nil
}

func priceListData(l *pricelist.PriceList) (string, error) {
	b, err := json.Marshal(priceListDoc{Title: l.Title, Groups: l.Groups, Channel: l.Channel, Country: l.Country,
		ValidFrom: l.ValidFrom, ValidUntil: l.ValidUntil, Priority: l.Priority, UpdatedAt: l.UpdatedAt})
	return string(b), err
}

// priceListTx implements pricelist.Tx over a transaction.
type priceListTx struct{ tx *Tx }

// Emit implements pricelist.Tx.
func (t priceListTx) Emit(e event.Event) { t.tx.Emit(e) }

// Lock implements pricelist.Tx.
func (t priceListTx) Lock(ctx context.Context, id string) (*pricelist.PriceList, error) {
	l, err := scanPriceList(t.tx.QueryRow(ctx, `SELECT `+priceListColumns+` FROM price_lists WHERE id = ?`+t.tx.ForUpdate(), id))
	if err != nil {
		return nil, t.tx.DB().NotFound(err, pricelist.NotFound(id))
	}
	if err := loadPrices(ctx, t.tx.Query, []*pricelist.PriceList{l}); err != nil {
		return nil, err
	}
	return l, nil
}

// CodeOwner implements pricelist.Tx.
func (t priceListTx) CodeOwner(ctx context.Context, code string) (string, error) {
	var id string
	err := t.tx.QueryRow(ctx, `SELECT id FROM price_lists WHERE code = ?`, code).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("price list code: %w", err)
	}
	return id, nil
}

// Insert implements pricelist.Tx.
func (t priceListTx) Insert(ctx context.Context, l *pricelist.PriceList) error {
	data, err := priceListData(l)
	if err != nil {
		return err
	}
	err = t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`INSERT INTO price_lists (id, code, status, currency, created_at, data) VALUES (?, ?, ?, ?, ?, ?)`, "seq"),
		l.ID, l.Code, l.Status, l.Currency, l.CreatedAt.UnixMilli(), data).Scan(&l.Seq)
	if err != nil {
		return fmt.Errorf("insert price list: %w", t.tx.Translate(err))
	}
	return t.insertPrices(ctx, l)
}

// insertPrices inserts the list's prices, many rows a statement.
func (t priceListTx) insertPrices(ctx context.Context, l *pricelist.PriceList) error {
	const batch = 200
	for start := 0; start < len(l.Prices); start += batch {
		ps := l.Prices[start:min(start+batch, len(l.Prices))]
		var q strings.Builder
		q.WriteString(`INSERT INTO price_list_prices (list_id, product_id, min_quantity, amount) VALUES `)
		args := make([]any, 0, 4*len(ps))
		for i, p := range ps {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?)")
			args = append(args, l.ID, p.ProductID, p.MinQuantity, p.Amount)
		}
		if _, err := t.tx.Exec(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("insert price list prices: %w", err)
		}
	}
	return nil
}

// Save implements pricelist.Tx.
func (t priceListTx) Save(ctx context.Context, l *pricelist.PriceList) error {
	data, err := priceListData(l)
	if err != nil {
		return err
	}
	res, err := t.tx.Exec(ctx, `UPDATE price_lists SET code = ?, status = ?, currency = ?, data = ? WHERE id = ?`,
		l.Code, l.Status, l.Currency, data, l.ID)
	if err != nil {
		return fmt.Errorf("update price list: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("update price list: %w", t.tx.Translate(err))
	} else if n == 0 {
		return pricelist.NotFound(l.ID)
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM price_list_prices WHERE list_id = ?`, l.ID); err != nil {
		return fmt.Errorf("replace price list prices: %w", err)
	}
	return t.insertPrices(ctx, l)
}

// Delete implements pricelist.Tx.
func (t priceListTx) Delete(ctx context.Context, id string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM price_list_prices WHERE list_id = ?`, id); err != nil {
		return fmt.Errorf("delete price list prices: %w", err)
	}
	res, err := t.tx.Exec(ctx, `DELETE FROM price_lists WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete price list: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete price list: %w", t.tx.Translate(err))
	} else if n == 0 {
		return pricelist.NotFound(id)
	}
	return nil
}
