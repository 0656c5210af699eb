package sqldb_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// legacyDoc is a product as the store wrote it before it had a stored form
// of its own: the interface's JSON of the time, prices in major units, no
// "v" (what catalog.Product marshalled to, Variants left out).
const legacyDoc = `{"id":"legacy","sku":"LEGACY","status":"ONLINE","title":"Old fridge","description":"Cold","brand":"Bosch",` +
	`"categories":["c"],"prices":[{"id":"usd","amount":577.65,"currency":"USD"},` +
	`{"id":"jpy","amount":1200,"currency":"JPY","country":"JP","customerType":"VIP","channel":"WEB","validFrom":"2017-01-01T00:00:00Z","validUntil":"2017-01-01T23:59:59.999Z"},` +
	`{"id":"jod","amount":1.005,"currency":"JOD"},{"id":"cents","amount":0.1,"currency":"EUR"}],` +
	`"isNetPrice":true,"stockStatus":1,"medias":[{"id":"m1","url":"//img/1.jpg"}],` +
	`"classifications":[{"id":"energy","value":"A+"},{"id":"width","value":59.5},{"id":"frost","value":true}],` +
	`"modifiers":["size"],"taxCode":"reduced"}`

// legacyProduct is legacyDoc as a record.
func legacyProduct() *catalog.Product {
	from := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	until := from.Add(24*time.Hour - time.Millisecond)
	return &catalog.Product{ID: "legacy", SKU: "LEGACY", Status: catalog.StatusOnline, Title: "Old fridge", Description: "Cold",
		Brand: "Bosch", Categories: []string{"c"}, IsNetPrice: true, StockStatus: 1, TaxCode: "reduced",
		Prices: []catalog.Price{{ID: "usd", Amount: 57765, Currency: "USD"},
			{ID: "jpy", Amount: 1200, Currency: "JPY", Country: "JP", CustomerType: "VIP", Channel: "WEB", ValidFrom: &from, ValidUntil: &until},
			{ID: "jod", Amount: 1005, Currency: "JOD"}, {ID: "cents", Amount: 10, Currency: "EUR"}},
		Medias: []catalog.Media{{ID: "m1", URL: "//img/1.jpg"}},
		Classifications: []catalog.ClassificationValue{{ID: "energy", Value: catalog.StringLiteral("A+")},
			{ID: "width", Value: catalog.NumberLiteral("59.5")}, {ID: "frost", Value: catalog.BoolLiteral(true)}},
		Modifiers: []string{"size"}, Variants: []string{}}
}

