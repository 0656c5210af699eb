package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/app"
	mailfile "github.com/commercekit/commerce/mail/file"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// world is a running service with what the audit examples
// (audit_examples_test.go) build their arguments from: a category, a
// tax, a shipping method to Hawaii, a product in stock, a registered
// customer, a webhook to a receiver, mail, and helpers that make a fresh
// record of each kind (an example that changes or removes one makes its
// own, so that the examples run in any order).
type world struct {
	t  *testing.T
	s  *apitest.Server
	db *sqldb.DB

	category, product      string
	customerID, email      string
	hookURL, mailDir       string
	n                      int
	customerPassword, cust string // cust: the customer's api token
}

func newWorld(t *testing.T, db *sqldb.DB) *world {
	t.Helper()
	dir := t.TempDir()
	sender, err := mailfile.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	t.Cleanup(hook.Close)
	s := apitest.New(t, db, func(o *app.Options) {
		o.MailSender, o.MailPoll = sender, 20*time.Millisecond
		o.MediaBlobs = media.NewMemory()
		o.WebhookKey, o.WebhookAllowPrivate = []byte(apitest.Secret), true
	})
	w := &world{t: t, s: s, db: db, hookURL: hook.URL + "/hook", mailDir: dir, customerPassword: "correct horse battery"}
	w.category = w.id("/catalog/v1/category.create", "category", map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"})
	s.Post(t, "/tax/v1/tax.create", s.Admin, map[string]any{"code": "default", "class": "default", "title": "IVA 21%", "rate": 21}).Must(t)
	s.Post(t, "/cart/v1/shipping.create", s.Admin, json.RawMessage(`{"title": "UPS", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US", "state": "Hawaii"}], "rates": [{"currency": "USD", "amount": 25.00}]}]}`)).Must(t)
	w.product = w.newProduct()
	// Enough for every cart of the examples.
	s.Post(t, "/stock/v1/stock.update", s.Admin, map[string]any{"productId": w.product, "warehouseId": "W1", "quantity": 100000}).Must(t)
	w.email = "ada@example.com"
	w.customerID = w.id("/customer/v1/customer.register", "customer", map[string]any{"email": w.email,
		"password": w.customerPassword, "firstName": "Ada", "lastName": "Lovelace"})
	w.cust = s.Token(t, commerce.Claims{Subject: "user-ada", Scopes: []string{commerce.ScopeAPI}, CustomerID: w.customerID})
	return w
}

// uniq returns prefix with a number never returned before.
func (w *world) uniq(prefix string) string {
	w.n++
	return fmt.Sprintf("%s-%d", prefix, w.n)
}

// id posts body to path with the admin token and returns the id of the
// answer's property name.
func (w *world) id(path, name string, body any) string {
	w.t.Helper()
	var v struct{ ID string }
	w.s.Post(w.t, path, w.s.Admin, body).Must(w.t).Decode(w.t, name, &v)
	if v.ID == "" {
		w.t.Fatalf("%s: no %s id", path, name)
	}
	return v.ID
}

// newProduct creates an ONLINE product at 100.00 USD with 10 units in W1.
func (w *world) newProduct() string {
	w.t.Helper()
	sku := w.uniq("SKU")
	id := w.id("/catalog/v1/product.create", "product", map[string]any{"sku": sku, "status": "ONLINE", "title": "Fridge " + sku,
		"categories": []string{w.category}, "stockStatus": 0, "prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}})
	w.s.Post(w.t, "/stock/v1/stock.create", w.s.Admin, map[string]any{"productId": id, "warehouseId": "W1", "quantity": 10}).Must(w.t)
	return id
}

func (w *world) newCategory() string {
	slug := w.uniq("cat")
	return w.id("/catalog/v1/category.create", "category", map[string]any{"title": slug, "slug": slug})
}

func (w *world) newTax() string {
	code := w.uniq("tax")
	return w.id("/tax/v1/tax.create", "tax", map[string]any{"code": code, "class": "default", "title": code, "rate": 10})
}

func (w *world) newShipping() string {
	return w.id("/cart/v1/shipping.create", "shipping", json.RawMessage(`{"title": "DHL", "active": true, "taxCode": "default",
		"rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 9.00}]}]}`))
}

// promotionBody is a promotion of 10% off the world's product.
func (w *world) promotionBody(code string) map[string]any {
	b := map[string]any{"title": w.uniq("promo"), "class": "default", "active": true, "priority": 1,
		"if":   json.RawMessage(fmt.Sprintf(`{"product":{"id":%q,"quantity":1}}`, w.product)),
		"then": json.RawMessage(fmt.Sprintf(`{"product":{"id":%q,"quantity":1,"discount":{"rate":10,"isPercentage":true}}}`, w.product))}
	if code != "" {
		b["code"] = code
	}
	return b
}

func (w *world) newPromotion(code string) string {
	return w.id("/promotion/v2/promotion.create", "promotion", w.promotionBody(code))
}

// newCart creates an admin's cart holding one unit of the product.
func (w *world) newCart() string {
	id := w.id("/cart/v1/cart.create", "cart", map[string]any{})
	w.s.Post(w.t, "/cart/v1/cart.addToCart", w.s.Admin, map[string]any{"cartId": id,
		"items": []map[string]any{{"productId": w.product, "quantity": 1, "warehouseId": "W1"}}}).Must(w.t)
	return id
}

func address() map[string]any {
	return map[string]any{"firstName": "Ada", "lastName": "Lovelace", "address_1": "1 Main St", "postCode": "96815",
		"city": "Honolulu", "state": "Hawaii", "country": "US", "phone": "5551234"}
}

func checkoutBody(cartID string) map[string]any {
	return map[string]any{"cartId": cartID, "shippingAddress": address(), "paymentId": "manual",
		"paymentData": map[string]any{"method": "cash"}}
}

// orderRef is an order as the examples need it.
type orderRef struct {
	ID    string `json:"id"`
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
	Fulfillments []struct {
		ID string `json:"id"`
	} `json:"fulfillments"`
}

// newOrder places the customer's order of 2 units of a new product.
func (w *world) newOrder() orderRef {
	w.t.Helper()
	p := w.newProduct()
	var c struct{ ID string }
	w.s.Post(w.t, "/cart/v1/cart.create", w.cust, map[string]any{}).Must(w.t).Decode(w.t, "cart", &c)
	w.s.Post(w.t, "/cart/v1/cart.addToCart", w.cust, map[string]any{"cartId": c.ID,
		"items": []map[string]any{{"productId": p, "quantity": 2, "warehouseId": "W1"}}}).Must(w.t)
	b := checkoutBody(c.ID)
	b["email"] = w.email
	var o orderRef
	w.s.Post(w.t, "/cart/v1/cart.checkout", w.cust, b).Must(w.t).Decode(w.t, "order", &o)
	return o
}

// orderOp runs an order operation with the admin token.
func (w *world) orderOp(name string, body map[string]any) orderRef {
	w.t.Helper()
	var o orderRef
	w.s.Post(w.t, "/order/v1/order."+name, w.s.Admin, body).Must(w.t).Decode(w.t, "order", &o)
	return o
}

func (w *world) captured() orderRef {
	o := w.newOrder()
	return w.orderOp("capture", map[string]any{"id": o.ID})
}

func (w *world) fulfilled() orderRef {
	o := w.captured()
	return w.orderOp("fulfill", map[string]any{"id": o.ID})
}

func (w *world) delivered() orderRef {
	o := w.fulfilled()
	return w.orderOp("deliver", map[string]any{"id": o.ID, "fulfillmentId": o.Fulfillments[0].ID})
}

// newReturn requests the return of one unit of a delivered order.
func (w *world) newReturn() string {
	o := w.delivered()
	return w.id("/order/v1/return.request", "return", map[string]any{"orderId": o.ID,
		"items": []map[string]any{{"itemId": o.Items[0].ID, "quantity": 1, "reason": "DAMAGED"}}})
}

func (w *world) received() string {
	r := w.newReturn()
	w.s.Post(w.t, "/order/v1/return.receive", w.s.Admin, map[string]any{"id": r}).Must(w.t)
	return r
}

func (w *world) newDraft() string {
	return w.id("/order/v1/draft.create", "draft", map[string]any{"email": w.email,
		"items":           []map[string]any{{"productId": w.product, "quantity": 1, "warehouseId": "W1"}},
		"shippingAddress": address()})
}

// newCustomer registers a customer and returns its id.
func (w *world) newCustomer() string {
	return w.id("/customer/v1/customer.register", "customer", map[string]any{"email": w.uniq("c") + "@example.com",
		"password": w.customerPassword, "firstName": "Grace"})
}

// customerWithAddress returns a customer and the id of its address.
func (w *world) customerWithAddress() (string, string) {
	w.t.Helper()
	id := w.newCustomer()
	var c struct {
		Addresses []struct {
			ID string `json:"id"`
		} `json:"addresses"`
	}
	w.s.Post(w.t, "/customer/v1/customer.addAddress", w.s.Admin, map[string]any{"id": id, "address": address()}).Must(w.t).Decode(w.t, "customer", &c)
	if len(c.Addresses) == 0 {
		w.t.Fatal("customer.addAddress: no address")
	}
	return id, c.Addresses[0].ID
}

func (w *world) newClient() string {
	return w.id("/customer/v1/client.create", "client", map[string]any{"name": w.uniq("erp"), "scope": "admin"})
}

func (w *world) newGroup() string {
	code := w.uniq("G")
	w.s.Post(w.t, "/customer/v1/group.create", w.s.Admin, map[string]any{"code": code}).Must(w.t)
	return code
}

func (w *world) newPriceList() string {
	return w.id("/catalog/v1/priceList.create", "priceList", map[string]any{"code": w.uniq("pl"), "currency": "USD"})
}

func (w *world) newWebhook() string {
	return w.id("/event/v1/webhook.create", "webhook", map[string]any{"url": w.hookURL, "channels": "TAXES"})
}

// delivery returns a delivery of a webhook: one made by a tax's creation.
func (w *world) delivery() string {
	w.t.Helper()
	hook := w.newWebhook()
	w.newTax()
	id := ""
	testdb.Eventually(w.t, "a delivery", true, func() bool {
		var ds []struct{ ID string }
		w.s.Post(w.t, "/event/v1/webhook.deliveries", w.s.Admin, map[string]any{"webhookId": hook}).Must(w.t).Decode(w.t, "data", &ds)
		if len(ds) > 0 {
			id = ds[0].ID
		}
		return id != ""
	})
	return id
}

// mail returns the id of a message the store holds (the customer's
// welcome).
func (w *world) mail() string {
	w.t.Helper()
	id := ""
	testdb.Eventually(w.t, "a message", true, func() bool {
		var ms []struct{ ID string }
		w.s.Post(w.t, "/mail/v1/mail.list", w.s.Admin, map[string]any{"limit": 1}).Must(w.t).Decode(w.t, "data", &ms)
		if len(ms) > 0 {
			id = ms[0].ID
		}
		return id != ""
	})
	return id
}

// multipart posts a multipart form (fields, and a file part when file is
// not nil) to path with the admin token.
func (w *world) multipart(path string, fields map[string]string, name string, file []byte) apitest.Response {
	w.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if file != nil {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			w.t.Fatal(err)
		}
		_, _ = fw.Write(file)
	}
	_ = mw.Close()
	req, err := http.NewRequest(http.MethodPost, w.s.URL+path, &body)
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+w.s.Admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := apitest.Response{Status: res.StatusCode, Raw: raw}
	if err := json.Unmarshal(raw, &r); err != nil {
		w.t.Fatalf("%s: not JSON (%d): %s", path, res.StatusCode, raw)
	}
	_ = json.Unmarshal(raw, &r.Body)
	return r
}

// pngImage is a small PNG.
func pngImage(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		img.Set(x, x, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func (w *world) newMedia() string {
	w.t.Helper()
	var m struct{ ID string }
	w.multipart("/catalog/v1/media.upload", nil, "photo.png", pngImage(w.t)).Must(w.t).Decode(w.t, "media", &m)
	return m.ID
}

var resetLink = regexp.MustCompile(`reset-password\?token=([A-Za-z0-9_-]+)`)

// resetToken asks a password reset for a new customer and returns the
// token of the link the email holds.
func (w *world) resetToken() string {
	w.t.Helper()
	email := w.uniq("reset") + "@example.com"
	w.s.Post(w.t, "/customer/v1/customer.register", w.s.API, obj{"email": email, "password": w.customerPassword, "firstName": "Reset"}).Must(w.t)
	w.s.Post(w.t, "/auth/v1/auth.requestPasswordReset", w.s.API, obj{"email": email}).Must(w.t)
	token := ""
	testdb.Eventually(w.t, "the reset email", true, func() bool {
		var ms []struct{ ID, Status string }
		w.s.Post(w.t, "/mail/v1/mail.list", w.s.Admin, obj{"to": email, "template": "password_reset"}).Must(w.t).Decode(w.t, "data", &ms)
		if len(ms) == 0 || ms[0].Status != "SENT" {
			return false
		}
		files, _ := filepath.Glob(filepath.Join(w.mailDir, "*-"+ms[0].ID+".eml"))
		if len(files) != 1 {
			return false
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			return false
		}
		// Quoted-printable: soft line breaks and "=" as =3D.
		text := strings.NewReplacer("=\r\n", "", "=\n", "", "=3D", "=").Replace(string(b))
		if m := resetLink.FindStringSubmatch(text); m != nil {
			token = m[1]
		}
		return token != ""
	})
	return token
}

// job imports a product and returns the import's job id.
func (w *world) job() string {
	w.t.Helper()
	var j struct{ ID string }
	w.multipart("/catalog/v1/product.import", nil, "products.csv",
		[]byte("sku,status,title,categories,price.USD,stockStatus\n"+w.uniq("JOB")+",DRAFT,Imported,Imports,10,0\n")).Must(w.t).Decode(w.t, "job", &j)
	return j.ID
}
