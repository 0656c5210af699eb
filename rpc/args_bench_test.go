package rpc

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
)

type benchArgs struct {
	SKU         string            `json:"sku"`
	Title       string            `json:"title"`
	Description *commerce.Pattern `json:"description"`
	Categories  []string          `json:"categories"`
	Prices      []struct {
		Amount   float64 `json:"amount"`
		Currency string  `json:"currency"`
		Country  string  `json:"country"`
	} `json:"prices"`
	Attributes map[string]string `json:"attributes"`
}

// BenchmarkDecodeArgs: the cost of the transport's decoding of a product-
// sized body (50 prices, 20 attributes), with the shape walk (unknown
// fields, NUL bytes) and the Checker walk.
func BenchmarkDecodeArgs(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"sku":"sku-1","title":"A fridge","description":"^bosch.*combi$","categories":["a","b","c"],"prices":[`)
	for i := range 50 {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(`{"amount":` + strconv.Itoa(100+i) + `.5,"currency":"USD","country":"US"}`)
	}
	body.WriteString(`],"attributes":{`)
	for i := range 20 {
		if i > 0 {
			body.WriteByte(',')
		}
		body.WriteString(`"k` + strconv.Itoa(i) + `":"value ` + strconv.Itoa(i) + `"`)
	}
	body.WriteString(`}}`)
	raw := []byte(body.String())
	fields := fieldsOf(reflect.TypeFor[benchArgs]())
	query := url.Values{"sku": {"sku-2"}}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var a benchArgs
		if err := decodeArgs(&a, fields, query, raw); err != nil {
			b.Fatal(err)
		}
	}
}
