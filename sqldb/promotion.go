package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/promotion"
)

// PromotionStore keeps the promotions (promotion.Store).
//
// Every write of a promotion (CreatePromotion, UpdatePromotion) bumps the
// promotions' version (versions.go) in its transaction; recording uses
// (Redeem) does not, since the cache holds no counts.
type PromotionStore struct{ db *DB }

// NewPromotionStore returns the promotion store of db.
func NewPromotionStore(db *DB) *PromotionStore { return &PromotionStore{db: db} }

var _ promotion.Store = (*PromotionStore)(nil)

const promotionColumns = `seq, id, title, class, active, priority, if_rule, then_rule,
	code, start_at, end_at, usage_limit, usage_limit_per_customer, usage_count`

var promotionTable = newRecordTable("promotion", "promotions", promotionColumns, scanPromotion, promotion.NotFound)

// Update implements promotion.Store.
func (s *PromotionStore) Update(ctx context.Context, fn func(tx promotion.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(promotionTx{tx}) })
}

// Promotion implements promotion.Store.
func (s *PromotionStore) Promotion(ctx context.Context, id string) (promotion.Promotion, error) {
	return promotionTable.get(ctx, s.db, id)
}

// promotionTx implements promotion.Tx over a transaction.
type promotionTx struct{ tx *Tx }

// Emit implements promotion.Tx.
func (t promotionTx) Emit(e event.Event) { t.tx.Emit(e) }

// Promotion implements promotion.Tx: SELECT ... FOR UPDATE on PostgreSQL
// (SQLite serialises its writers), so two concurrent changes of one
// promotion run one after the other.
func (t promotionTx) Promotion(ctx context.Context, id string) (promotion.Promotion, error) {
	return promotionTable.lock(ctx, t.tx, id)
}

// CreatePromotion implements promotion.Tx.
func (t promotionTx) CreatePromotion(ctx context.Context, p *promotion.Promotion) error {
	ifJSON, thenJSON, err := ruleJSON(*p)
	if err != nil {
		return err
	}
	c := couponArgs(*p)
	err = t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`INSERT INTO promotions (id, title, class, active, priority, if_rule, then_rule,
		code, code_key, start_at, end_at, usage_limit, usage_limit_per_customer)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "seq"),
		p.ID, p.Title, p.Class, p.Active, p.Priority, ifJSON, thenJSON, c[0], c[1], c[2], c[3], c[4], c[5]).Scan(&p.Seq)
	if err != nil {
		return fmt.Errorf("insert promotion: %w", t.tx.Translate(err))
	}
	return bumpVersion(ctx, t.tx, versionPromotions)
}

// UpdatePromotion implements promotion.Tx.
func (t promotionTx) UpdatePromotion(ctx context.Context, p promotion.Promotion) error {
	ifJSON, thenJSON, err := ruleJSON(p)
	if err != nil {
		return err
	}
	c := couponArgs(p)
	res, err := t.tx.Exec(ctx, `UPDATE promotions SET title = ?, class = ?, active = ?, priority = ?, if_rule = ?, then_rule = ?,
		code = ?, code_key = ?, start_at = ?, end_at = ?, usage_limit = ?, usage_limit_per_customer = ?
		WHERE id = ?`, p.Title, p.Class, p.Active, p.Priority, ifJSON, thenJSON, c[0], c[1], c[2], c[3], c[4], c[5], p.ID)
	if err := promotionTable.updated(t.tx, p.ID, res, err); err != nil {
		return err
	}
	return bumpVersion(ctx, t.tx, versionPromotions)
}

// Promotions implements promotion.Store: every filter, the title pattern
// included, and the paging run in SQL.
func (s *PromotionStore) Promotions(ctx context.Context, f promotion.Filter) ([]promotion.Promotion, error) {
	var w where
	w.in(`id`, f.IDs)
	if f.Active != nil {
		w.add(`active = ?`, *f.Active)
	}
	if f.CodeKey != nil {
		w.add(`code_key = ?`, *f.CodeKey)
	}
	out, err := listPage(ctx, s.db, `SELECT `+promotionColumns+` FROM promotions`, `ORDER BY seq`, &w,
		[]regexFilter{{col: `title`, field: `title`, pattern: pattern(f.Title)}}, f.Limit, f.Skip, scanPromotion)
	if err != nil {
		return nil, fmt.Errorf("list promotions: %w", err)
	}
	return out, nil
}

// ActivePromotions implements promotion.Store: the version is read before
// the promotions (on PostgreSQL each statement sees what is committed when
// it starts), so the promotions are at least as new as the version. They
// come in evaluation order (priority, then creation), which makes the
// engine's stable sort of them nearly free.
func (s *PromotionStore) ActivePromotions(ctx context.Context) (int64, []promotion.Promotion, error) {
	var version int64
	var out []promotion.Promotion
	err := s.db.View(ctx, func(tx *Tx) error {
		if err := tx.QueryRow(ctx, versionQuery, versionPromotions).Scan(&version); err != nil {
			return fmt.Errorf("promotions version: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+promotionColumns+` FROM promotions WHERE active = ? ORDER BY priority, seq`, true)
		out, err = scanAll(tx.DB(), "active promotions", nil, rows, err, scanPromotion)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return version, out, nil
}

// Version implements promotion.Store.
func (s *PromotionStore) Version(ctx context.Context) (int64, error) {
	return s.db.areaVersion(ctx, versionPromotions)
}

// ruleJSON returns the stored form of a promotion's rules.
func ruleJSON(p promotion.Promotion) (string, string, error) {
	ifJSON, err := json.Marshal(p.If)
	if err != nil {
		return "", "", fmt.Errorf("marshal promotion rules: %w", err)
	}
	thenJSON, err := json.Marshal(p.Then)
	if err != nil {
		return "", "", fmt.Errorf("marshal promotion rules: %w", err)
	}
	return string(ifJSON), string(thenJSON), nil
}

// scanPromotion reads a row of promotionColumns; sql.ErrNoRows is returned
// as is for NotFound.
func scanPromotion(row rowScanner) (promotion.Promotion, error) {
	var p promotion.Promotion
	var ifJSON, thenJSON string
	var prio, count int64
	var code sql.NullString
	var start, end, limit, perCustomer sql.NullInt64
	if err := row.Scan(&p.Seq, &p.ID, &p.Title, &p.Class, &p.Active, &prio, &ifJSON, &thenJSON,
		&code, &start, &end, &limit, &perCustomer, &count); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return promotion.Promotion{}, err
		}
		return promotion.Promotion{}, fmt.Errorf("scan promotion: %w", err)
	}
	p.Priority, p.UsageCount = int(prio), int(count)
	if code.Valid {
		p.Code = &code.String
	}
	p.StartDate, p.EndDate = nullTime(start), nullTime(end)
	p.UsageLimit, p.UsageLimitPerCustomer = nullInt(limit), nullInt(perCustomer)
	if err := json.Unmarshal([]byte(ifJSON), &p.If); err != nil {
		return promotion.Promotion{}, commerce.Errorf(commerce.EInternal, "promotion %s: stored if rule: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(thenJSON), &p.Then); err != nil {
		return promotion.Promotion{}, commerce.Errorf(commerce.EInternal, "promotion %s: stored then rule: %w", p.ID, err)
	}
	return p, nil
}
