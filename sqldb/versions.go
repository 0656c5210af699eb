package sqldb

import (
	"context"
	"fmt"
)

// The areas whose data every process keeps in memory, each with a row of
// area_versions: its version, bumped in the same transaction as every
// change of that data, so that a process sharing the database tells with
// one primary-key read (areaVersion) whether its copy is out of date. On
// PostgreSQL the bump also serialises the changes of the area (they are
// rare, admin-made) and makes its version follow commit order: a process
// that reads version v, then the data, has every change up to v.
const (
	versionCatalog    = "catalog"    // products and categories (catalog's product cache)
	versionPromotions = "promotions" // promotions (the compiled active promotions)
	versionTaxes      = "taxes"      // the taxes (snapshot)
	versionShipping   = "shipping"   // the shipping methods (snapshot)
)

// updateVersioned runs fn in a write transaction and, when it succeeds,
// bumps area's version in the same transaction (last, so that the row is
// locked for the shortest time).
func (db *DB) updateVersioned(ctx context.Context, area string, fn func(tx *Tx) error) error {
	return db.Update(ctx, func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return bumpVersion(ctx, tx, area)
	})
}

// bumpVersion increases area's version inside tx: for a store whose
// transactions change the area's cached data only in some of their
// writes (the promotions, whose uses change at every checkout).
func bumpVersion(ctx context.Context, tx *Tx, area string) error {
	if _, err := tx.Exec(ctx, `UPDATE area_versions SET version = version + 1 WHERE area = ?`, area); err != nil {
		return fmt.Errorf("bump %s version: %w", area, err)
	}
	return nil
}

// areaVersion returns area's version.
func (db *DB) areaVersion(ctx context.Context, area string) (int64, error) {
	var v int64
	if err := db.QueryRow(ctx, versionQuery, area).Scan(&v); err != nil {
		return 0, db.translate(fmt.Errorf("%s version: %w", area, err))
	}
	return v, nil
}

// versionQuery reads an area's version (one argument: the area).
const versionQuery = `SELECT version FROM area_versions WHERE area = ?`
