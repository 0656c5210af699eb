package cart

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

// TestAddressArg decodes address arguments as the transport does (JSON
// into the input type) and checks what the use cases make of them.
func TestAddressArg(t *testing.T) {
	const valid = `"firstName":"Ada","address_1":"1 Main St","city":"Honolulu","state":"HI","country":"US"`
	tests := []struct {
		name     string
		raw      string // the argument's JSON; "" for absent
		sameOK   bool
		code     string   // "" for success
		problems []string // of a validation_error
		same     bool
		postCode Text
		phone    Text
	}{
		{"absent", ``, false, "", nil, false, "", ""},
		{"null", `null`, false, "", nil, false, "", ""},
		{"SAMEASSHIPPING where it may be", `"SAMEASSHIPPING"`, true, "", nil, true, "", ""},
		{"SAMEASSHIPPING where it may not", `"SAMEASSHIPPING"`, false, commerce.EValidation, []string{"a: must be an address object"}, false, "", ""},
		{"another string", `"SAME"`, true, commerce.EValidation, []string{`a: must be an address object or the string "SAMEASSHIPPING"`}, false, "", ""},
		{"a number", `3`, false, commerce.EValidation, []string{"a: must be an address object"}, false, "", ""},
		{"post code and phone as numbers", `{` + valid + `,"postCode":96815,"phone":5551234}`, false, "", nil, false, "96815", "5551234"},
		{"post code and phone as strings", `{` + valid + `,"postCode":"DT1 2AB","phone":"+44 1305"}`, false, "", nil, false, "DT1 2AB", "+44 1305"},
		{"state by name", `{"firstName":"A","address_1":"x","city":"x","state":"hawaii","country":"US","postCode":1}`, false, "", nil, false, "1", ""},
		{"missing fields", `{"firstName":" ","postCode":null}`, false, commerce.EValidation, []string{
			"a.firstName: required", "a.address_1: required", "a.postCode: required", "a.city: required", "a.state: required", "a.country: required"}, false, "", ""},
		{"unknown field", `{` + valid + `,"postCode":1,"zip":2}`, false, commerce.EValidation, []string{"a.zip: unknown field"}, false, "", ""},
		{"name in another case", `{` + valid + `,"POSTCODE":1,"City":"x"}`, false, commerce.EValidation, []string{"a.City: unknown field", "a.POSTCODE: unknown field"}, false, "", ""},
		{"post code of another type", `{` + valid + `,"postCode":true}`, false, commerce.EValidation, []string{"a.postCode: must be a string or a number"}, false, "", ""},
		{"name of another type", `{"firstName":1}`, false, commerce.EValidation, []string{"a.firstName: must be a string"}, false, "", ""},
		{"country not ISO", `{"firstName":"A","address_1":"x","city":"x","state":"HI","country":"USA","postCode":1}`, false, commerce.EInvalidCountry, nil, false, "", ""},
		{"state of another country", `{"firstName":"A","address_1":"x","city":"x","state":"Dorset","country":"US","postCode":1}`, false, commerce.EInvalidState, nil, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in struct {
				A *AddressArg `json:"a,omitempty"`
			}
			if tc.raw != "" {
				if err := json.Unmarshal([]byte(`{"a":`+tc.raw+`}`), &in); err != nil {
					t.Fatalf("decoding failed: %v", err)
				}
			}
			var p commerce.Problems
			a, same := addressArg(&p, "a", in.A, tc.sameOK)
			err := p.Err()
			if err == nil && a != nil {
				err = a.CheckPlace("a")
			}
			if got := commerce.ErrorCode(err); got != tc.code {
				t.Fatalf("got error %v, want code %q", err, tc.code)
			}
			if tc.problems != nil && !slices.Equal(commerce.ProblemsOf(err), tc.problems) {
				t.Errorf("got problems %q, want %q", commerce.ProblemsOf(err), tc.problems)
			}
			if err != nil {
				return
			}
			if same != tc.same {
				t.Errorf("got same %v, want %v", same, tc.same)
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
	var arg AddressArg
	if err := json.Unmarshal([]byte(`{"firstName":"Ada","address_1":"x","address_2":[1,2],"city":"x","state":"HI","country":"US","postCode":96815}`), &arg); err != nil {
		t.Fatal(err)
	}
	want := `{"firstName":"Ada","address_1":"x","address_2":[1,2],"postCode":"96815","city":"x","state":"HI","country":"US"}`
	for what, v := range map[string]any{"address": arg.Address, "argument": arg} {
		if b, _ := json.Marshal(v); string(b) != want {
			t.Errorf("%s: got %s, want %s", what, b, want)
		}
	}
	same := "SAMEASSHIPPING"
	if b, _ := json.Marshal(AddressArg{String: &same}); string(b) != `"SAMEASSHIPPING"` {
		t.Errorf("a string argument: got %s", b)
	}
}

func TestMethodRef(t *testing.T) {
	tests := []struct {
		name, raw, want string
		problems        []string
	}{
		{"absent", ``, "", nil},
		{"null", `null`, "", nil},
		{"string", `"m1"`, "m1", nil},
		{"object with id", `{"id":"m1","title":"UPS","rates":[]}`, "m1", nil},
		{"blank string", `" "`, "", []string{"methodId: must not be blank"}},
		{"object without id", `{"title":"UPS"}`, "", []string{"methodId.id: required, a shipping method id"}},
		{"object with an unknown field", `{"id":"m1","price":1}`, "", []string{"methodId.price: unknown field"}},
		{"number", `1`, "", []string{"methodId: must be a shipping method id or an object with the id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in struct {
				M *MethodRef `json:"methodId,omitempty"`
			}
			if tc.raw != "" {
				if err := json.Unmarshal([]byte(`{"methodId":`+tc.raw+`}`), &in); err != nil {
					t.Fatalf("decoding failed: %v", err)
				}
			}
			var p commerce.Problems
			got := methodArg(&p, "methodId", in.M)
			if !slices.Equal([]string(p), tc.problems) {
				t.Fatalf("got problems %q, want %q", p, tc.problems)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
