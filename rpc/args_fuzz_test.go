package rpc

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
)

type fuzzArgs struct {
	ID     string        `json:"id"`
	Count  int           `json:"count"`
	Flag   *bool         `json:"flag"`
	Tags   []string      `json:"tags"`
	Amount money.Decimal `json:"amount"`
	Items  []struct {
		Quantity int            `json:"quantity"`
		Data     map[string]any `json:"data"`
	} `json:"items"`
}

// FuzzDecodeArgs: any query and body either decode or give a
// validation_error; nothing panics.
func FuzzDecodeArgs(f *testing.F) {
	f.Add("id=1&count=2&tags=a,b", `{"items":[{"quantity":1}]}`)
	f.Add("flag=true", `{"amount":12.5}`)
	f.Add("", `{"items":[{"quantity":"x"}]}`)
	f.Add("count=1e400", `{"amount":1e999}`)
	f.Add("", `{"a":`)
	fields := fieldsOf(reflect.TypeFor[fuzzArgs]())
	f.Fuzz(func(t *testing.T, query, body string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		var a fuzzArgs
		err = decodeArgs(&a, fields, q, []byte(body))
		if err != nil && commerce.ErrorCode(err) != commerce.EValidation {
			t.Fatalf("got %v (%s), want validation_error", err, commerce.ErrorCode(err))
		}
	})
}

// A decoding error keeps the decoder's error as its cause (issue 9
// defect 11).
func TestDecodeErrorKeepsTheCause(t *testing.T) {
	var a fuzzArgs
	err := decodeArgs(&a, fieldsOf(reflect.TypeFor[fuzzArgs]()), nil, []byte(`{"count":"x"}`))
	var te *json.UnmarshalTypeError
	if commerce.ErrorCode(err) != commerce.EValidation || !errors.As(err, &te) {
		t.Errorf("got %v, want validation_error caused by a *json.UnmarshalTypeError", err)
	}
}
