package transfer_test

import (
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
	"github.com/commercekit/commerce/transfer"
)

const sampleCSV = "sku,status,title,description,brand,categories,price.USD,price.EUR,isNetPrice,stockStatus,taxCode,images,stock.main,base,variations,modifiers\n" +
	"F-1,ONLINE,Fridge one,\"Cold, quiet\",Bosch,Electro > Fridges,749.99,699,false,0,default,http://img/1.jpg|http://img/2.jpg,5,,,\n" +
	"F-2,DRAFT,Fridge two,,Fagor,Electro > Fridges|Electro > Deals,12.5,,true,1,default,,,,,\n" +
	"TEE,ONLINE,T-shirt,,,Clothes,20,,false,0,default,,,,,Color|Size\n" +
	"TEE-R-M,ONLINE,T-shirt red M,,,,20,,false,0,default,,3,TEE,Color=Red|Size=M,\n"

// TestImportCommerceCSV imports a commerce CSV on both stores: products
// created with their categories (made from the paths), prices, medias,
// stock and variants; the same file again is every row unchanged; a
// changed row is updated.
func TestImportCommerceCSV(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		j := importFile(t, srv, sampleCSV, nil)
		if j.Status != transfer.JobDone || j.Rows != 4 || j.Processed != 4 || j.Created != 4 || j.Rejected != 0 || j.FinishedAt == nil {
			t.Fatalf("job %+v", j)
		}
		ps := products(t, srv)
		f1 := ps["F-1"]
		if f1.Title != "Fridge one" || f1.Description != "Cold, quiet" || f1.Brand != "Bosch" || len(f1.Prices) != 2 ||
			len(f1.Medias) != 2 || f1.Medias[1].URL != "http://img/2.jpg" || len(f1.Categories) != 1 {
			t.Errorf("F-1: %+v", f1)
		}
		if f1.Prices[0].Amount.String() != "749.99" && f1.Prices[1].Amount.String() != "749.99" {
			t.Errorf("F-1 prices: %+v", f1.Prices)
		}
		if f2 := ps["F-2"]; f2.Status != "DRAFT" || len(f2.Categories) != 2 || f2.StockStatus != 1 || f2.Categories[0] != f1.Categories[0] {
			t.Errorf("F-2: %+v (F-1 categories %v)", f2, f1.Categories)
		}
		v := ps["TEE-R-M"]
		if v.Base != ps["TEE"].ID || len(v.Variations) != 2 || len(ps["TEE"].Variants) != 1 {
			t.Errorf("variant: %+v, base %+v", v, ps["TEE"])
		}
		st := srv.Get(t, "/stock/v1/stock.info?productId="+f1.ID+"&warehouseId=main", srv.Admin).Must(t)
		if !strings.Contains(string(st.Raw), `"quantity":5`) {
			t.Errorf("stock: %s", st.Raw)
		}
		// Categories made once: Electro, Fridges, Deals, Clothes.
		var cats []struct{ Title string }
		srv.Get(t, "/catalog/v1/category.list?limit=100", srv.Admin).Must(t).Decode(t, "data", &cats)
		if len(cats) != 5 { // ROOT and four
			t.Errorf("categories: %+v", cats)
		}

		again := importFile(t, srv, sampleCSV, nil)
		if again.Unchanged != 4 || again.Created+again.Updated+again.Rejected != 0 {
			t.Errorf("second import: %+v", again)
		}
		changed := strings.Replace(sampleCSV, "Fridge one", "Fridge uno", 1)
		changed = strings.Replace(changed, "749.99", "750", 1)
		third := importFile(t, srv, changed, nil)
		if third.Updated != 1 || third.Unchanged != 3 {
			t.Errorf("third import: %+v", third)
		}
		if p := products(t, srv)["F-1"]; p.Title != "Fridge uno" || p.ID != f1.ID {
			t.Errorf("after update: %+v", p)
		}
	})
}

// TestImportDryRun checks every row and writes nothing.
func TestImportDryRun(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		j := importFile(t, srv, sampleCSV, map[string]string{"dryRun": "true"})
		if !j.DryRun || j.Created != 4 || j.Status != transfer.JobDone {
			t.Fatalf("dry run: %+v", j)
		}
		if ps := products(t, srv); len(ps) != 0 {
			t.Errorf("dry run wrote %d products", len(ps))
		}
		var cats []struct{ Title string }
		srv.Get(t, "/catalog/v1/category.list?limit=100", srv.Admin).Must(t).Decode(t, "data", &cats)
		if len(cats) != 1 {
			t.Errorf("dry run wrote categories: %+v", cats)
		}
	})
}

// TestImportWho: product.import, job.info and the exports need the admin
// scope.
func TestImportWho(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		upload(t, srv, srv.API, []byte(sampleCSV), nil).Expect(t, 403, "forbidden")
		upload(t, srv, "", []byte(sampleCSV), nil).Expect(t, 401, "invalid_token")
		j := importFile(t, srv, sampleCSV, nil)
		srv.Get(t, "/catalog/v1/job.info?id="+j.ID, srv.API).Expect(t, 403, "forbidden")
		srv.Get(t, "/catalog/v1/job.info?id=nope", srv.Admin).Expect(t, 404, "job_not_found")
		for _, path := range []string{"/catalog/v1/product.export", "/order/v1/order.export"} {
			if st, _, body := get(t, srv, path, srv.API); st != 403 || !strings.Contains(body, "forbidden") {
				t.Errorf("%s with an api token: %d %s", path, st, body)
			}
			if st, _, _ := get(t, srv, path, ""); st != 401 {
				t.Errorf("%s without a token: %d", path, st)
			}
		}
		if ps := products(t, srv); len(ps) != 4 {
			t.Errorf("%d products", len(ps))
		}
	})
}
