package transfer_test

import (
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

const head = "sku,status,title,categories,price.USD,stock.main"

// TestImportBadFile: a file refused as a whole is answered at once (400
// validation_error naming the problem) and writes nothing; one refused
// while its job reads it (an unclosed quote) fails the job before any row
// is written.
func TestImportBadFile(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
		for name, c := range map[string]struct {
			file []byte
			form map[string]string
			want string
		}{
			"missing sku column":     {[]byte("title,status\nA,ONLINE\n"), nil, "the sku column is required"},
			"unknown column":         {[]byte("sku,title,colour\nA,B,red\n"), nil, `unknown column \"colour\"`},
			"bad currency":           {[]byte("sku,price.EURO\nA,1\n"), nil, "ISO 4217"},
			"not csv":                {png, nil, "not a CSV or JSON Lines file"},
			"empty":                  {[]byte(""), nil, "file: empty"},
			"no file":                {nil, nil, "file: required"},
			"bad format":             {[]byte(sampleCSV), map[string]string{"format": "woo"}, "format: must be commerce or shopify"},
			"bad dryRun":             {[]byte(sampleCSV), map[string]string{"dryRun": "perhaps"}, "dryRun: must be true or false"},
			"unknown field":          {[]byte(sampleCSV), map[string]string{"colour": "red"}, "colour: unknown field"},
			"shopify without handle": {[]byte("Title,Body (HTML)\nA,B\n"), map[string]string{"format": "shopify"}, "Handle column is required"},
		} {
			r := upload(t, srv, srv.Admin, c.file, c.form).Expect(t, 400, "validation_error")
			if !strings.Contains(string(r.Raw), c.want) {
				t.Errorf("%s: %s, want %q", name, r.Raw, c.want)
			}
		}
		// Not multipart at all.
		srv.Post(t, "/catalog/v1/product.import", srv.Admin, map[string]any{"format": "commerce"}).Expect(t, 400, "validation_error")

		// An unclosed quote on line 3: the job fails, naming the line, and
		// line 2, which is good, is not written either.
		j := importFile(t, srv, lines(head, "A,ONLINE,Good,Cat,1,1", `B,ONLINE,"Bad,Cat,1,1`, "C,ONLINE,Also good,Cat,1,1"), nil)
		if j.Status != transfer.JobFailed || len(j.Errors) != 1 || j.Errors[0].Line != 3 || j.Errors[0].Error != "validation_error" || j.Created != 0 {
			t.Errorf("unclosed quote: %+v", j)
		}
		if ps := products(t, srv); len(ps) != 0 {
			t.Errorf("written: %v", ps)
		}
	})
}

// TestImportBadRows: each bad row is rejected with its line, sku and
// error, the good ones are written, and a rejected row leaves nothing
// behind (not even the category it named).
func TestImportBadRows(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		big := strings.Repeat("x", 10<<20)
		file := lines(head+",description",
			"OK-1,ONLINE,Good,Cat,12.50,3,",               // 2
			"COMMA,ONLINE,Decimal comma,Cat,\"12,50\",1,", // 3
			"NEG,ONLINE,Negative stock,Cat,1,-4,",         // 4
			"OK-1,ONLINE,Same sku again,Cat,1,1,",         // 5
			"BIG,ONLINE,Big cell,Cat,1,1,"+big,            // 6
			"NOSTATUS,,No status,Cat,1,1,",                // 7
			"ORPHAN,ONLINE,Lonely,Brand new > Place,1,1,", // 8: a category made for it...
			"SHORT,ONLINE",                   // 9
			"OK-2,ONLINE,Good too,Cat,0.5,,", // 10
		)
		file = strings.Replace(file, "ORPHAN,ONLINE,Lonely,Brand new > Place,1,1,", "ORPHAN,ONLINE,Lonely,Brand new > Place,1.234,1,", 1)
		j := importFile(t, srv, file, nil)
		if j.Status != transfer.JobDone || j.Rows != 9 || j.Created != 2 || j.Rejected != 7 {
			t.Fatalf("job %+v", j)
		}
		want := map[int]struct{ sku, code, text string }{
			3: {"COMMA", "validation_error", "price.USD: must be an amount in major units with a dot"},
			4: {"NEG", "validation_error", "stock.main: must be a whole number of units, 0 or more"},
			5: {"OK-1", "validation_error", "already on line 2"},
			6: {"BIG", "validation_error", "description: longer than"},
			7: {"NOSTATUS", "validation_error", "status: required"},
			8: {"ORPHAN", "price_invalid", ""},
			9: {"SHORT", "validation_error", "has 2 cells, the header has 7 columns"},
		}
		for _, e := range j.Errors {
			w, ok := want[e.Line]
			if !ok {
				t.Errorf("unexpected error %+v", e)
				continue
			}
			delete(want, e.Line)
			if e.SKU != w.sku || e.Error != w.code || !strings.Contains(strings.Join(toStrings(e.Data), " "), w.text) {
				t.Errorf("line %d: %+v, want %+v", e.Line, e, w)
			}
		}
		for line, w := range want {
			t.Errorf("line %d: no error, want %+v", line, w)
		}
		ps := products(t, srv)
		if len(ps) != 2 || ps["OK-1"].Title != "Good" || ps["OK-2"].Title != "Good too" {
			t.Errorf("products: %+v", ps)
		}
		var cats []struct{ Title string }
		srv.Get(t, "/catalog/v1/category.list?limit=100", srv.Admin).Must(t).Decode(t, "data", &cats)
		for _, c := range cats {
			if c.Title == "Brand new" || c.Title == "Place" {
				t.Errorf("the rejected row's category %q was left behind", c.Title)
			}
		}
	})
}

func toStrings(v any) []string {
	switch d := v.(type) {
	case []any:
		var out []string
		for _, x := range d {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case string:
		return []string{d}
	}
	return nil
}
