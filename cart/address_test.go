package cart

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

// TestAddressArg reads address arguments decoded from JSON (their shape
// is the transport's to check: rpc's tests) as the use cases do: missing
// fields, SAMEASSHIPPING, the place, post codes and phones as numbers.
func TestAddressArg(t *testing.T) {
	const valid = `"firstName":"Ada","address_1":"1 Main St","city":"Honolulu","state":"HI","country":"US"`
	tests := []struct {
		name     string
		raw      string // the argument's JSON; "" for absent
		billing  bool   // read as billingAddress (SAMEASSHIPPING allowed)
		code     string // "" for success
		problems []string
		same     bool
		postCode Text
		phone    Text
	}{
		{"absent", ``, false, "", nil, false, "", ""},
		{"null", `null`, false, "", nil, false, "", ""},
		{"SAMEASSHIPPING for billing", `"SAMEASSHIPPING"`, true, "", nil, true, "", ""},
		{"billing address", `{` + valid + `,"postCode":1}`, true, "", nil, false, "1", ""},
		{"post code and phone as numbers", `{` + valid + `,"postCode":96815,"phone":5551234}`, false, "", nil, false, "96815", "5551234"},
		{"post code and phone as strings", `{` + valid + `,"postCode":"DT1 2AB","phone":"+44 1305"}`, false, "", nil, false, "DT1 2AB", "+44 1305"},
		{"state by name", `{"firstName":"A","address_1":"x","city":"x","state":"hawaii","country":"US","postCode":1}`, false, "", nil, false, "1", ""},
		{"missing fields", `{"firstName":" ","postCode":null}`, false, commerce.EValidation, []string{
			"a.firstName: required", "a.address_1: required", "a.postCode: required", "a.city: required", "a.state: required", "a.country: required"}, false, "", ""},
		{"missing fields of a billing address", `{"firstName":"A"}`, true, commerce.EValidation, []string{
			"a.address_1: required", "a.postCode: required", "a.city: required", "a.state: required", "a.country: required"}, false, "", ""},
		{"country not ISO", `{"firstName":"A","address_1":"x","city":"x","state":"HI","country":"USA","postCode":1}`, false, commerce.EInvalidCountry, nil, false, "", ""},
		{"state of another country", `{"firstName":"A","address_1":"x","city":"x","state":"Dorset","country":"US","postCode":1}`, false, commerce.EInvalidState, nil, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in struct {
				A *AddressArg        `json:"a,omitempty"`
				B *BillingAddressArg `json:"b,omitempty"`
			}
			if tc.raw != "" {
				field := "a"
				if tc.billing {
					field = "b"
				}
				if err := json.Unmarshal([]byte(`{"`+field+`":`+tc.raw+`}`), &in); err != nil {
					t.Fatalf("decoding failed: %v", err)
				}
			}
			var p commerce.Problems
			var a *Address
			var same bool
			if tc.billing {
				a, same = billingArg(&p, "a", in.B)
			} else {
				a = addressArg(&p, "a", in.A)
			}
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

// TestAddressJSON: arguments are recorded in events as given, an
// address_2 given as null being absent.
func TestAddressJSON(t *testing.T) {
	var arg AddressArg
	if err := json.Unmarshal([]byte(`{"firstName":"Ada","address_1":"x","address_2":[1,2],"city":"x","state":"HI","country":"US","postCode":96815}`), &arg); err != nil {
		t.Fatal(err)
	}
	want := `{"firstName":"Ada","address_1":"x","address_2":[1,2],"postCode":"96815","city":"x","state":"HI","country":"US"}`
	for what, v := range map[string]any{"address": arg.Address, "argument": arg, "billing": BillingAddressArg{Address: &arg}} {
		if b, _ := json.Marshal(v); string(b) != want {
			t.Errorf("%s: got %s, want %s", what, b, want)
		}
	}
	if b, _ := json.Marshal(BillingAddressArg{SameAsShipping: true}); string(b) != `"SAMEASSHIPPING"` {
		t.Errorf("same as shipping: got %s", b)
	}
	var null AddressArg
	if err := json.Unmarshal([]byte(`{"firstName":"Ada","address_2":null}`), &null); err != nil {
		t.Fatal(err)
	}
	var p commerce.Problems
	if a := addressArg(&p, "a", &null); a == nil || a.Address2 != nil {
		t.Fatalf("address_2 null: got %+v, want it absent", a)
	}
	if b, _ := json.Marshal(null); string(b) != `{"firstName":"Ada","address_1":"","postCode":"","city":"","state":"","country":""}` {
		t.Errorf("address_2 null: recorded as %s", b)
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
		{"object with a blank id", `{"id":""}`, "", []string{"methodId.id: required, a shipping method id"}},
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
