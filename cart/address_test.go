package cart

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

func TestParseAddressArg(t *testing.T) {
	const valid = `"firstName":"Ada","address_1":"1 Main St","city":"Honolulu","state":"HI","country":"US"`
	tests := []struct {
		name     string
		raw      string
		code     string   // "" for success
		problems []string // of a validation_error
		str      string
		postCode Text
		phone    Text
	}{
		{"absent", ``, "", nil, "", "", ""},
		{"null", `null`, "", nil, "", "", ""},
		{"a string", `"SAMEASSHIPPING"`, "", nil, "SAMEASSHIPPING", "", ""},
		{"post code and phone as numbers", `{` + valid + `,"postCode":96815,"phone":5551234}`, "", nil, "", "96815", "5551234"},
		{"post code and phone as strings", `{` + valid + `,"postCode":"DT1 2AB","phone":"+44 1305"}`, "", nil, "", "DT1 2AB", "+44 1305"},
		{"state by name", `{"firstName":"A","address_1":"x","city":"x","state":"hawaii","country":"US","postCode":1}`, "", nil, "", "1", ""},
		{"missing fields", `{"firstName":" ","postCode":null}`, commerce.EValidation, []string{
			"a.firstName: required", "a.address_1: required", "a.postCode: required", "a.city: required", "a.state: required", "a.country: required"}, "", "", ""},
		{"unknown field", `{` + valid + `,"postCode":1,"zip":2}`, commerce.EValidation, []string{"a.zip: unknown field"}, "", "", ""},
		{"name in another case", `{` + valid + `,"POSTCODE":1,"City":"x"}`, commerce.EValidation, []string{"a.City: unknown field", "a.POSTCODE: unknown field"}, "", "", ""},
		{"post code of another type", `{` + valid + `,"postCode":true}`, commerce.EValidation, []string{"a.postCode: must be a string or a number"}, "", "", ""},
		{"name of another type", `{"firstName":1}`, commerce.EValidation, []string{"a.firstName: must be a string"}, "", "", ""},
		{"a number", `3`, commerce.EValidation, nil, "", "", ""},
		{"country not ISO", `{"firstName":"A","address_1":"x","city":"x","state":"HI","country":"USA","postCode":1}`, commerce.EInvalidCountry, nil, "", "", ""},
		{"state of another country", `{"firstName":"A","address_1":"x","city":"x","state":"Dorset","country":"US","postCode":1}`, commerce.EInvalidState, nil, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, str, err := parseAddressArg("a", json.RawMessage(tc.raw))
			if got := commerce.ErrorCode(err); got != tc.code {
				t.Fatalf("got error %v, want code %q", err, tc.code)
			}
			if tc.problems != nil {
				if got, _ := commerce.ErrorData(err).([]string); !slices.Equal(got, tc.problems) {
					t.Errorf("got problems %q, want %q", got, tc.problems)
				}
			}
			if err != nil {
				return
			}
			if str != tc.str {
				t.Errorf("got string %q, want %q", str, tc.str)
			}
			if (a == nil) != (tc.postCode == "") {
				t.Fatalf("got address %+v, want one iff a post code is expected", a)
			}
			if a != nil && (a.PostCode != tc.postCode || a.Phone != tc.phone) {
				t.Errorf("got postCode %q phone %q, want %q %q", a.PostCode, a.Phone, tc.postCode, tc.phone)
			}
		})
	}
}

func TestAddressJSON(t *testing.T) {
	a, _, err := parseAddressArg("a", json.RawMessage(`{"firstName":"Ada","address_1":"x","address_2":[1,2],"city":"x","state":"HI","country":"US","postCode":96815}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(a)
	want := `{"firstName":"Ada","address_1":"x","address_2":[1,2],"postCode":"96815","city":"x","state":"HI","country":"US"}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestMethodIDArg(t *testing.T) {
	tests := []struct {
		name, raw, want string
		invalid         bool
	}{
		{"absent", ``, "", false},
		{"null", `null`, "", false},
		{"string", `"m1"`, "m1", false},
		{"object with id", `{"id":"m1","title":"UPS","rates":[]}`, "m1", false},
		{"blank string", `" "`, "", true},
		{"object without id", `{"title":"UPS"}`, "", true},
		{"object with an unknown field", `{"id":"m1","price":1}`, "", true},
		{"number", `1`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := methodIDArg("methodId", json.RawMessage(tc.raw))
			if (commerce.ErrorCode(err) == commerce.EValidation) != tc.invalid || (err != nil && !tc.invalid) {
				t.Fatalf("got error %v, want invalid %v", err, tc.invalid)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
