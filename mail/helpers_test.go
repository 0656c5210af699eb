package mail_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	stdmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/mail"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

// shop is a running service whose mail goes to files in dir, with a
// category, a tax, a shipping method to Hawaii and a product.
type shop struct {
	*apitest.Server
	t       testing.TB
	dir     string
	product string
}

// withMail returns app options sending mail with sender, fast.
func withMail(sender mail.Sender) func(*app.Options) {
	return func(o *app.Options) {
		o.WebhookKey = []byte(apitest.Secret)
		o.MailSender = sender
		o.ShopName = "Acme Shop"
		o.StorefrontURL = "https://shop.example"
		o.MailFrom = "Acme Shop <orders@shop.example>"
		o.MailRetry = []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}
		o.MailPoll = 20 * time.Millisecond
		o.MailLease = 5 * time.Second
	}
}

func newShop(t testing.TB, db *sqldb.DB, opts ...func(*app.Options)) *shop {
	t.Helper()
	dir := t.TempDir()
	sender, err := mailfile.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{Server: apitest.New(t, db, append([]func(*app.Options){withMail(sender)}, opts...)...), t: t, dir: dir}
	s.setup()
	return s
}

func (s *shop) setup() {
	t := s.t
	var cat, prod struct{ ID string }
	s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "default", "class": "default", "title": "VAT", "rate": 21}).Must(t)
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title": "UPS", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US", "state": "Hawaii"}], "rates": [{"currency": "USD", "amount": 25.00}]}]}`)).Must(t)
	s.Post(t, "/catalog/v1/product.create", s.Admin, map[string]any{"sku": "F1", "status": "ONLINE", "title": "Fridge", "brand": "Acme",
		"categories": []string{cat.ID}, "stockStatus": 0, "prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}}).
		Must(t).Decode(t, "product", &prod)
	s.Post(t, "/stock/v1/stock.create", s.Admin, map[string]any{"productId": prod.ID, "warehouseId": "W1", "quantity": 1000}).Must(t)
	s.product = prod.ID
}

// checkout places an order of one unit for the token, to email.
func (s *shop) checkout(token, email string) *order.Order {
	s.t.Helper()
	var c struct{ ID string }
	s.Post(s.t, "/cart/v1/cart.create", token, map[string]any{}).Must(s.t).Decode(s.t, "cart", &c)
	s.Post(s.t, "/cart/v1/cart.addToCart", token, map[string]any{"cartId": c.ID,
		"items": []map[string]any{{"productId": s.product, "quantity": 1, "warehouseId": "W1"}}}).Must(s.t)
	body := map[string]any{"cartId": c.ID, "paymentId": "manual", "paymentData": map[string]any{},
		"shippingAddress": map[string]any{"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": "96815",
			"city": "Honolulu", "state": "Hawaii", "country": "US"}}
	if email != "" {
		body["email"] = email
	}
	var o order.Order
	s.Post(s.t, "/cart/v1/cart.checkout", token, body).Must(s.t).Decode(s.t, "order", &o)
	return &o
}

// customer returns an api token for a customer.
func (s *shop) customer(id string) string {
	return s.Token(s.t, commerce.Claims{Subject: "user-" + id, Scopes: []string{commerce.ScopeAPI}, CustomerID: id})
}

// list returns mail.list's messages for the query.
func (s *shop) list(query string) []mail.Mail {
	s.t.Helper()
	var ms []mail.Mail
	s.Get(s.t, "/mail/v1/mail.list?limit=1000&"+query, s.Admin).Must(s.t).Decode(s.t, "data", &ms)
	return ms
}

// wait waits until mail.list for the query has n messages, all with the
// status, and returns them.
func (s *shop) wait(query string, n int, status string) []mail.Mail {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ms := s.list(query)
		done := len(ms) == n
		for _, m := range ms {
			done = done && m.Status == status
		}
		if done {
			return ms
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("mail.list?%s: %+v; want %d %s", query, ms, n, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// info returns mail.info of a message.
func (s *shop) info(id string) mail.Full {
	s.t.Helper()
	var m mail.Full
	s.Get(s.t, "/mail/v1/mail.info?id="+id, s.Admin).Must(s.t).Decode(s.t, "mail", &m)
	return m
}

// parsed is a message read back: its headers and its two parts.
type parsed struct {
	Header     stdmail.Header
	Text, HTML string
	Raw        string
}

// eml reads the file of a message from the shop's mail folder.
func (s *shop) eml(id string) parsed {
	s.t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.dir, "*-"+id+".eml"))
	if len(files) != 1 {
		s.t.Fatalf("files of message %s: %v", id, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		s.t.Fatal(err)
	}
	p, err := parseMessage(b)
	if err != nil {
		s.t.Fatalf("%s: %v\n%s", files[0], err, b)
	}
	return p
}

// parseMessage parses an RFC 5322 multipart/alternative message with the
// standard library.
func parseMessage(b []byte) (parsed, error) {
	m, err := stdmail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		return parsed{}, err
	}
	p := parsed{Header: m.Header, Raw: string(b)}
	text, html, err := alternative(m.Header.Get("Content-Type"), m.Body)
	p.Text, p.HTML = text, html
	return p, err
}

// alternative reads the text and HTML parts of a multipart/alternative
// body (quoted-printable decoded by mime/multipart), and fails unless
// there are exactly those two, text first.
func alternative(contentType string, body io.Reader) (text, html string, err error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/alternative" {
		return "", "", fmt.Errorf("content type %q: want multipart/alternative", contentType)
	}
	r := multipart.NewReader(body, params["boundary"])
	var types []string
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", "", err
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return "", "", err
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		types = append(types, ct)
		switch ct {
		case "text/plain":
			text = string(b)
		case "text/html":
			html = string(b)
		}
	}
	if strings.Join(types, ",") != "text/plain,text/html" {
		return "", "", fmt.Errorf("parts %v: want text/plain then text/html", types)
	}
	return text, html, nil
}
