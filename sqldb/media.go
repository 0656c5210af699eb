package sqldb

import (
	"context"
	"time"

	"github.com/commercekit/commerce/media"
)

// MediaStore is the product images' storage (media.Store): their records;
// the bytes are in the media store.
type MediaStore struct{ db *DB }

// NewMediaStore returns the media store over db.
func NewMediaStore(db *DB) *MediaStore { return &MediaStore{db: db} }

var _ media.Store = (*MediaStore)(nil)

const mediaColumns = `id, ext, width, height, bytes, sha256, alt, created_at`

func scanMedia(row rowScanner) (media.Media, error) {
	var m media.Media
	var created int64
	if err := row.Scan(&m.ID, &m.Ext, &m.Width, &m.Height, &m.Bytes, &m.SHA256, &m.Alt, &created); err != nil {
		return m, err
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	return m, nil
}

// Update implements media.Store.
func (s *MediaStore) Update(ctx context.Context, fn func(tx media.Tx) error) error {
	return s.db.Update(ctx, func(tx *Tx) error { return fn(mediaTx{tx}) })
}

// Media implements media.Store.
func (s *MediaStore) Media(ctx context.Context, id string) (media.Media, error) {
	m, err := scanMedia(s.db.QueryRow(ctx, `SELECT `+mediaColumns+` FROM medias WHERE id = ?`, id))
	if err != nil {
		return m, s.db.NotFound(err, media.NotFound(id))
	}
	return m, nil
}

// mediaOfProduct is the condition of the images a product lists.
const mediaOfProduct = ` WHERE id IN (SELECT pm.media_id FROM product_medias pm JOIN products p ON p.seq = pm.product_seq WHERE p.id = ?)`

// List implements media.Store.
func (s *MediaStore) List(ctx context.Context, f media.Filter) ([]media.Media, int, error) {
	where, args := "", []any{}
	if f.ProductID != "" {
		where, args = mediaOfProduct, append(args, f.ProductID)
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM medias`+where, args...).Scan(&total); err != nil {
		return nil, 0, s.db.translate(err)
	}
	rows, err := s.db.Query(ctx, `SELECT `+mediaColumns+` FROM medias`+where+` ORDER BY seq DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Skip)...)
	if err != nil {
		return nil, 0, s.db.translate(err)
	}
	defer rows.Close()
	out := []media.Media{}
	for rows.Next() {
		m, err := scanMedia(rows)
		if err != nil {
			return nil, 0, s.db.translate(err)
		}
		out = append(out, m)
	}
	return out, total, s.db.translate(rows.Err())
}

// mediaTx implements media.Tx over a transaction.
type mediaTx struct{ *Tx }

// Insert implements media.Tx.
func (t mediaTx) Insert(ctx context.Context, m media.Media) error {
	_, err := t.Exec(ctx, `INSERT INTO medias (`+mediaColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.Ext, m.Width, m.Height, m.Bytes, m.SHA256, m.Alt, ms(m.CreatedAt))
	return err
}

// Delete implements media.Tx.
func (t mediaTx) Delete(ctx context.Context, id string) (media.Media, error) {
	m, err := scanMedia(t.QueryRow(ctx, `SELECT `+mediaColumns+` FROM medias WHERE id = ?`+t.ForUpdate(), id))
	if err != nil {
		return m, t.db.NotFound(err, media.NotFound(id))
	}
	_, err = t.Exec(ctx, `DELETE FROM medias WHERE id = ?`, id)
	return m, err
}

// Users implements media.Tx: the products, in creation order.
func (t mediaTx) Users(ctx context.Context, id string) ([]string, error) {
	rows, err := t.Query(ctx, `SELECT p.id FROM product_medias pm JOIN products p ON p.seq = pm.product_seq
		WHERE pm.media_id = ? ORDER BY p.seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		ids = append(ids, s)
	}
	return ids, rows.Err()
}
