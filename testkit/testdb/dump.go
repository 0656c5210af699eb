package testdb

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
)

// Dump returns every row of every table of the database as text, one line
// per row, "table: value | value | ...": what an outside auditor reads
// of it (an SQLite .dump, or every PostgreSQL table's rows). Text, JSON
// and binary columns come as their bytes (a PostgreSQL BYTEA decoded, not
// in hex), so a search of the dump finds a string wherever a column holds
// it. SQLite's full-text index tables are read too.
func Dump(t testing.TB, db *sqldb.DB) string {
	t.Helper()
	ctx := context.Background()
	list := `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
	if db.Dialect().Name() != "sqlite" {
		list = `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`
	}
	rows, err := db.Query(ctx, list)
	if err != nil {
		t.Fatalf("dump: tables: %v", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatalf("dump: %v", err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(tables) == 0 {
		t.Fatalf("dump: tables %v: %v", tables, err)
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.Query(ctx, `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			b.WriteString(table + ":")
			for i, v := range vals {
				if i > 0 {
					b.WriteString(" |")
				}
				switch v := v.(type) {
				case nil:
					b.WriteString(" NULL")
				case []byte:
					b.WriteString(" " + string(v))
				default:
					fmt.Fprintf(&b, " %v", v)
				}
			}
			b.WriteByte('\n')
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
	}
	return b.String()
}
