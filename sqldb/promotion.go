package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/promotion"
)

// PromotionStore keeps the promotions (promotion.Store).
//
// Every change bumps the single row of promotions_version in its own
// transaction. On PostgreSQL that UPDATE also serialises the changes of
// promotions (they are rare) and makes the version follow commit order, so
// a process that reads version v and then the active promotions has every
// change up to v.
type PromotionStore struct{ db *DB }

// NewPromotionStore returns the promotion store of db.
func NewPromotionStore(db *DB) *PromotionStore { return &PromotionStore{db: db} }

var _ promotion.Store = (*PromotionStore)(nil)

const promotionColumns = `seq, id, title, class, active, priority, if_rule, then_rule`

// CreatePromotion implements promotion.Store.
func (s *PromotionStore) CreatePromotion(ctx context.Context, p promotion.Promotion, events []event.Event) (promotion.Promotion, error) {
	ifJSON, thenJSON, err := ruleJSON(p)
	if err != nil {
		return promotion.Promotion{}, err
	}
	err = s.db.Update(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO promotions (id, title, class, active, priority, if_rule, then_rule)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
			p.ID, p.Title, p.Class, p.Active, p.Priority, ifJSON, thenJSON).Scan(&p.Seq)
		if err != nil {
			return fmt.Errorf("insert promotion: %w", err)
		}
		for _, e := range events {
			tx.Emit(e)
		}
		return bumpPromotions(ctx, tx)
	})
	if err != nil {
		return promotion.Promotion{}, err
	}
	return p, nil
}

// Promotion implements promotion.Store.
func (s *PromotionStore) Promotion(ctx context.Context, id string) (promotion.Promotion, error) {
	p, err := scanPromotion(s.db.QueryRow(ctx, `SELECT `+promotionColumns+` FROM promotions WHERE id = ?`, id))
	if err != nil {
		return promotion.Promotion{}, s.db.NotFound(err, promotion.NotFound(id))
	}
	return p, nil
}

// UpdatePromotion implements promotion.Store: the row is read with
// SELECT ... FOR UPDATE on PostgreSQL (SQLite serialises writers), so two
// concurrent updates of one promotion run one after the other.
func (s *PromotionStore) UpdatePromotion(ctx context.Context, id string, change func(old promotion.Promotion) (promotion.Promotion, []event.Event, error)) (promotion.Promotion, error) {
	var out promotion.Promotion
	err := s.db.Update(ctx, func(tx *Tx) error {
		old, err := scanPromotion(tx.QueryRow(ctx, `SELECT `+promotionColumns+` FROM promotions WHERE id = ?`+s.db.ForUpdate(), id))
		if err != nil {
			return s.db.NotFound(err, promotion.NotFound(id))
		}
		p, events, err := change(old)
		if err != nil {
			return err
		}
		p.ID, p.Seq = old.ID, old.Seq
		ifJSON, thenJSON, err := ruleJSON(p)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE promotions SET title = ?, class = ?, active = ?, priority = ?, if_rule = ?, then_rule = ?
			WHERE seq = ?`, p.Title, p.Class, p.Active, p.Priority, ifJSON, thenJSON, p.Seq); err != nil {
			return fmt.Errorf("update promotion: %w", err)
		}
		for _, e := range events {
			tx.Emit(e)
		}
		out = p
		return bumpPromotions(ctx, tx)
	})
	if err != nil {
		return promotion.Promotion{}, err
	}
	return out, nil
}

// Promotions implements promotion.Store. The id and active filters and the
// paging run in SQL; a title pattern, when given, runs in Go on the rows
// the other filters leave (exact RE2 semantics on both databases), and
// then the paging too, stopping at the page's end.
func (s *PromotionStore) Promotions(ctx context.Context, f promotion.Filter) ([]promotion.Promotion, error) {
	var where []string
	var args []any
	if len(f.IDs) > 0 {
		where = append(where, `id IN (`+Placeholders(len(f.IDs))+`)`)
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if f.Active != nil {
		where = append(where, `active = ?`)
		args = append(args, *f.Active)
	}
	q := `SELECT ` + promotionColumns + ` FROM promotions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY seq`
	if f.Title == nil {
		q += ` LIMIT ? OFFSET ?`
		args = append(args, f.Limit, f.Skip)
	}
	rows, err := s.db.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list promotions: %w", err)
	}
	defer rows.Close()
	out := []promotion.Promotion{}
	skip := f.Skip
	for rows.Next() {
		if f.Title != nil && len(out) >= f.Limit {
			break
		}
		p, err := scanPromotion(rows)
		if err != nil {
			return nil, s.db.translate(err)
		}
		if f.Title != nil {
			if !f.Title.MatchString(p.Title) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.db.translate(fmt.Errorf("list promotions: %w", err))
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
		if err := tx.QueryRow(ctx, `SELECT version FROM promotions_version WHERE id = 1`).Scan(&version); err != nil {
			return fmt.Errorf("promotions version: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+promotionColumns+` FROM promotions WHERE active = ? ORDER BY priority, seq`, true)
		if err != nil {
			return fmt.Errorf("active promotions: %w", err)
		}
		defer rows.Close()
		out = out[:0]
		for rows.Next() {
			p, err := scanPromotion(rows)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	if err != nil {
		return 0, nil, err
	}
	return version, out, nil
}

// PromotionsVersion implements promotion.Store.
func (s *PromotionStore) PromotionsVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.db.QueryRow(ctx, `SELECT version FROM promotions_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, s.db.translate(fmt.Errorf("promotions version: %w", err))
	}
	return v, nil
}

// bumpPromotions increases the version of the promotions inside tx.
func bumpPromotions(ctx context.Context, tx *Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE promotions_version SET version = version + 1 WHERE id = 1`); err != nil {
		return fmt.Errorf("bump promotions version: %w", err)
	}
	return nil
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
func scanPromotion(row interface{ Scan(...any) error }) (promotion.Promotion, error) {
	var p promotion.Promotion
	var ifJSON, thenJSON string
	var prio int64
	if err := row.Scan(&p.Seq, &p.ID, &p.Title, &p.Class, &p.Active, &prio, &ifJSON, &thenJSON); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return promotion.Promotion{}, err
		}
		return promotion.Promotion{}, fmt.Errorf("scan promotion: %w", err)
	}
	p.Priority = int(prio)
	if err := json.Unmarshal([]byte(ifJSON), &p.If); err != nil {
		return promotion.Promotion{}, commerce.Errorf(commerce.EInternal, "promotion %s: stored if rule: %v", p.ID, err)
	}
	if err := json.Unmarshal([]byte(thenJSON), &p.Then); err != nil {
		return promotion.Promotion{}, commerce.Errorf(commerce.EInternal, "promotion %s: stored then rule: %v", p.ID, err)
	}
	return p, nil
}
