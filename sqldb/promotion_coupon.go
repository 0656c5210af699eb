package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce/promotion"
)

// anonymous is the customer_id of a redemption without a customer (an
// ANON order), never counted per customer.
const anonymous = "ANON"

// couponArgs returns the stored values of p's coupon fields: code,
// code_key, start_at, end_at, usage_limit, usage_limit_per_customer
// (NULL when absent).
func couponArgs(p promotion.Promotion) [6]any {
	var out [6]any
	if p.Code != nil {
		out[0], out[1] = *p.Code, p.CodeKey()
	}
	if p.StartDate != nil {
		out[2] = p.StartDate.UnixMilli()
	}
	if p.EndDate != nil {
		out[3] = p.EndDate.UnixMilli()
	}
	if p.UsageLimit != nil {
		out[4] = int64(*p.UsageLimit)
	}
	if p.UsageLimitPerCustomer != nil {
		out[5] = int64(*p.UsageLimitPerCustomer)
	}
	return out
}

func nullTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.UnixMilli(v.Int64).UTC()
	return &t
}

func nullInt(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	n := int(v.Int64)
	return &n
}

// PromotionByCode implements promotion.Store.
func (s *PromotionStore) PromotionByCode(ctx context.Context, key string) (promotion.Promotion, error) {
	p, err := scanPromotion(s.db.QueryRow(ctx, `SELECT `+promotionColumns+` FROM promotions WHERE code_key = ?`, key))
	if err != nil {
		return promotion.Promotion{}, s.db.NotFound(err, promotion.NotFound(key))
	}
	return p, nil
}

// Usage implements promotion.Store: the counts, and the customer's uses
// counted on the redemptions' (promotion_id, customer_id) index.
func (s *PromotionStore) Usage(ctx context.Context, ids []string, customerID string) (map[string]promotion.Usage, error) {
	out := make(map[string]promotion.Usage, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	counted := customerID != "" && customerID != anonymous
	q := `SELECT id, usage_count, 0 FROM promotions WHERE id IN (` + Placeholders(len(ids)) + `)`
	if counted {
		q = `SELECT p.id, p.usage_count, (SELECT COUNT(*) FROM promotion_redemptions r WHERE r.promotion_id = p.id AND r.customer_id = ?)
			FROM promotions p WHERE p.id IN (` + Placeholders(len(ids)) + `)`
		args = append([]any{customerID}, args...)
	}
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("promotion usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var count, customer int64
		if err := rows.Scan(&id, &count, &customer); err != nil {
			return nil, fmt.Errorf("promotion usage: %w", s.db.translate(err))
		}
		out[id] = promotion.Usage{Count: int(count), Customer: int(customer)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("promotion usage: %w", s.db.translate(err))
	}
	return out, nil
}

// Redeem implements promotion.Tx. Each promotion (in id order, so that
// two checkouts lock them in the same order) is counted by one
// conditional UPDATE: it takes the row's lock on PostgreSQL (SQLite has
// one writer) and, under it, increases usage_count only below the limit;
// the customer's uses are counted after that lock, so none committed by a
// concurrent checkout is missed.
func (t promotionTx) Redeem(ctx context.Context, r promotion.Redemption) error {
	customer := r.CustomerID
	if customer == "" {
		customer = anonymous
	}
	ids := slices.Clone(r.PromotionIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	now := t.tx.Now().UnixMilli()
	for _, id := range ids {
		var done int
		err := t.tx.QueryRow(ctx, `SELECT COUNT(*) FROM promotion_redemptions WHERE promotion_id = ? AND cart_id = ?`, id, r.CartID).Scan(&done)
		if err != nil {
			return fmt.Errorf("redeem %s: %w", id, t.tx.Translate(err))
		}
		if done > 0 {
			continue
		}
		var code sql.NullString
		var perCustomer sql.NullInt64
		err = t.tx.QueryRow(ctx, t.tx.db.dialect.Returning(`UPDATE promotions SET usage_count = usage_count + 1
			WHERE id = ? AND (usage_limit IS NULL OR usage_count < usage_limit)`, "code, usage_limit_per_customer"), id).Scan(&code, &perCustomer)
		if errors.Is(err, sql.ErrNoRows) {
			// At its limit, or gone.
			err = t.tx.QueryRow(ctx, `SELECT code FROM promotions WHERE id = ?`, id).Scan(&code)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				continue
			case err != nil:
				return fmt.Errorf("redeem %s: %w", id, t.tx.Translate(err))
			}
			return limitReached(id, code)
		}
		if err != nil {
			return fmt.Errorf("redeem %s: %w", id, t.tx.Translate(err))
		}
		if perCustomer.Valid && customer != anonymous {
			var uses int64
			err := t.tx.QueryRow(ctx, `SELECT COUNT(*) FROM promotion_redemptions WHERE promotion_id = ? AND customer_id = ?`, id, customer).Scan(&uses)
			if err != nil {
				return fmt.Errorf("redeem %s: %w", id, t.tx.Translate(err))
			}
			if uses >= perCustomer.Int64 {
				return limitReached(id, code)
			}
		}
		if _, err := t.tx.Exec(ctx, `INSERT INTO promotion_redemptions (promotion_id, cart_id, customer_id, created_at) VALUES (?, ?, ?, ?)`,
			id, r.CartID, customer, now); err != nil {
			return fmt.Errorf("redeem %s: %w", id, err)
		}
	}
	return nil
}

func limitReached(id string, code sql.NullString) error {
	if code.Valid {
		return promotion.LimitReached(code.String)
	}
	return promotion.LimitReached(id)
}

// ReleaseRedemptions implements promotion.Tx.
func (t promotionTx) ReleaseRedemptions(ctx context.Context, cartID string) (int, error) {
	rows, err := t.tx.Query(ctx, `SELECT promotion_id FROM promotion_redemptions WHERE cart_id = ? ORDER BY promotion_id`+t.tx.ForUpdate(), cartID)
	if err != nil {
		return 0, fmt.Errorf("release redemptions: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, fmt.Errorf("release redemptions: %w", t.tx.Translate(err))
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("release redemptions: %w", t.tx.Translate(err))
	}
	for _, id := range ids {
		if _, err := t.tx.Exec(ctx, `UPDATE promotions SET usage_count = usage_count - 1 WHERE id = ? AND usage_count > 0`, id); err != nil {
			return 0, fmt.Errorf("release redemptions: %w", err)
		}
	}
	if len(ids) > 0 {
		if _, err := t.tx.Exec(ctx, `DELETE FROM promotion_redemptions WHERE cart_id = ?`, cartID); err != nil {
			return 0, fmt.Errorf("release redemptions: %w", err)
		}
	}
	return len(ids), nil
}