// insertRaw writes a product row (and its side rows, as the store of the
// time wrote them) with the given document.
func insertRaw(t *testing.T, db *sqldb.DB, id, sku, doc string) {
	t.Helper()
	ctx := context.Background()
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO products (id, sku, status, title, description, brand, tax_code, stock_status, is_net_price, base, version, doc)
			VALUES (?, ?, 'ONLINE', 'Old fridge', 'Cold', 'Bosch', 'reduced', 1, ?, NULL, 1, ?)`, id, sku, true, doc); err != nil {
			return err
		}
		var seq int64
		if err := tx.QueryRow(ctx, `SELECT seq FROM products WHERE id = ?`, id).Scan(&seq); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO product_categories (category_id, product_seq) VALUES ('c', ?)`, seq); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO product_prices (product_seq, price_id, amount, currency) VALUES (?, 'usd', 57765, 'USD')`, seq)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// storedDoc returns the document of a product as stored.
func storedDoc(t *testing.T, db *sqldb.DB, id string) map[string]any {
	t.Helper()
	var doc string
	if err := db.QueryRow(context.Background(), `SELECT doc FROM products WHERE id = ?`, id).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCatalogLegacyStoredForm: a product stored in the form written before
// the store had its own (the interface's JSON, major units) reads exactly
// as it was, by every read, and its next update rewrites it in the
// current form (version 1, minor units) without changing it.
func TestCatalogLegacyStoredForm(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		svc := catalog.NewService(store, nil, nil)
		c := &catalog.Category{ID: "c", Title: "C", Slug: "c", Parent: catalog.RootID, Level: 2, Path: "ROOT.c",
			Classifications: []catalog.ClassificationDef{{ID: "energy", Type: catalog.TypeString, Mandatory: true},
				{ID: "width", Type: catalog.TypeNumber}, {ID: "frost", Type: catalog.TypeBoolean}}}
		if err := store.Update(ctx, func(tx catalog.Tx) error { return tx.CreateCategory(ctx, c) }); err != nil {
			t.Fatal(err)
		}
		insertRaw(t, db, "legacy", "LEGACY", legacyDoc)
		want := legacyProduct()

		t.Run("Product", func(t *testing.T) {
			got, err := store.Product(ctx, "legacy")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
		t.Run("Products and ListProducts", func(t *testing.T) {
			got, err := store.Products(ctx, []string{"legacy"})
			if err != nil || !reflect.DeepEqual(got["legacy"], want) {
				t.Errorf("Products: got %+v, %v", got["legacy"], err)
			}
			list, err := store.ListProducts(ctx, catalog.ProductFilter{Categories: []string{"c"}, PriceIDs: []string{"usd"},
				Statuses: []string{catalog.StatusOnline}, Limit: 10})
			if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], want) {
				t.Errorf("ListProducts: got %v, %v", list, err)
			}
		})
		t.Run("the interface's form is unchanged", func(t *testing.T) {
			got, err := svc.Product(ctx, "legacy")
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var gotJSON, wantJSON map[string]any
			_ = json.Unmarshal(b, &gotJSON)
			_ = json.Unmarshal([]byte(legacyDoc), &wantJSON)
			wantJSON["variants"] = []any{} // computed, never stored
			if !reflect.DeepEqual(gotJSON, wantJSON) {
				t.Errorf("got %s\nwant %s", b, legacyDoc)
			}
		})
		t.Run("an update rewrites it in the current form", func(t *testing.T) {
			title := "Renamed"
			if _, err := svc.UpdateProduct(ctx, catalog.UpdateProductInput{ID: "legacy", ProductFields: catalog.ProductFields{Title: &title}}); err != nil {
				t.Fatal(err)
			}
			doc := storedDoc(t, db, "legacy")
			if doc["v"] != 1.0 {
				t.Errorf("stored form v%v, want v1", doc["v"])
			}
			amounts := map[string]any{}
			for _, p := range doc["prices"].([]any) {
				amounts[p.(map[string]any)["id"].(string)] = p.(map[string]any)["amount"]
			}
			if !reflect.DeepEqual(amounts, map[string]any{"usd": 57765.0, "jpy": 1200.0, "jod": 1005.0, "cents": 10.0}) {
				t.Errorf("stored amounts %v, want minor units", amounts)
			}
			got, err := store.Product(ctx, "legacy")
			if err != nil {
				t.Fatal(err)
			}
			want.Title = title
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	})
}

// TestCatalogStoredFormVersions: the current form is versioned and in
// minor units; a form this release does not know is an error, not a guess.
func TestCatalogStoredFormVersions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := sqldb.NewCatalogStore(db)
		c := &catalog.Category{ID: "c", Title: "C", Slug: "c", Parent: catalog.RootID, Level: 2, Path: "ROOT.c"}
		p := legacyProduct()
		p.ID, p.SKU, p.Variants = "current", "CURRENT", nil
		err := store.Update(ctx, func(tx catalog.Tx) error {
			if err := tx.CreateCategory(ctx, c); err != nil {
				return err
			}
			return tx.CreateProducts(ctx, []*catalog.Product{p})
		})
		if err != nil {
			t.Fatal(err)
		}
		doc := storedDoc(t, db, "current")
		if doc["v"] != 1.0 {
			t.Errorf("stored form v%v, want v1", doc["v"])
		}
		price := doc["prices"].([]any)[0].(map[string]any)
		if price["amount"] != 57765.0 || price["currency"] != "USD" {
			t.Errorf("stored price %v, want 57765 USD", price)
		}
		if v := doc["classifications"].([]any)[1].(map[string]any)["value"]; v != 59.5 {
			t.Errorf("stored NUMBER value %v, want the number 59.5", v)
		}

		tests := []struct {
			name, doc, want string
		}{
			{"a newer form", strings.Replace(legacyDoc, `{"id":"legacy"`, `{"v":2,"id":"newer"`, 1), "v2"},
			{"a legacy amount the currency cannot hold", strings.Replace(legacyDoc, `"amount":1.005`, `"amount":1.0055`, 1), "price jod"},
			{"not JSON", `{"id":`, "stored form"},
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				id := "bad" + string(rune('a'+i))
				insertRaw(t, db, id, strings.ToUpper(id), tc.doc)
				_, err := store.Product(ctx, id)
				if err == nil || commerce.ErrorCode(err) != commerce.EInternal || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want an internal error mentioning %q", err, tc.want)
				}
				list, err := store.Products(ctx, []string{"current"})
				if err != nil || !slices.Equal(productKeys(list), []string{"current"}) {
					t.Errorf("the other products still read: %v, %v", list, err)
				}
			})
		}
	})
}

func productKeys(m map[string]*catalog.Product) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
