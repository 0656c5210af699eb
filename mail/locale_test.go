package mail_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestLocaleMail (docs/api.md section 27): a cart made in Spanish holds its
// items' titles in Spanish, its order keeps the locale and the order
// confirmation is written in Spanish; cart.info reads the titles in the
// locale asked for; a customer registered in Spanish gets her welcome in
// Spanish; an unknown locale is validation_error on carts and customers.
func TestLocaleMail(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db, func(o *app.Options) { o.Locales = commerce.Locales{"en", "es"} })
		s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": s.product,
			"translations": map[string]any{"es": map[string]any{"title": "Frigorífico"}}}).Must(t)

		var c struct {
			ID     string `json:"id"`
			Locale string `json:"locale"`
		}
		s.DoHeader(t, http.MethodPost, "/cart/v1/cart.create", s.API, http.Header{"Accept-Language": {"es-ES,es;q=0.9"}}, map[string]any{}).
			Must(t).Decode(t, "cart", &c)
		if c.Locale != "es" {
			t.Fatalf("cart.create with Accept-Language es: locale %q", c.Locale)
		}
		s.Post(t, "/cart/v1/cart.addToCart", s.API, map[string]any{"cartId": c.ID,
			"items": []map[string]any{{"productId": s.product, "quantity": 1, "warehouseId": "W1"}}}).Must(t)
		title := func(locale string) string {
			t.Helper()
			var v struct {
				Items []struct {
					Title string `json:"title"`
				} `json:"items"`
			}
			q := "/cart/v1/cart.info?cartId=" + c.ID
			if locale != "" {
				q += "&locale=" + locale
			}
			s.Get(t, q, s.API).Must(t).Decode(t, "cart", &v)
			if len(v.Items) != 1 {
				t.Fatalf("cart items %+v", v.Items)
			}
			return v.Items[0].Title
		}
		if got := title("es"); got != "F1 - Frigorífico (Acme)" {
			t.Errorf("cart.info in es: title %q", got)
		}
		if got := title("en"); got != "F1 - Fridge (Acme)" {
			t.Errorf("cart.info in en: title %q", got)
		}
		s.Get(t, "/cart/v1/cart.calculateCart?cartId="+c.ID+"&locale=de", s.API).Expect(t, http.StatusBadRequest, commerce.EValidation)

		body := map[string]any{"cartId": c.ID, "paymentId": "manual", "paymentData": map[string]any{}, "email": "ana@example.com",
			"shippingAddress": map[string]any{"firstName": "Ana", "lastName": "García", "address_1": "1 Main St", "postCode": "96815",
				"city": "Honolulu", "state": "Hawaii", "country": "US"}}
		var o order.Order
		s.Post(t, "/cart/v1/cart.checkout", s.API, body).Must(t).Decode(t, "order", &o)
		if o.Locale != "es" {
			t.Errorf("order locale %q, want es", o.Locale)
		}
		m := s.wait("template=order_confirmation", 1, mail.Sent)[0]
		if m.Locale != "es" || m.Subject != "Acme Shop: pedido "+o.Number+" confirmado" {
			t.Errorf("confirmation: locale %q subject %q", m.Locale, m.Subject)
		}
		f := s.eml(m.ID)
		for _, want := range []string{"Gracias por tu pedido", "Frigorífico"} {
			if !strings.Contains(f.Text, want) {
				t.Errorf("%q missing from the confirmation:\n%s", want, f.Text)
			}
		}

		// Customers.
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "bad@example.com", "password": "a long pass phrase 1",
			"firstName": "X", "locale": "de"}).Expect(t, http.StatusBadRequest, commerce.EValidation)
		var cu struct {
			ID     string `json:"id"`
			Locale string `json:"locale"`
		}
		s.Post(t, "/customer/v1/customer.register", s.API, map[string]any{"email": "lucia@example.com", "password": "a long pass phrase 1",
			"firstName": "Lucía", "locale": "es"}).Must(t).Decode(t, "customer", &cu)
		if cu.Locale != "es" {
			t.Errorf("customer locale %q", cu.Locale)
		}
		w := s.wait("template=welcome", 1, mail.Sent)[0]
		if w.Locale != "es" {
			t.Errorf("welcome in %q, want es", w.Locale)
		}
		var en struct {
			Locale string `json:"locale"`
		}
		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": cu.ID, "locale": "en"}).Must(t).Decode(t, "customer", &en)
		if en.Locale != "en" {
			t.Errorf("customer.update locale: %q", en.Locale)
		}
		s.Post(t, "/customer/v1/customer.update", s.Admin, map[string]any{"id": cu.ID, "locale": "xx"}).Expect(t, http.StatusBadRequest, commerce.EValidation)
	})
}
