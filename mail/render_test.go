package mail

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/commercekit/commerce/money"
)

func testData(template, locale string) *Data {
	return sampleData(template, locale, Shop{Name: "Acme Shop", URL: "https://shop.example"})
}

// TestTemplates renders every template in every built-in locale: each
// has a one-line subject naming the shop (and the order number for the
// order's templates), a text part and an HTML part without template
// leftovers, and the HTML escapes the order's text.
func TestTemplates(t *testing.T) {
	r, err := NewRenderer("")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Locales(); strings.Join(got, ",") != "en,es" {
		t.Fatalf("locales %v, want en,es", got)
	}
	for _, locale := range []string{"en", "es"} {
		for _, name := range Templates {
			t.Run(locale+"/"+name, func(t *testing.T) {
				out, err := r.Render(name, locale, testData(name, locale))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.Subject, "Acme Shop") || strings.Contains(out.Subject, "\n") {
					t.Errorf("subject %q: want one line naming the shop", out.Subject)
				}
				byOrder := name != PasswordReset && name != Welcome && name != StaffInvite
				if byOrder && !strings.Contains(out.Subject, "1042") {
					t.Errorf("subject %q: want the order number", out.Subject)
				}
				for part, body := range map[string]string{"text": out.Text, "html": out.HTML} {
					if strings.Contains(body, "{{") || strings.Contains(body, "<no value>") || strings.Contains(body, "%!") {
						t.Errorf("%s part has template leftovers:\n%s", part, body)
					}
				}
				if !strings.HasPrefix(out.HTML, "<!DOCTYPE html>") || !strings.Contains(out.HTML, `lang="`+locale+`"`) {
					t.Errorf("html does not start as a %s document: %.80s", locale, out.HTML)
				}
				if strings.Contains(out.HTML, "http://") && !strings.Contains(out.HTML, "https://shop.example") {
					t.Errorf("html links elsewhere than the shop")
				}
				if strings.Contains(out.HTML, "<img") || strings.Contains(out.HTML, "<link") || strings.Contains(out.HTML, "<script") {
					t.Errorf("html loads remote assets")
				}
				if name == OrderConfirmation {
					for _, want := range []string{"Fridge", "1 Main St", "Honolulu", "https://shop.example/orders/o1"} {
						if !strings.Contains(out.Text, want) || !strings.Contains(out.HTML, want) {
							t.Errorf("%q missing from a part", want)
						}
					}
					if !strings.Contains(out.HTML, "Kettle &lt;Deluxe&gt;") {
						t.Errorf("the HTML does not escape the title")
					}
				}
				if name == PasswordReset && !strings.Contains(out.Text, "https://shop.example/reset-password?token=tok123") {
					t.Errorf("no reset link in the text:\n%s", out.Text)
				}
				if name == OrderShipped && (!strings.Contains(out.Text, "1Z999") || !strings.Contains(out.Text, "Kettle")) {
					t.Errorf("no tracking number or shipped line:\n%s", out.Text)
				}
				if name == OrderRefunded && !strings.Contains(out.Text, "12") {
					t.Errorf("no refund amount:\n%s", out.Text)
				}
			})
		}
	}
	es, _ := r.Render(OrderConfirmation, "es", testData(OrderConfirmation, "es"))
	if !strings.Contains(es.Subject, "pedido 1042") || !strings.Contains(es.Text, "1.044,98\u00a0$") {
		t.Errorf("es: subject %q, text:\n%s", es.Subject, es.Text)
	}
}

// TestOverride: a file of the override folder replaces the built-in one
// of its locale only; a new locale folder adds a locale whose missing
// files are English; a broken template stops NewRenderer.
func TestOverride(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("en/welcome.txt", `{{define "subject"}}Hello from {{.Shop.Name}}{{end}}{{define "content"}}Custom welcome for {{.To}}{{end}}`)
	write("fr/welcome.txt", `{{define "subject"}}Bienvenue chez {{.Shop.Name}}{{end}}{{define "content"}}Bonjour{{end}}`)
	r, err := NewRenderer(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := func() *Data { return &Data{Shop: Shop{Name: "Acme", URL: "https://a.example"}, To: "ada@example.com"} }
	en, err := r.Render(Welcome, "en", d())
	if err != nil || en.Subject != "Hello from Acme" || !strings.Contains(en.Text, "Custom welcome for ada@example.com") {
		t.Fatalf("en override: %+v, %v", en, err)
	}
	if !strings.Contains(en.HTML, "Welcome to Acme") {
		t.Errorf("en HTML is not the built-in one: %.200s", en.HTML)
	}
	es, _ := r.Render(Welcome, "es", d())
	if !strings.Contains(es.Subject, "bienvenida") {
		t.Errorf("es changed: %q", es.Subject)
	}
	fr, err := r.Render(Welcome, "fr", d())
	if err != nil || fr.Subject != "Bienvenue chez Acme" || !strings.Contains(fr.HTML, "Welcome to Acme") {
		t.Errorf("fr: %+v, %v", fr, err)
	}
	if got := r.Locale("fr-CA"); got != "fr" {
		t.Errorf("Locale(fr-CA) = %q, want fr", got)
	}
	for _, broken := range []string{`{{define "content"}}{{if}}{{end}}`, `{{define "content"}}{{.Order.Nope}}{{end}}`} {
		write("es/order_shipped.html", broken)
		if _, err := NewRenderer(dir); err == nil || !strings.Contains(err.Error(), "order_shipped.html") {
			t.Errorf("a broken template %s: %v, want an error naming it", broken, err)
		}
	}
}

func TestResolveLocale(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"none", nil, "en"},
		{"empty", []string{""}, "en"},
		{"exact", []string{"es"}, "es"},
		{"region", []string{"es-MX"}, "es"},
		{"first known wins", []string{"de", "es", "en"}, "es"},
		{"unknown", []string{"de"}, "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ResolveLocale([]string{"en", "es"}, tc.candidates...); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMoney(t *testing.T) {
	for _, tc := range []struct {
		m      money.Money
		locale string
		want   string
	}{
		{money.Money{Amount: 2500, Currency: "USD", Precision: 2}, "en", "$25.00"},
		{money.Money{Amount: 123456789, Currency: "USD", Precision: 2}, "en", "$1,234,567.89"},
		{money.Money{Amount: -150, Currency: "EUR", Precision: 2}, "en", "-€1.50"},
		{money.Money{Amount: 123450, Currency: "EUR", Precision: 2}, "es", "1.234,50\u00a0€"},
		{money.Money{Amount: 1500, Currency: "JPY", Precision: 0}, "en", "¥1,500"},
		{money.Money{Amount: 1005, Currency: "JOD", Precision: 3}, "en", "1.005\u00a0JOD"},
	} {
		if got := Money(tc.m, tc.locale); got != tc.want {
			t.Errorf("Money(%v, %s) = %q, want %q", tc.m, tc.locale, got, tc.want)
		}
	}
}

func TestEventMessageID(t *testing.T) {
	a, b := EventMessageID("e1", OrderConfirmation), EventMessageID("e1", OrderShipped)
	if a == b || a != EventMessageID("e1", OrderConfirmation) || len(a) != 22 {
		t.Errorf("ids %q %q: want stable, distinct per template, 22 characters", a, b)
	}
}
