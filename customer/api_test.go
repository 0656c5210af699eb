package customer_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

func TestRegister(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		first := e.register(t, "  Ada@Example.COM ", pw)
		if first.Email != "ada@example.com" || first.CustomerType != "B2C" || first.ID == "" || first.FirstName != "Ada" ||
			first.Phone != "+44 20 7946 0000" || first.Addresses == nil || first.CreatedAt.IsZero() {
			t.Errorf("registered customer: %+v", first)
		}
		for _, tc := range []struct {
			name   string
			body   map[string]any
			token  string
			status int
			code   string
			data   string // a part of the error data
		}{
			{"email taken (case and spaces aside)", map[string]any{"email": "ADA@example.com ", "password": pw, "firstName": "A"}, e.API, 409, commerce.EDuplicateKey, `{"email":"ada@example.com","index":"email"}`},
			{"short password", map[string]any{"email": "b@example.com", "password": "short", "firstName": "B"}, e.API, 400, commerce.EValidation, "password: must be 10 to 128"},
			{"long password", map[string]any{"email": "b@example.com", "password": strings.Repeat("x", 129), "firstName": "B"}, e.API, 400, commerce.EValidation, "password: must be 10 to 128"},
			{"common password", map[string]any{"email": "b@example.com", "password": "Password123", "firstName": "B"}, e.API, 400, commerce.EValidation, "password: is too common"},
			{"common password qwertyuiop", map[string]any{"email": "b@example.com", "password": "qwertyuiop", "firstName": "B"}, e.API, 400, commerce.EValidation, "too common"},
			{"password is the email", map[string]any{"email": "bob.builder@example.com", "password": "Bob.Builder@example.com", "firstName": "B"}, e.API, 400, commerce.EValidation, "must not be the email"},
			{"no password", map[string]any{"email": "b@example.com", "firstName": "B"}, e.API, 400, commerce.EValidation, "password: required"},
			{"bad email", map[string]any{"email": "not an email", "password": pw, "firstName": "B"}, e.API, 400, commerce.EValidation, "email: must be an email address"},
			{"no first name", map[string]any{"email": "b@example.com", "password": pw}, e.API, 400, commerce.EValidation, "firstName: required"},
			{"unknown field", map[string]any{"email": "b@example.com", "password": pw, "firstName": "B", "id": "x"}, e.API, 400, commerce.EValidation, "id"},
			{"no token", map[string]any{"email": "b@example.com", "password": pw, "firstName": "B"}, "", 401, commerce.EInvalidToken, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.Post(t, cv1+"customer.register", tc.token, tc.body).Expect(t, tc.status, tc.code)
				if !strings.Contains(string(r.Data), tc.data) {
					t.Errorf("data %s, want it to hold %s", r.Data, tc.data)
				}
				noSecrets(t, "error", string(r.Raw), pw)
			})
		}
		// Nothing but the first was stored, and its CREATE event has no hash.
		list := e.Post(t, cv1+"customer.list", e.Admin, map[string]any{}).Must(t)
		var cs []customerView
		list.Decode(t, "data", &cs)
		if len(cs) != 1 || cs[0].ID != first.ID {
			t.Errorf("customers after failed registrations: %+v", cs)
		}
		evs := e.events(t, "CREATE")
		if len(evs) != 1 || !strings.Contains(string(evs[0].Payload), `"customer":{"id":"`+first.ID) {
			t.Errorf("CREATE events: %+v", evs)
		}
		noSecrets(t, "CREATE event", string(evs[0].Payload), pw)
	})
}

