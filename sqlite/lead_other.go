//go:build !unix

package sqlite

import (
	"context"

	"github.com/commercekit/commerce/sqldb"
)

// tryLock always leads where file locks are not available: one process is
// expected to own an SQLite file there.
func tryLock(string) (sqldb.Lease, error) { return soleLease{}, nil }

type soleLease struct{}

func (soleLease) Check(context.Context) error { return nil }
func (soleLease) Release()                    {}
