package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/commercekit/commerce/sqldb"
)

const searchUsage = `usage: commerce search reindex [flags]

reindex rebuilds the product search index from the products (the index
follows every product change by itself; use it after restoring a backup
or changing the index's definition).
`

// searchCmd runs `commerce search <subcommand>`.
func searchCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "reindex" {
		fmt.Fprint(stderr, searchUsage)
		if len(args) == 0 {
			return fmt.Errorf("search: no subcommand given")
		}
		return fmt.Errorf("search: unknown subcommand %q", args[0])
	}
	var c config
	fs := newFlagSet("search reindex", stderr)
	c.storageFlags(fs)
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := sqldb.NewSearchStore(db).Reindex(ctx)
	if err != nil {
		db.Close()
		return err
	}
	fmt.Fprintf(stdout, "search index rebuilt: %d products in %s\n", n, time.Since(start).Round(time.Millisecond))
	return db.Close()
}