func TestCustomerOperations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		ada := e.register(t, "ada@example.com", pw)
		bob := e.register(t, "bob@example.com", pw2)
		adaTok := e.login(t, "ada@example.com", pw).AccessToken
		bobTok := e.login(t, "bob@example.com", pw2).AccessToken

		hawaii := map[string]any{"firstName": "Ada", "address_1": "1 Beach Rd", "postCode": 96815, "city": "Honolulu",
			"state": "HI", "country": "US", "default": true}
		r := e.Post(t, cv1+"customer.addAddress", adaTok, map[string]any{"address": hawaii}).Must(t)
		var c struct {
			Addresses []struct {
				ID       string `json:"id"`
				Country  string `json:"country"`
				PostCode string `json:"postCode"`
				Default  bool   `json:"default"`
			} `json:"addresses"`
		}
		r.Decode(t, "customer", &c)
		if len(c.Addresses) != 1 || c.Addresses[0].ID == "" || !c.Addresses[0].Default || c.Addresses[0].PostCode != "96815" {
			t.Fatalf("after addAddress: %s", r.Raw)
		}
		hawaiiID := c.Addresses[0].ID
		dorset := map[string]any{"firstName": "Ada", "address_1": "2 High St", "postCode": "DT1 1AA", "city": "Dorchester",
			"state": "Dorset", "country": "GB", "default": true}
		r = e.Post(t, cv1+"customer.addAddress?id="+ada.ID, e.Admin, map[string]any{"address": dorset}).Must(t)
		r.Decode(t, "customer", &c)
		if len(c.Addresses) != 2 || c.Addresses[0].Default || !c.Addresses[1].Default {
			t.Errorf("a new default address must take the default: %s", r.Raw)
		}
		// The access token of the next sign-in carries the default's country.
		s := e.login(t, "ada@example.com", pw)
		cl, err := e.Keys.Verify(s.AccessToken)
		if err != nil || cl.Country != "GB" || cl.CustomerID != ada.ID || cl.Subject != ada.ID || cl.CustomerType != "B2C" ||
			!cl.HasScope(commerce.ScopeAPI) || cl.IsAdmin() {
			t.Errorf("claims %+v, %v", cl, err)
		}

		for _, tc := range []struct {
			name, op, token string
			body            map[string]any
			status          int
			code            string
			want            string // in the raw answer
		}{
			{"info of oneself", "customer.info", adaTok, nil, 200, "", `"email":"ada@example.com"`},
			{"info of oneself by id", "customer.info", adaTok, map[string]any{"id": ada.ID}, 200, "", `"firstName":"Ada"`},
			{"info of another customer", "customer.info", adaTok, map[string]any{"id": bob.ID}, 404, commerce.ECustomerNotFound, ""},
			{"info with a storefront token", "customer.info", e.API, nil, 404, commerce.ECustomerNotFound, ""},
			{"info by admin", "customer.info", e.Admin, map[string]any{"id": bob.ID}, 200, "", `"email":"bob@example.com"`},
			{"info by admin without id", "customer.info", e.Admin, nil, 400, commerce.EValidation, ""},
			{"info by admin, unknown", "customer.info", e.Admin, map[string]any{"id": "nope"}, 404, commerce.ECustomerNotFound, `"nope"`},
			{"update names", "customer.update", bobTok, map[string]any{"firstName": "Robert", "phone": 5551234}, 200, "", `"phone":"5551234"`},
			{"update blank first name", "customer.update", bobTok, map[string]any{"firstName": " "}, 400, commerce.EValidation, "firstName"},
			{"update another customer", "customer.update", bobTok, map[string]any{"id": ada.ID, "firstName": "X"}, 404, commerce.ECustomerNotFound, ""},
			{"customer sets its type", "customer.update", bobTok, map[string]any{"customerType": "VIP"}, 403, commerce.EForbidden, ""},
			{"admin sets the type", "customer.update", e.Admin, map[string]any{"id": bob.ID, "customerType": "VIP"}, 200, "", `"customerType":"VIP"`},
			{"password without current", "customer.update", bobTok, map[string]any{"password": "a brand new secret"}, 401, commerce.EInvalidCredentials, ""},
			{"password with a wrong current", "customer.update", bobTok, map[string]any{"password": "a brand new secret", "currentPassword": pw}, 401, commerce.EInvalidCredentials, ""},
			{"common new password", "customer.update", bobTok, map[string]any{"password": "1234567890", "currentPassword": pw2}, 400, commerce.EValidation, "too common"},
			{"new password is the email", "customer.update", bobTok, map[string]any{"password": "BOB@example.com", "currentPassword": pw2}, 400, commerce.EValidation, "must not be the email"},
			{"short new password", "customer.update", bobTok, map[string]any{"password": "short", "currentPassword": pw2}, 400, commerce.EValidation, "must be 10 to 128"},
			{"current password alone", "customer.update", bobTok, map[string]any{"currentPassword": pw2}, 400, commerce.EValidation, "currentPassword"},
			{"admin sets a blank type", "customer.update", e.Admin, map[string]any{"id": bob.ID, "customerType": " "}, 400, commerce.EValidation, "customerType"},
			{"update by admin, unknown", "customer.update", e.Admin, map[string]any{"id": "nope", "firstName": "X"}, 404, commerce.ECustomerNotFound, `"nope"`},
			{"update with a storefront token", "customer.update", e.API, map[string]any{"firstName": "X"}, 404, commerce.ECustomerNotFound, ""},
			{"update without a token", "customer.update", "", map[string]any{"firstName": "X"}, 401, commerce.EInvalidToken, ""},
			{"address without city", "customer.addAddress", bobTok, map[string]any{"address": map[string]any{"firstName": "B", "address_1": "x", "postCode": "1", "state": "HI", "country": "US"}}, 400, commerce.EValidation, "address.city: required"},
			{"address with a bad country", "customer.addAddress", bobTok, map[string]any{"address": map[string]any{"firstName": "B", "address_1": "x", "postCode": "1", "city": "c", "state": "HI", "country": "XX"}}, 400, commerce.EInvalidCountry, `"XX"`},
			{"address with a bad state", "customer.addAddress", bobTok, map[string]any{"address": map[string]any{"firstName": "B", "address_1": "x", "postCode": "1", "city": "c", "state": "ZZ", "country": "US"}}, 400, commerce.EInvalidState, `"ZZ"`},
			{"address with a bad default", "customer.addAddress", bobTok, map[string]any{"address": map[string]any{"firstName": "B", "address_1": "x", "postCode": "1", "city": "c", "state": "HI", "country": "US", "default": "yes"}}, 400, commerce.EValidation, "address.default"},
			{"address with an unknown field", "customer.addAddress", bobTok, map[string]any{"address": map[string]any{"firstName": "B", "address_1": "x", "postCode": "1", "city": "c", "state": "HI", "country": "US", "FIRSTNAME": "b"}}, 400, commerce.EValidation, "address.FIRSTNAME: unknown field"},
			{"no address", "customer.addAddress", bobTok, map[string]any{}, 400, commerce.EValidation, "address: required"},
			{"address of another customer", "customer.addAddress", bobTok, map[string]any{"id": ada.ID, "address": hawaii}, 404, commerce.ECustomerNotFound, ""},
			{"remove an unknown address", "customer.removeAddress", adaTok, map[string]any{"addressId": "nope"}, 404, commerce.EAddressNotFound, `"nope"`},
			{"remove an address without id", "customer.removeAddress", adaTok, map[string]any{}, 400, commerce.EValidation, "addressId"},
			{"remove another's address", "customer.removeAddress", bobTok, map[string]any{"id": ada.ID, "addressId": hawaiiID}, 404, commerce.ECustomerNotFound, ""},
			{"remove an address", "customer.removeAddress", adaTok, map[string]any{"addressId": hawaiiID}, 200, "", `"state":"Dorset"`},
			{"list by a customer", "customer.list", adaTok, nil, 403, commerce.EForbidden, ""},
			{"list with a storefront token", "customer.list", e.API, nil, 403, commerce.EForbidden, ""},
			{"list by email", "customer.list", e.Admin, map[string]any{"email": "^BOB@"}, 200, "", `"email":"bob@example.com"`},
			{"list by type", "customer.list", e.Admin, map[string]any{"customerType": "VIP,B2B"}, 200, "", `"customerType":"VIP"`},
			{"list with a bad pattern", "customer.list", e.Admin, map[string]any{"email": "("}, 400, commerce.EValidation, "email"},
			{"list with a bad limit", "customer.list", e.Admin, map[string]any{"limit": 0}, 400, commerce.EValidation, "limit"},
			{"remove another customer", "customer.remove", bobTok, map[string]any{"id": ada.ID}, 404, commerce.ECustomerNotFound, ""},
			{"remove with a storefront token", "customer.remove", e.API, nil, 404, commerce.ECustomerNotFound, ""},
			{"remove by admin, unknown", "customer.remove", e.Admin, map[string]any{"id": "nope"}, 404, commerce.ECustomerNotFound, `"nope"`},
			{"address by admin, unknown customer", "customer.addAddress", e.Admin, map[string]any{"id": "nope", "address": hawaii}, 404, commerce.ECustomerNotFound, `"nope"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var body any
				if tc.body != nil {
					body = tc.body
				}
				r := e.Post(t, cv1+tc.op, tc.token, body)
				if tc.code == "" {
					r.Must(t)
				} else {
					r.Expect(t, tc.status, tc.code)
				}
				if !strings.Contains(string(r.Raw), tc.want) {
					t.Errorf("answer %s, want it to hold %s", r.Raw, tc.want)
				}
				noSecrets(t, "answer", string(r.Raw), pw, pw2)
			})
		}
		// Lists hold only the matching customers.
		r = e.Post(t, cv1+"customer.list", e.Admin, map[string]any{"email": "^BOB@"}).Must(t)
		var found []customerView
		r.Decode(t, "data", &found)
		if len(found) != 1 || found[0].ID != bob.ID {
			t.Errorf("list by email: %s", r.Raw)
		}
		// The change of password works with the current one, and then
		// the new one signs in.
		e.Post(t, cv1+"customer.update", bobTok, map[string]any{"password": "a brand new secret", "currentPassword": pw2}).Must(t)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "bob@example.com", "password": pw2}).Expect(t, 401, commerce.EInvalidCredentials)
		e.login(t, "bob@example.com", "a brand new secret")
		// GET works for reads only.
		e.Get(t, cv1+"customer.info", adaTok).Must(t)
		e.Get(t, cv1+"customer.update", adaTok).Expect(t, http.StatusMethodNotAllowed, commerce.EMethodNotAllowed)
		// An operation under the other service's prefix is not found.
		e.Post(t, av1+"customer.info", adaTok, nil).Expect(t, 404, commerce.EOperationNotFound)

		// Removal: gone for good, and REMOVE carries the id only.
		e.Post(t, cv1+"customer.remove", bobTok, nil).Must(t)
		e.Post(t, cv1+"customer.info", e.Admin, map[string]any{"id": bob.ID}).Expect(t, 404, commerce.ECustomerNotFound)
		e.Post(t, av1+"auth.login", e.API, map[string]any{"email": "bob@example.com", "password": "a brand new secret"}).Expect(t, 401, commerce.EInvalidCredentials)
		rm := e.events(t, "REMOVE")
		if len(rm) != 1 || string(rm[0].Payload) != `{"id":"`+bob.ID+`"}` {
			t.Errorf("REMOVE events: %+v", rm)
		}
		for _, ev := range e.events(t, "UPDATE") {
			noSecrets(t, "UPDATE event", string(ev.Payload), pw, pw2, "a brand new secret")
			var p map[string]json.RawMessage
			if err := json.Unmarshal(ev.Payload, &p); err != nil || p["customer"] == nil || len(p) != 1 {
				t.Errorf("UPDATE payload %s", ev.Payload)
			}
		}
	})
}

// TestEmailNFC: emails that look the same are the same (issue 9 defect
// 7): one typed with a decomposed accent (NFD) is stored in NFC, taken
// when registered again precomposed, and signs in typed either way.
func TestEmailNFC(t *testing.T) {
	const nfc, nfd = "ren\u00e9@example.com", "rene\u0301@example.com"
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		c := e.register(t, nfd, pw)
		if c.Email != nfc {
			t.Errorf("email stored as %q, want NFC %q", c.Email, nfc)
		}
		r := e.Post(t, cv1+"customer.register", e.API, map[string]any{"email": strings.ToUpper(nfc), "password": pw, "firstName": "R"}).
			Expect(t, 409, commerce.EDuplicateKey)
		if !strings.Contains(string(r.Data), `"email":"`+nfc+`"`) {
			t.Errorf("data %s, want the NFC email", r.Data)
		}
		for _, email := range []string{nfc, nfd} {
			if s := e.login(t, email, pw); s.Customer.ID != c.ID {
				t.Errorf("login as %q: got customer %q, want %q", email, s.Customer.ID, c.ID)
			}
		}
	})
}
