package sqldb

import (
	"context"
	"fmt"
)

// Versions of the small tables every process keeps whole in memory
// (internal/snapcache): a row of area_versions each.
const (
	versionTaxes    = "taxes"
	versionShipping = "shipping"
)

// updateVersioned runs fn in a write transaction and, when it succeeds,
// bumps area's version in the same transaction (last, so that the row is
// locked for the shortest time). On PostgreSQL that UPDATE also
// serialises the changes of the area (they are rare, admin-made) and
// makes its version follow commit order.
func (db *DB) updateVersioned(ctx context.Context, area string, fn func(tx *Tx) error) error {
	return db.Update(ctx, func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE area_versions SET version = version + 1 WHERE area = ?`, area); err != nil {
			return fmt.Errorf("bump %s version: %w", area, err)
		}
		return nil
	})
}

// areaVersion returns area's version.
func (db *DB) areaVersion(ctx context.Context, area string) (int64, error) {
	var v int64
	if err := db.QueryRow(ctx, `SELECT version FROM area_versions WHERE area = ?`, area).Scan(&v); err != nil {
		return 0, db.translate(fmt.Errorf("%s version: %w", area, err))
	}
	return v, nil
}
