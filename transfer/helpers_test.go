package transfer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/transfer"
)

// upload posts a file to product.import with the form fields and returns
// the answer.
func upload(t testing.TB, srv *apitest.Server, token string, file []byte, fields map[string]string) apitest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if file != nil {
		fw, err := mw.CreateFormFile("file", "products.csv")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(file)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/catalog/v1/product.import", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := apitest.Response{Status: res.StatusCode, Raw: raw}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("product.import: not JSON (%d): %s", res.StatusCode, raw)
	}
	json.Unmarshal(raw, &r.Body)
	return r
}

// importFile uploads a file and waits for its job to end.
func importFile(t testing.TB, srv *apitest.Server, file string, fields map[string]string) transfer.Job {
	t.Helper()
	r := upload(t, srv, srv.Admin, []byte(file), fields).Must(t)
	var j transfer.Job
	r.Decode(t, "job", &j)
	if j.ID == "" || j.Status != transfer.JobRunning {
		t.Fatalf("product.import answered %s", r.Raw)
	}
	return wait(t, srv, j.ID)
}

// wait polls job.info until the job has ended.
func wait(t testing.TB, srv *apitest.Server, id string) transfer.Job {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute) // the 100,000-row benchmark on a loaded machine
	for {
		var j transfer.Job
		srv.Get(t, "/catalog/v1/job.info?id="+id, srv.Admin).Must(t).Decode(t, "job", &j)
		if j.Status != transfer.JobRunning {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still running: %+v", id, j)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// get fetches a streamed export.
func get(t testing.TB, srv *apitest.Server, path, token string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}

type product struct {
	ID          string `json:"id"`
	SKU         string `json:"sku"`
	Status      string `json:"status"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Brand       string `json:"brand"`
	Categories  []string
	Prices      []struct {
		Amount   json.Number `json:"amount"`
		Currency string      `json:"currency"`
	} `json:"prices"`
	StockStatus int `json:"stockStatus"`
	Medias      []struct{ ID, URL string }
	Base        string
	Modifiers   []string
	Variations  []struct{ ID, Value string }
	Variants    []string
}

// products lists every product (any status) by sku.
func products(t testing.TB, srv *apitest.Server) map[string]product {
	t.Helper()
	var list []product
	srv.Get(t, "/catalog/v1/product.list?limit=1000&status=ONLINE,DRAFT", srv.Admin).Must(t).Decode(t, "data", &list)
	out := map[string]product{}
	for _, p := range list {
		out[p.SKU] = p
	}
	return out
}

func lines(s ...string) string { return strings.Join(s, "\n") + "\n" }
