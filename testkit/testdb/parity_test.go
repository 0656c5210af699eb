package testdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// schema is a database's tables as the parity test compares them.
type schema map[string]*table

// table is what the parity test compares of a table: columns with their
// type family and nullability, the primary key, and the unique
// constraints and indexes by their columns (in order), uniqueness and
// partiality. Names of constraints and indexes are not compared: SQLite
// names a UNIQUE column constraint itself.
type table struct {
	Columns     map[string]string // name -> "family null|not null"
	PrimaryKey  []string
	Indexes     []string // "unique (a, b) partial", sorted
	ForeignKeys []string // "(a, b) -> t (c, d) on delete cascade", sorted
}

// family is the normalised type family of a declared type. SQLite has no
// boolean: a PostgreSQL BOOLEAN is an SQLite INTEGER (0/1), so both are
// "integer"; the sizes of integers (INTEGER, BIGINT) are one family.
func family(t string) string {
	t = strings.ToLower(t)
	switch {
	case strings.Contains(t, "int"), t == "boolean", t == "bool":
		return "integer"
	case strings.Contains(t, "char"), strings.Contains(t, "text"), strings.Contains(t, "clob"):
		return "text"
	case strings.Contains(t, "real"), strings.Contains(t, "floa"), strings.Contains(t, "doub"), t == "numeric", strings.HasPrefix(t, "decimal"):
		return "number"
	case strings.Contains(t, "blob"), t == "bytea":
		return "bytes"
	}
	return t
}

// TestSchemaParity applies both migration sets, the SQLite one to a temp
// file and the PostgreSQL one to a fresh database, and compares their
// tables, columns (name, type family, nullability), primary keys, unique
// constraints, indexes and foreign keys, so that the two cannot drift.
func TestSchemaParity(t *testing.T) {
	ldb, pdb := testdb.SQLite(t), testdb.Postgres(t)
	lite, pg := sqliteSchema(t, ldb), postgresSchema(t, pdb)
	if lite["products"] == nil || len(lite["products"].Columns) < 5 || len(lite["products"].Indexes) == 0 || len(pg["products"].Indexes) == 0 {
		t.Fatalf("schemas not read: SQLite %+v, PostgreSQL %+v", lite["products"], pg["products"])
	}
	for _, d := range diff(lite, pg) {
		t.Error(d)
	}

	// The comparison sees drift: an index, a nullability and a table on
	// one side only.
	ctx := context.Background()
	err := ldb.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{
			`CREATE INDEX drift_title ON products (title)`,
			`CREATE TABLE drift (a TEXT)`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := pdb.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, `ALTER TABLE taxes ALTER COLUMN title DROP NOT NULL`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(diff(sqliteSchema(t, ldb), postgresSchema(t, pdb)), "\n")
	for _, want := range []string{"table drift: only on SQLite", "products: indexes differ", "taxes.title: text not null on SQLite, text null on PostgreSQL"} {
		if !strings.Contains(got, want) {
			t.Errorf("drift not reported: want %q in\n%s", want, got)
		}
	}
}

// diff lists the differences of two schemas.
func diff(lite, pg schema) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(lite)) {
		if pg[name] == nil {
			out = append(out, fmt.Sprintf("table %s: only on SQLite", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pg)) {
		l, p := lite[name], pg[name]
		if l == nil {
			out = append(out, fmt.Sprintf("table %s: only on PostgreSQL", name))
			continue
		}
		for _, c := range slices.Sorted(maps.Keys(l.Columns)) {
			if _, ok := p.Columns[c]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: only on SQLite", name, c))
			}
		}
		for _, c := range slices.Sorted(maps.Keys(p.Columns)) {
			lc, ok := l.Columns[c]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s.%s: only on PostgreSQL", name, c))
			case lc != p.Columns[c]:
				out = append(out, fmt.Sprintf("%s.%s: %s on SQLite, %s on PostgreSQL", name, c, lc, p.Columns[c]))
			}
		}
		if !slices.Equal(l.PrimaryKey, p.PrimaryKey) {
			out = append(out, fmt.Sprintf("%s: primary key %v on SQLite, %v on PostgreSQL", name, l.PrimaryKey, p.PrimaryKey))
		}
		if !slices.Equal(l.Indexes, p.Indexes) {
			out = append(out, fmt.Sprintf("%s: indexes differ\n  SQLite:     %q\n  PostgreSQL: %q", name, l.Indexes, p.Indexes))
		}
		if !slices.Equal(l.ForeignKeys, p.ForeignKeys) {
			out = append(out, fmt.Sprintf("%s: foreign keys differ\n  SQLite:     %q\n  PostgreSQL: %q", name, l.ForeignKeys, p.ForeignKeys))
		}
	}
	return out
}

