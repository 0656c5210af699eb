package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestSearchReindex empties the search index behind the products' back,
// then rebuilds it with `commerce search reindex`, on both stores.
func TestSearchReindex(t *testing.T) {
	for _, store := range []struct {
		name  string
		open  func(t *testing.T) (*sqldb.DB, string) // the database and its --db
		empty string
	}{
		{"sqlite", func(t *testing.T) (*sqldb.DB, string) {
			path := filepath.Join(t.TempDir(), "c.db")
			return testdb.SQLiteAt(t, path), "sqlite:" + path
		}, `INSERT INTO product_search (product_search) VALUES ('delete-all')`},
		{"postgres", func(t *testing.T) (*sqldb.DB, string) {
			url := testdb.PostgresURL(t)
			return testdb.PostgresAt(t, url), url
		}, `DELETE FROM product_search`},
	} {
		t.Run(store.name, func(t *testing.T) {
			db, flag := store.open(t)
			searchReindex(t, db, flag, store.empty)
		})
	}
}

func searchReindex(t *testing.T, db *sqldb.DB, flag, empty string) {
	ctx := context.Background()
	p := &catalog.Product{ID: "p1", SKU: "S1", Status: catalog.StatusOnline, Title: "Frigorífico Bosch",
		Categories: []string{}, Prices: []catalog.Price{}, Medias: []catalog.Media{}, Classifications: []catalog.ClassificationValue{},
		TaxCode: catalog.DefaultTaxCode}
	if err := sqldb.NewCatalogStore(db).Update(ctx, func(tx catalog.Tx) error { return tx.CreateProducts(ctx, []*catalog.Product{p}) }); err != nil {
		t.Fatal(err)
	}
	found := func() int {
		res, err := sqldb.NewSearchStore(db).Search(ctx, search.Query{Words: []string{"frigorifico"}, Currency: "USD", Limit: 10, Sort: search.SortRelevance})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if found() != 1 {
		t.Fatal("not found after the create")
	}
	if err := db.Update(ctx, func(tx *sqldb.Tx) error {
		_, err := tx.Exec(ctx, empty)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if found() != 0 {
		t.Fatal("found after emptying the index")
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"search", "reindex", "--db", flag}, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "search index rebuilt: 1 products") {
		t.Errorf("got %q", out.String())
	}
	if found() != 1 {
		t.Error("not found after the reindex")
	}
	for _, args := range [][]string{{"search"}, {"search", "rebuild"}} {
		if err := run(ctx, args, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
