package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/shipping"
)

// ShippingStore is the shipping area's storage (shipping.Store).
//
// A method is one row of shipping_methods with its rate groups as JSON
// (amounts in minor units), plus one row of shipping_method_countries per
// country it has a location in, so that the methods an address may use
// are read in one indexed query. Methods are never updated, so a create
// or a remove is all the concurrency there is: each is one transaction.
type ShippingStore struct{ db *DB }

// NewShippingStore returns the shipping store over db.
func NewShippingStore(db *DB) *ShippingStore { return &ShippingStore{db: db} }

const shippingColumns = `id, title, active, tax_code, rates`

var shippingTable = newRecordTable("shipping method", "shipping_methods", shippingColumns, scanMethod, shipping.NotFound)

// storedGroup is the stored form of a rate group: amounts in minor units.
type storedGroup struct {
	ID        string              `json:"id"`
	Locations []shipping.Location `json:"locations"`
	Rates     []storedRate        `json:"rates"`
}

type storedRate struct {
	Currency string `json:"currency"`
	Amount   int64  `json:"amount"`
}

var _ shipping.Store = (*ShippingStore)(nil)

// Update implements shipping.Store; it moves the methods' version.
func (s *ShippingStore) Update(ctx context.Context, fn func(tx shipping.Tx) error) error {
	return s.db.updateVersioned(ctx, versionShipping, func(tx *Tx) error { return fn(shippingTx{tx}) })
}

// Version implements shipping.Store.
func (s *ShippingStore) Version(ctx context.Context) (int64, error) {
	return s.db.areaVersion(ctx, versionShipping)
}

// Method implements shipping.Store.
func (s *ShippingStore) Method(ctx context.Context, id string) (shipping.Method, error) {
	return shippingTable.get(ctx, s.db, id)
}

// shippingTx implements shipping.Tx over a transaction.
type shippingTx struct{ tx *Tx }

// Emit implements shipping.Tx.
func (t shippingTx) Emit(e event.Event) { t.tx.Emit(e) }

// CreateMethod implements shipping.Tx.
func (t shippingTx) CreateMethod(ctx context.Context, m shipping.Method) error {
	groups := make([]storedGroup, len(m.Rates))
	var countries []string
	for i, g := range m.Rates {
		sg := storedGroup{ID: g.ID, Locations: g.Locations, Rates: make([]storedRate, len(g.Rates))}
		for j, r := range g.Rates {
			sg.Rates[j] = storedRate{Currency: r.Currency, Amount: r.Amount}
		}
		groups[i] = sg
		for _, l := range g.Locations {
			countries = append(countries, l.Country)
		}
	}
	slices.Sort(countries)
	countries = slices.Compact(countries)
	rates, err := json.Marshal(groups)
	if err != nil {
		return fmt.Errorf("create shipping method: %w", err)
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO shipping_methods (`+shippingColumns+`) VALUES (?, ?, ?, ?, ?)`,
		m.ID, m.Title, m.Active, m.TaxCode, string(rates)); err != nil {
		return fmt.Errorf("create shipping method: %w", err)
	}
	if len(countries) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(countries))
	values := make([]string, len(countries))
	for i, c := range countries {
		values[i] = `(?, ?)`
		args = append(args, c, m.ID)
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO shipping_method_countries (country, method_id) VALUES `+strings.Join(values, `, `), args...); err != nil {
		return fmt.Errorf("create shipping method: %w", err)
	}
	return nil
}

// RemoveMethod implements shipping.Tx. Its countries go with it (ON DELETE
// CASCADE).
func (t shippingTx) RemoveMethod(ctx context.Context, id string) (shipping.Method, error) {
	return shippingTable.remove(ctx, t.tx, id)
}

// Methods implements shipping.Store: every filter, the title pattern
// included, and the paging run in SQL.
func (s *ShippingStore) Methods(ctx context.Context, f shipping.Filter) ([]shipping.Method, error) {
	var w where
	w.in(`id`, f.IDs)
	w.in(`tax_code`, f.TaxCodes)
	if len(f.Countries) > 0 {
		var c where
		c.in(`country`, f.Countries)
		w.add(`id IN (SELECT method_id FROM shipping_method_countries`+c.String()+`)`, c.args...)
	}
	if f.Active != nil {
		w.add(`active = ?`, *f.Active)
	}
	out, err := listPage(ctx, s.db, `SELECT `+shippingColumns+` FROM shipping_methods`, `ORDER BY seq`, &w,
		[]regexFilter{{col: `title`, field: `title`, pattern: pattern(f.Title)}}, f.Limit, f.Skip, scanMethod)
	if err != nil {
		return nil, fmt.Errorf("list shipping methods: %w", err)
	}
	return out, nil
}

// ActiveMethods implements shipping.Store, in one query over the
// (country, method_id) index.
func (s *ShippingStore) ActiveMethods(ctx context.Context, country string) ([]shipping.Method, error) {
	rows, err := s.db.Query(ctx, `SELECT `+shippingColumns+` FROM shipping_methods
		WHERE active AND id IN (SELECT method_id FROM shipping_method_countries WHERE country = ?)
		ORDER BY seq`, country)
	return scanAll(s.db, "active shipping methods", []shipping.Method{}, rows, err, scanMethod)
}

// scanMethod reads a row of shippingColumns; sql.ErrNoRows is returned as
// is for NotFound.
func scanMethod(row rowScanner) (shipping.Method, error) {
	var m shipping.Method
	var rates string
	if err := row.Scan(&m.ID, &m.Title, &m.Active, &m.TaxCode, &rates); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return shipping.Method{}, err
		}
		return shipping.Method{}, fmt.Errorf("scan shipping method: %w", err)
	}
	var groups []storedGroup
	if err := json.Unmarshal([]byte(rates), &groups); err != nil {
		return shipping.Method{}, fmt.Errorf("shipping method %s: rates: %w", m.ID, err)
	}
	m.Rates = make([]shipping.RateGroup, len(groups))
	for i, g := range groups {
		rg := shipping.RateGroup{ID: g.ID, Locations: g.Locations, Rates: make([]shipping.Rate, len(g.Rates))}
		if rg.Locations == nil {
			rg.Locations = []shipping.Location{}
		}
		for j, r := range g.Rates {
			rg.Rates[j] = shipping.Rate{Currency: r.Currency, Amount: r.Amount}
		}
		m.Rates[i] = rg
	}
	return m, nil
}
