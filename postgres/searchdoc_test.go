package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/postgres"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// docPieces are what the random texts of TestSearchDocParity are made of:
// ASCII words and every kind of ASCII separator (quotes and backslashes
// included), accented Latin (Latin-1 and Extended-A, folded by the
// table), letters the tokenizer keeps (Cyrillic, CJK) or folds (Greek
// with accents, ß, æ, µ), combining accents (dropped), characters that
// separate words (no-break space, dashes, emoji), digits.
var docPieces = []string{
	"Bosch", "KGN39VIEA", "no", "frost", "a", "XL", "2024", "élan", "Çedille", "ŒUVRE", "Straße", "æble", "µm",
	"Ελληνικά", "ΆΈΉ", "холодильник", "Ёлка", "冷蔵庫", "한국어", "e\u0301", "a\u0308b", "\u00a0", "—", "–", "😀",
	" ", "  ", ",", ".", "-", "_", "'", "\"", "\\", "/", ":", ";", "@", "[", "]", "{", "}", "~", "\x7f", "\t", "\n",
	"½", "ℕ", "ﬁ", "Ǆ", "İ", "ı", "ŉ", "ſ", "ĳ", "Ŋ", "Ø", "Þ", "ð", "ĸ",
}

func randomText(r *rand.Rand) string {
	if r.IntN(6) == 0 {
		return ""
	}
	var b strings.Builder
	for range r.IntN(12) + 1 {
		b.WriteString(docPieces[r.IntN(len(docPieces))])
		if r.IntN(2) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestSearchDocParity: the search document IndexProducts builds in Go is
// the one product_search_doc builds (compared as tsvector values, so
// weights and positions count), for random texts of every kind of
// character, empty fields and fields that start or end with separators;
// and texts that reach a limit of tsvector (a word over 2,047 bytes, a
// position past 16,383, a word at more than 256 positions) are left to the
// database's function.
func TestSearchDocParity(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 37))
	err := db.View(ctx, func(tx *sqldb.Tx) error {
		same := func(p sqldb.IndexText) {
			t.Helper()
			doc, ok, err := postgres.SearchDoc(ctx, tx, p)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatalf("%+v: left to the database", p)
			}
			var equal bool
			var want string
			err = tx.QueryRow(ctx, `SELECT CAST(? AS tsvector) = d, CAST(d AS TEXT) FROM (SELECT product_search_doc(?, ?, ?, ?, ?, ?) AS d) x`,
				doc, p.Title, p.Brand, p.SKU, p.Description, p.I18nTitle, p.I18nText).Scan(&equal, &want)
			if err != nil {
				t.Fatalf("%+v: %v", p, err)
			}
			if !equal {
				t.Fatalf("%+v:\n go:       %s\n database: %s", p, doc, want)
			}
		}
		same(sqldb.IndexText{Title: "Hello, World", Brand: "Bosch", SKU: "KGN-39", Description: " leading, and hello again,"})
		same(sqldb.IndexText{Title: ",,,", Description: "only the description"})
		for range 1500 {
			same(sqldb.IndexText{Title: randomText(r), Brand: randomText(r), SKU: randomText(r), Description: randomText(r),
				I18nTitle: randomText(r), I18nText: randomText(r)})
		}
		// Near the limits, still built here.
		same(sqldb.IndexText{Title: strings.Repeat("w", 2047), Description: strings.Repeat("again ", 256)})
		// At the limits: left to the database.
		for name, p := range map[string]sqldb.IndexText{
			"a word of 2,048 bytes":     {Title: strings.Repeat("w", 2048)},
			"a word of 2,048 bytes, ж":  {Title: strings.Repeat("ж", 1024)},
			"position 16,383":           {Title: "a b", Description: strings.Repeat("x", 0) + strings.Repeat("w ", 16381)},
			"a word at 257 positions":   {Description: strings.Repeat("again ", 257)},
			"positions across fields":   {Title: strings.Repeat("t ", 200), Description: strings.Repeat("t ", 57)},
			"a word over the positions": {Title: strings.Repeat("a ", 100), I18nText: strings.Repeat("a ", 157)},
		} {
			if _, ok, err := postgres.SearchDoc(ctx, tx, p); err != nil || ok {
				t.Errorf("%s: built in Go (ok %v, err %v), want it left to the database", name, ok, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSearchRowsOfCreatedProducts: products created in a batch have their
// search rows written in the batch's transaction, with the document the
// database's function makes of them (the trigger, which leaves a row
// written so, would otherwise have made it), their facts (online, brand,
// categories, prices), and a product whose text the Go side leaves to the
// database gets its row from the trigger.
func TestSearchRowsOfCreatedProducts(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	store := sqldb.NewCatalogStore(db)
	var ps []*catalog.Product
	for i := range 30 {
		p := &catalog.Product{ID: fmt.Sprintf("p%02d", i), SKU: fmt.Sprintf("SKU-%02d", i), Status: catalog.StatusOnline,
			Title: fmt.Sprintf("Fridge %d Straße", i), Brand: "Bosch", Description: "No frost, A+++", TaxCode: "standard",
			Categories: []string{"ROOT"},
			Prices:     []catalog.Price{{ID: fmt.Sprintf("pr%02d", i), Amount: int64(1000 + i), Currency: "USD"}}}
		if i%3 == 0 {
			p.Translations = catalog.Translations{"es": {Title: fmt.Sprintf("Frigorífico %d", i)}}
		}
		if i == 29 {
			p.Description = strings.Repeat("x", 3000) // a word tsvector cuts: the trigger's
		}
		ps = append(ps, p)
	}
	if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateProducts(ctx, ps) }); err != nil {
		t.Fatal(err)
	}
	err := db.View(ctx, func(tx *sqldb.Tx) error {
		var n, same, facts int
		err := tx.QueryRow(ctx, `SELECT COUNT(*),
			COUNT(*) FILTER (WHERE s.doc = product_search_doc(p.title, p.brand, p.sku, p.description, p.i18n_title, p.i18n_text)),
			COUNT(*) FILTER (WHERE s.online AND s.brand = 'Bosch' AND s.categories = product_search_categories(p.seq)
				AND s.categories = ARRAY['ROOT'] AND s.prices = product_search_prices(p.seq) AND s.prices ->> 'USD' IS NOT NULL)
			FROM products p JOIN product_search s ON s.product_seq = p.seq`).Scan(&n, &same, &facts)
		if err != nil {
			return err
		}
		if n != 30 || same != 30 || facts != 30 {
			t.Errorf("search rows %d, with the database's document %d, with the facts %d; want 30 each", n, same, facts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexProductsBeforeCommit: IndexProducts writes a new product's row
// in its transaction (it is there before the commit), and the deferred
// trigger, at the commit, leaves it: one row, the database's document.
func TestIndexProductsBeforeCommit(t *testing.T) {
	db := testdb.Postgres(t)
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		var seq int64
		err := tx.QueryRow(ctx, `INSERT INTO products (id, sku, status, title, description, brand, tax_code, stock_status, is_net_price, base, version, doc)
			VALUES ('p1', 'SKU-1', 'ONLINE', 'Kühlschrank Größe XL', 'Ein, zwei; drei', NULL, 'standard', 0, false, NULL, 1, '{}') RETURNING seq`).Scan(&seq)
		if err != nil {
			return err
		}
		text := sqldb.IndexText{Seq: seq, Title: "Kühlschrank Größe XL", SKU: "SKU-1", Description: "Ein, zwei; drei"}
		if err := (postgres.Dialect{}).IndexProducts(ctx, tx, []sqldb.IndexText{text}); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM product_search WHERE product_seq = ?`, seq).Scan(&n); err != nil {
			return err
		}
		if n != 1 {
			t.Errorf("rows before the commit: %d, want 1", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n, same int
	err = db.View(ctx, func(tx *sqldb.Tx) error {
		return tx.QueryRow(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE s.doc = product_search_doc(p.title, p.brand, p.sku, p.description, p.i18n_title, p.i18n_text))
			FROM product_search s JOIN products p ON p.seq = s.product_seq`).Scan(&n, &same)
	})
	if err != nil || n != 1 || same != 1 {
		t.Fatalf("after the commit: %d rows, %d with the database's document (%v); want 1, 1", n, same, err)
	}
}