// rows runs q and hands each row's values to fn.
func rows(t *testing.T, db *sqldb.DB, q string, fn func(vals []sql.NullString), args ...any) {
	t.Helper()
	rs, err := db.Query(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		fn(vals)
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func nullability(notNull bool) string {
	if notNull {
		return "not null"
	}
	return "null"
}

func indexKey(unique bool, cols []string, partial bool) string {
	s := "(" + strings.Join(cols, ", ") + ")"
	if unique {
		s = "unique " + s
	}
	if partial {
		s += " partial"
	}
	return s
}

// searchIndex reports whether a table is the storage of the product
// search index, which each database keeps its own way and the parity test
// leaves out: on SQLite the FTS5 table product_search and its shadow
// tables (product_search_data, _idx, _docsize, _config), on PostgreSQL the
// tsvector table product_search (migrations 0015_search.sql).
func searchIndex(name string) bool {
	return name == "product_search" || strings.HasPrefix(name, "product_search_")
}

func sqliteSchema(t *testing.T, db *sqldb.DB) schema {
	s := schema{}
	rows(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`, func(v []sql.NullString) {
		if !searchIndex(v[0].String) {
			s[v[0].String] = &table{Columns: map[string]string{}}
		}
	})
	for name, tb := range s {
		type pkCol struct {
			name string
			pos  string
		}
		var pk []pkCol
		rows(t, db, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, func(v []sql.NullString) {
			notNull := v[2].String == "1" || v[3].String != "0" // a primary key column is NOT NULL on PostgreSQL
			tb.Columns[v[0].String] = family(v[1].String) + " " + nullability(notNull)
			if v[3].String != "0" {
				pk = append(pk, pkCol{v[0].String, v[3].String})
			}
		}, name)
		slices.SortFunc(pk, func(a, b pkCol) int { return strings.Compare(a.pos, b.pos) })
		for _, c := range pk {
			tb.PrimaryKey = append(tb.PrimaryKey, c.name)
		}
		type index struct {
			name, origin string
			unique, part bool
		}
		var idx []index
		rows(t, db, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, func(v []sql.NullString) {
			idx = append(idx, index{v[0].String, v[2].String, v[1].String == "1", v[3].String == "1"})
		}, name)
		for _, ix := range idx {
			if ix.origin == "pk" {
				continue // the primary key, compared above
			}
			var cols []string
			rows(t, db, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, func(v []sql.NullString) {
				if !v[0].Valid {
					cols = append(cols, "<expression>")
					return
				}
				cols = append(cols, v[0].String)
			}, ix.name)
			tb.Indexes = append(tb.Indexes, indexKey(ix.unique, cols, ix.part))
		}
		slices.Sort(tb.Indexes)
		fks := map[string][2][]string{}
		refTable, onDelete := map[string]string{}, map[string]string{}
		rows(t, db, `SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, func(v []sql.NullString) {
			fk := fks[v[0].String]
			to := v[3].String
			if !v[3].Valid { // the referenced table's primary key
				to = "<primary key>"
			}
			fks[v[0].String] = [2][]string{append(fk[0], v[2].String), append(fk[1], to)}
			refTable[v[0].String] = v[1].String
			onDelete[v[0].String] = strings.ToLower(v[4].String)
		}, name)
		for id, fk := range fks {
			tb.ForeignKeys = append(tb.ForeignKeys, fmt.Sprintf("(%s) -> %s (%s) on delete %s", strings.Join(fk[0], ", "), refTable[id], strings.Join(fk[1], ", "), onDelete[id]))
		}
		slices.Sort(tb.ForeignKeys)
	}
	return s
}

func postgresSchema(t *testing.T, db *sqldb.DB) schema {
	s := schema{}
	rows(t, db, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`, func(v []sql.NullString) {
		if !searchIndex(v[0].String) {
			s[v[0].String] = &table{Columns: map[string]string{}}
		}
	})
	rows(t, db, `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`, func(v []sql.NullString) {
		if tb := s[v[0].String]; tb != nil {
			tb.Columns[v[1].String] = family(v[2].String) + " " + nullability(v[3].String == "NO")
		}
	})
	// Indexes (the primary key's apart), with their columns in order (0: an
	// expression) and whether they are partial.
	rows(t, db, `SELECT c.relname, i.indisprimary, i.indisunique, i.indpred IS NOT NULL,
			array_to_string(ARRAY(SELECT COALESCE(a.attname, '<expression>')
				FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
				LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
				ORDER BY k.n), ',')
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace ns ON ns.oid = c.relnamespace AND ns.nspname = 'public'`, func(v []sql.NullString) {
		tb := s[v[0].String]
		if tb == nil {
			return
		}
		cols := strings.Split(v[4].String, ",")
		if v[1].String == "true" {
			tb.PrimaryKey = cols
			return
		}
		tb.Indexes = append(tb.Indexes, indexKey(v[2].String == "true", cols, v[3].String == "true"))
	})
	rows(t, db, `SELECT c.relname, r.relname,
			array_to_string(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY x(attnum, n)
				JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum ORDER BY x.n), ', '),
			array_to_string(ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY x(attnum, n)
				JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum ORDER BY x.n), ', '),
			CASE k.confdeltype WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict' WHEN 'c' THEN 'cascade'
				WHEN 'n' THEN 'set null' WHEN 'd' THEN 'set default' END
		FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid
		JOIN pg_class r ON r.oid = k.confrelid
		JOIN pg_namespace ns ON ns.oid = c.relnamespace AND ns.nspname = 'public'
		WHERE k.contype = 'f'`, func(v []sql.NullString) {
		if tb := s[v[0].String]; tb != nil {
			tb.ForeignKeys = append(tb.ForeignKeys, fmt.Sprintf("(%s) -> %s (%s) on delete %s", v[2].String, v[1].String, v[3].String, v[4].String))
		}
	})
	for _, tb := range s {
		slices.Sort(tb.Indexes)
		slices.Sort(tb.ForeignKeys)
	}
	return s
}
