package transfer_test

import (
	"os"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

// TestImportShopify imports a Shopify product CSV built from the columns
// of Shopify's product CSV template (testdata/shopify_products.csv: a
// UTF-8 BOM, CRLF line ends, HTML bodies with entities and a line break,
// a product with one option and an image-only row, one without options,
// a gift card with every optional column empty, a draft, an archived
// product with two options and variant images) on both stores.
func TestImportShopify(t *testing.T) {
	file, err := os.ReadFile("testdata/shopify_products.csv")
	if err != nil {
		t.Fatal(err)
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		j := importFile(t, srv, string(file), map[string]string{"format": "shopify"})
		// shirt: base + 3 variants; jacket; gift card; socks: base + 2.
		if j.Status != transfer.JobDone || j.Format != "shopify" || j.Rows != 9 || j.Created != 9 || j.Rejected != 0 {
			t.Fatalf("job %+v", j)
		}
		ps := products(t, srv)
		shirt := ps["ocean-blue-shirt"]
		if shirt.Title != "Ocean Blue Shirt" || shirt.Brand != "partners-demo" || shirt.Status != "ONLINE" ||
			len(shirt.Modifiers) != 1 || shirt.Modifiers[0] != "Size" || len(shirt.Variants) != 3 {
			t.Errorf("shirt: %+v", shirt)
		}
		if !strings.Contains(shirt.Description, "&amp; buttons down the front &mdash; a &quot;classic&quot; fit.</p>\n<ul>") {
			t.Errorf("shirt body (HTML kept, entities as they are): %q", shirt.Description)
		}
		var urls []string
		for _, m := range shirt.Medias {
			urls = append(urls, m.URL)
		}
		if strings.Join(urls, " ") != "https://cdn.example.com/ocean-blue-shirt-1.jpg https://cdn.example.com/ocean-blue-shirt-2.jpg https://cdn.example.com/ocean-blue-shirt-3.jpg" {
			t.Errorf("shirt images (by Image Position): %v", urls)
		}
		m := ps["SHIRT-M"]
		if m.Base != shirt.ID || m.Title != "Ocean Blue Shirt - M" || len(m.Variations) != 1 || m.Variations[0].Value != "M" ||
			len(m.Prices) != 1 || m.Prices[0].Amount.String() != "55.5" || m.Prices[0].Currency != "USD" || m.StockStatus != 0 {
			t.Errorf("SHIRT-M: %+v", m)
		}
		st := srv.Get(t, "/stock/v1/stock.info?productId="+m.ID+"&warehouseId=default", srv.Admin).Must(t)
		if !strings.Contains(string(st.Raw), `"quantity":12`) {
			t.Errorf("SHIRT-M stock: %s", st.Raw)
		}
		jacket := ps["JACKET-1"]
		if jacket.Status != "DRAFT" || jacket.Brand != "Acme, Inc." || jacket.Base != "" || len(jacket.Modifiers) != 0 ||
			jacket.Description != "<p>Soft leather, &lt;b&gt;not&lt;/b&gt; bold.</p>" || len(jacket.Medias) != 1 {
			t.Errorf("jacket: %+v", jacket)
		}
		gift := ps["gift-card"]
		if gift.Status != "ONLINE" || gift.StockStatus != 1 || gift.Description != "" || len(gift.Prices) != 1 {
			t.Errorf("gift card: %+v", gift)
		}
		socks := ps["striped-socks"]
		red := ps["SOCKS-RED"]
		if socks.Status != "DRAFT" || len(socks.Modifiers) != 2 || red.Status != "DRAFT" || red.StockStatus != 1 ||
			len(red.Medias) != 1 || red.Medias[0].URL != "https://cdn.example.com/socks-red.jpg" || len(red.Variations) != 2 {
			t.Errorf("socks: %+v, red: %+v", socks, red)
		}
		// Categories: the Product Category path, else the Type, else Imported.
		var cats []struct{ ID, Title, Parent string }
		srv.Get(t, "/catalog/v1/category.list?limit=100", srv.Admin).Must(t).Decode(t, "data", &cats)
		titles := map[string]string{}
		for _, c := range cats {
			titles[c.ID] = c.Title
		}
		if titles[shirt.Categories[0]] != "Shirts & Tops" || titles[jacket.Categories[0]] != "Outerwear" || titles[gift.Categories[0]] != "Imported" {
			t.Errorf("categories: shirt %v, jacket %v, gift %v in %v", shirt.Categories, jacket.Categories, gift.Categories, titles)
		}

		again := importFile(t, srv, string(file), map[string]string{"format": "shopify"})
		if again.Unchanged != 9 {
			t.Errorf("second import: %+v", again)
		}

		// Another currency; a negative inventory and a decimal comma
		// reject their rows.
		bad := strings.Replace(string(file), "JACKET-1", "JACKET-2", 1)
		bad = strings.Replace(bad, `,3,deny,,80,`, `,-3,deny,,80,`, 1)
		bad = strings.Replace(bad, "SOCKS-BLUE,,shopify,2,deny,,9.5", "SOCKS-BLUE,,shopify,2,deny,,\"9,5\"", 1)
		j = importFile(t, srv, bad, map[string]string{"format": "shopify", "currency": "EUR"})
		if j.Rejected != 2 || len(j.Errors) != 2 || j.Errors[0].SKU != "JACKET-2" || j.Errors[0].Line != 7 || j.Errors[1].SKU != "SOCKS-BLUE" {
			t.Errorf("bad rows: %+v", j)
		}
		// The price is the one of the currency asked for; the USD one stays.
		if p := products(t, srv)["SHIRT-M"]; len(p.Prices) != 2 || p.Prices[0].Currency != "USD" || p.Prices[1].Currency != "EUR" || p.Prices[1].Amount.String() != "55.5" {
			t.Errorf("SHIRT-M prices after the EUR import: %+v", p.Prices)
		}
	})
}
