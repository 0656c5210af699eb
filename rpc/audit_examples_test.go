package rpc_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/commercekit/commerce/testkit/apitest"
)

// auditExample is an operation's example for TestAuditEveryOperation:
// arguments it runs with (good) and arguments it refuses (bad: a missing
// record or a broken rule, refused by the operation itself, not by the
// transport's shape checks where that can be helped). Each builds what
// it needs from the world afresh (a record it changes or removes is its
// own), so the examples run in any order. call, when set, runs the
// operation (a multipart upload, a file path); else the arguments are
// posted as JSON to the operation's path.
type auditExample struct {
	good, bad func(w *world) any
	call      func(w *world, args any) apitest.Response
	// offDoc: the refused arguments are off /openapi.json (apitest's
	// BadInput).
	offDoc bool
}

type obj = map[string]any

// byID is an example whose arguments are {"id": <a fresh record>}, bad
// {"id": "nope"}.
func byID(fresh func(w *world) string) auditExample {
	return auditExample{good: func(w *world) any { return obj{"id": fresh(w)} }, bad: func(*world) any { return obj{"id": "nope"} }}
}

// readEx is a read's example (a read writes no entry, refused or not);
// its refused arguments have an unknown name.
func readEx(args func(w *world) any) auditExample {
	return auditExample{good: args, bad: func(*world) any { return obj{"noSuchArgument": 1} }, offDoc: true}
}

func none(*world) any { return obj{} }

// export is the example of an export: a file, not the JSON envelope.
func export(path string) auditExample {
	ex := readEx(none)
	ex.call = func(w *world, args any) apitest.Response {
		b, _ := json.Marshal(args)
		req, _ := http.NewRequest(http.MethodPost, w.s.URL+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+w.s.Admin)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			w.t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return apitest.Response{Status: res.StatusCode, OK: res.StatusCode == http.StatusOK, Raw: raw}
	}
	return ex
}

// auditExamples are the examples of every operation (rpc.Server.Ops, and
// the operations of their own paths, PathOps). An operation added
// without one fails TestAuditEveryOperation, naming it.
var auditExamples = map[string]auditExample{
	// --- catalog
	"product.create": {
		good: func(w *world) any {
			return obj{"sku": w.uniq("NEW"), "status": "DRAFT", "title": "New", "categories": []string{w.category}, "stockStatus": 0}
		},
		bad: func(w *world) any { // the sku is taken: the insert fails in the transaction
			var p struct{ SKU string }
			w.s.Post(w.t, "/catalog/v1/product.info", w.s.Admin, obj{"id": w.product}).Must(w.t).Decode(w.t, "product", &p)
			return obj{"sku": p.SKU, "status": "DRAFT", "title": "Again", "categories": []string{w.category}, "stockStatus": 0}
		},
	},
	"product.update": {
		good: func(w *world) any { return obj{"id": w.newProduct(), "title": "Renamed"} },
		bad:  func(w *world) any { return obj{"id": w.newProduct(), "categories": []string{"no-such-category"}} },
	},
	"product.remove":  byID(func(w *world) string { return w.newProduct() }),
	"category.create": {good: func(w *world) any { s := w.uniq("c"); return obj{"title": s, "slug": s} }, bad: func(w *world) any { return obj{"title": "Orphan", "slug": w.uniq("o"), "parent": "nope"} }},
	"category.update": {good: func(w *world) any { return obj{"id": w.newCategory(), "title": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "title": "X"} }},
	"category.remove": byID(func(w *world) string { return w.newCategory() }),
	"media.remove":    byID(func(w *world) string { return w.newMedia() }),
	"media.upload": {
		good: func(w *world) any { return obj{"file": pngImage(w.t)} },
		bad:  func(w *world) any { return obj{"file": []byte("not an image")} },
		call: func(w *world, args any) apitest.Response {
			return w.multipart("/catalog/v1/media.upload", nil, "photo.png", args.(obj)["file"].([]byte))
		},
	},
	"media.get": {
		good: func(w *world) any {
			var m struct{ URL string }
			w.s.Post(w.t, "/catalog/v1/media.list", w.s.Admin, obj{"limit": 1}).Must(w.t)
			w.multipart("/catalog/v1/media.upload", nil, "photo.png", pngImage(w.t)).Must(w.t).Decode(w.t, "media", &m)
			return m.URL
		},
		bad: func(*world) any { return "/media/nope.png" },
		call: func(w *world, args any) apitest.Response {
			u := args.(string)
			if u[0] == '/' {
				u = w.s.URL + u
			}
			res, err := http.Get(u)
			if err != nil {
				w.t.Fatal(err)
			}
			res.Body.Close()
			return apitest.Response{Status: res.StatusCode, OK: res.StatusCode == http.StatusOK}
		},
	},
	"product.import": {
		good: func(w *world) any {
			return "sku,status,title,categories,price.USD,stockStatus\n" + w.uniq("IMP") + ",DRAFT,Imported,Imports,10,0\n"
		},
		bad: func(*world) any { return "not,a,commerce,file\n1,2,3,4\n" },
		call: func(w *world, args any) apitest.Response {
			return w.multipart("/catalog/v1/product.import", nil, "products.csv", []byte(args.(string)))
		},
	},
	"stock.create": {
		good: func(w *world) any { return obj{"productId": w.newProduct(), "warehouseId": "W2", "quantity": 3} },
		bad:  func(w *world) any { return obj{"productId": w.newProduct(), "warehouseId": "W1", "quantity": 3} }, // exists
	},
	"stock.update": {
		good: func(w *world) any { return obj{"productId": w.newProduct(), "warehouseId": "W1", "quantity": 4} },
		bad:  func(w *world) any { return obj{"productId": w.newProduct(), "warehouseId": "W9", "quantity": 4} },
	},
	"priceList.create": {
		good: func(w *world) any { return obj{"code": w.uniq("pl"), "currency": "USD"} },
		bad: func(w *world) any {
			return obj{"code": w.uniq("pl"), "currency": "USD", "prices": []obj{{"productId": "nope", "amount": 1}}}
		},
	},
	"priceList.update": {good: func(w *world) any { return obj{"id": w.newPriceList(), "title": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "title": "X"} }},
	"priceList.remove": byID(func(w *world) string { return w.newPriceList() }),

	// --- taxes, shipping, promotions
	"tax.create": {
		good: func(w *world) any { c := w.uniq("t"); return obj{"code": c, "class": "default", "title": c, "rate": 5} },
		bad:  func(*world) any { return obj{"code": "noclass", "title": "No class", "rate": 5} },
	},
	"tax.update": {good: func(w *world) any { return obj{"id": w.newTax(), "title": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "title": "X"} }},
	"tax.remove": byID(func(w *world) string { return w.newTax() }),
	"shipping.create": {good: func(w *world) any {
		return json.RawMessage(`{"title": "FedEx", "active": true, "taxCode": "default", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 9.00}]}]}`)
	}, bad: func(*world) any { return obj{"title": "X", "taxCode": "no-such-tax", "active": true} }},
	"shipping.remove": byID(func(w *world) string { return w.newShipping() }),
	"promotion.create": {
		good: func(w *world) any { return w.promotionBody("") },
		bad: func(w *world) any {
			b := w.promotionBody("")
			b["if"] = json.RawMessage(`{"product":{"nonsense":true}}`)
			return b
		},
	},
	"promotion.update": {good: func(w *world) any { return obj{"id": w.newPromotion(""), "title": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "title": "X"} }},

	// --- carts (an admin's carts)
	"cart.create": {good: none, bad: func(*world) any { return obj{"country": "ZZ"} }},
	"cart.addToCart": {
		good: func(w *world) any {
			return obj{"cartId": w.newCart(), "items": []obj{{"productId": w.product, "quantity": 1, "warehouseId": "W1"}}}
		},
		bad: func(w *world) any {
			return obj{"cartId": w.newCart(), "items": []obj{{"productId": "nope", "quantity": 1, "warehouseId": "W1"}}}
		},
	},
	"cart.removeFromCart": {
		good: func(w *world) any {
			c := w.newCart()
			var cart struct {
				Items []struct{ ID string } `json:"items"`
			}
			w.s.Post(w.t, "/cart/v1/cart.info", w.s.Admin, obj{"cartId": c}).Must(w.t).Decode(w.t, "cart", &cart)
			return obj{"cartId": c, "itemId": cart.Items[0].ID, "quantity": 1}
		},
		bad: func(w *world) any { return obj{"cartId": w.newCart(), "itemId": "nope", "quantity": 1} },
	},
	"cart.setShippingAddress": {
		good: func(w *world) any { return obj{"cartId": w.newCart(), "shippingAddress": address()} },
		bad:  func(*world) any { return obj{"cartId": "nope", "shippingAddress": address()} },
	},
	"cart.setBillingAddress": {
		good: func(w *world) any { return obj{"cartId": w.newCart(), "billingAddress": address()} },
		bad:  func(*world) any { return obj{"cartId": "nope", "billingAddress": address()} },
	},
	"cart.setShippingMethod": {
		good: func(w *world) any {
			c := w.newCart()
			w.s.Post(w.t, "/cart/v1/cart.setShippingAddress", w.s.Admin, obj{"cartId": c, "shippingAddress": address()}).Must(w.t)
			var methods []struct{ ID string }
			w.s.Post(w.t, "/cart/v1/shipping.list", w.s.Admin, obj{"fields": "id"}).Must(w.t).Decode(w.t, "data", &methods)
			return obj{"cartId": c, "methodId": methods[0].ID}
		},
		bad: func(w *world) any { return obj{"cartId": w.newCart(), "methodId": "nope"} },
	},
	"cart.checkout": {good: func(w *world) any { return checkoutBody(w.newCart()) }, bad: func(*world) any { return checkoutBody("nope") }},
	"cart.applyCoupon": {
		good: func(w *world) any {
			code := w.uniq("CODE")
			w.newPromotion(code)
			return obj{"cartId": w.newCart(), "code": code}
		},
		bad: func(w *world) any { return obj{"cartId": w.newCart(), "code": "NO-SUCH-CODE"} },
	},
	"cart.removeCoupon": {
		good: func(w *world) any {
			code, c := w.uniq("CODE"), w.newCart()
			w.newPromotion(code)
			w.s.Post(w.t, "/cart/v1/cart.applyCoupon", w.s.Admin, obj{"cartId": c, "code": code}).Must(w.t)
			return obj{"cartId": c, "code": code}
		},
		bad: func(*world) any { return obj{"cartId": "nope", "code": "X"} },
	},

	// --- orders, returns, drafts
	"order.capture": byID(func(w *world) string { return w.newOrder().ID }),
	"order.fulfill": byID(func(w *world) string { return w.captured().ID }),
	"order.deliver": {
		good: func(w *world) any { o := w.fulfilled(); return obj{"id": o.ID, "fulfillmentId": o.Fulfillments[0].ID} },
		bad:  func(w *world) any { return obj{"id": w.fulfilled().ID, "fulfillmentId": "nope"} },
	},
	"order.cancel": byID(func(w *world) string { return w.newOrder().ID }),
	"order.refund": {good: func(w *world) any { return obj{"id": w.captured().ID, "amount": 10} }, bad: func(w *world) any { return obj{"id": w.newOrder().ID, "amount": 10} }}, // not captured
	"return.request": {
		good: func(w *world) any {
			o := w.delivered()
			return obj{"orderId": o.ID, "items": []obj{{"itemId": o.Items[0].ID, "quantity": 1, "reason": "DAMAGED"}}}
		},
		bad: func(w *world) any { // more than was ordered
			o := w.delivered()
			return obj{"orderId": o.ID, "items": []obj{{"itemId": o.Items[0].ID, "quantity": 9, "reason": "DAMAGED"}}}
		},
	},
	"return.receive": byID(func(w *world) string { return w.newReturn() }),
	"return.refund":  {good: func(w *world) any { return obj{"id": w.received()} }, bad: func(w *world) any { return obj{"id": w.newReturn()} }}, // not received
	"return.reject":  byID(func(w *world) string { return w.newReturn() }),
	"return.cancel":  byID(func(w *world) string { return w.newReturn() }),
	"draft.create": {
		good: func(w *world) any {
			return obj{"email": w.email, "items": []obj{{"productId": w.product, "quantity": 1, "warehouseId": "W1"}}, "shippingAddress": address()}
		},
		bad: func(*world) any { return obj{"customerId": "nobody"} },
	},
	"draft.complete": {
		good: func(w *world) any {
			return obj{"id": w.newDraft(), "paymentId": "manual", "paymentData": obj{"method": "invoice"}}
		},
		bad: func(w *world) any { return obj{"id": w.newCart(), "paymentId": "manual", "paymentData": obj{}} }, // not a draft
	},

	// --- customers, clients, groups, sign-in
	"customer.register": {
		good: func(w *world) any {
			return obj{"email": w.uniq("new") + "@example.com", "password": w.customerPassword, "firstName": "New"}
		},
		bad: func(w *world) any { return obj{"email": w.email, "password": w.customerPassword, "firstName": "Again"} }, // taken
	},
	"customer.update": {good: func(w *world) any { return obj{"id": w.newCustomer(), "firstName": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "firstName": "X"} }},
	"customer.addAddress": {
		good: func(w *world) any { return obj{"id": w.newCustomer(), "address": address()} },
		bad:  func(*world) any { return obj{"id": "nope", "address": address()} },
	},
	"customer.removeAddress": {
		good: func(w *world) any { c, a := w.customerWithAddress(); return obj{"id": c, "addressId": a} },
		bad:  func(w *world) any { return obj{"id": w.newCustomer(), "addressId": "nope"} },
	},
	"customer.remove": byID(func(w *world) string { return w.newCustomer() }),
	"client.create":   {good: func(w *world) any { return obj{"name": w.uniq("erp"), "scope": "admin", "role": "orders"} }, bad: func(w *world) any { return obj{"name": "x", "scope": "admin", "role": "janitor"} }},
	"client.remove":   byID(func(w *world) string { return w.newClient() }),
	"group.create":    {good: func(w *world) any { return obj{"code": w.uniq("G")} }, bad: func(w *world) any { return obj{"code": w.newGroup()} }}, // taken
	"group.update":    {good: func(w *world) any { return obj{"code": w.newGroup(), "title": "Renamed"} }, bad: func(*world) any { return obj{"code": "NOPE", "title": "X"} }},
	"group.remove":    {good: func(w *world) any { return obj{"code": w.newGroup()} }, bad: func(*world) any { return obj{"code": "NOPE"} }},
	"auth.login":      {good: func(w *world) any { return obj{"email": w.email, "password": w.customerPassword} }, bad: func(w *world) any { return obj{"email": w.email, "password": "wrong password"} }},
	"auth.refresh": {
		good: func(w *world) any { return obj{"refreshToken": w.refreshToken()} },
		bad:  func(*world) any { return obj{"refreshToken": "nope"} },
	},
	"auth.logout": {
		good: func(w *world) any { return obj{"refreshToken": w.refreshToken()} },
		bad:  func(*world) any { return obj{"refreshToken": ""} },
	},
	"auth.requestPasswordReset": {good: func(w *world) any { return obj{"email": w.email} }, bad: func(*world) any { return obj{"email": ""} }},
	"auth.resetPassword":        {good: func(w *world) any { return obj{"token": w.resetToken(), "password": "another long password"} }, bad: func(*world) any { return obj{"token": "nope", "password": "another long password"} }},

	// --- webhooks, mail
	"webhook.create":    {good: func(w *world) any { return obj{"url": w.hookURL, "channels": "TAXES"} }, bad: func(w *world) any { return obj{"url": w.hookURL, "channels": "NO-SUCH-CHANNEL"} }},
	"webhook.update":    {good: func(w *world) any { return obj{"id": w.newWebhook(), "description": "Renamed"} }, bad: func(*world) any { return obj{"id": "nope", "description": "X"} }},
	"webhook.remove":    byID(func(w *world) string { return w.newWebhook() }),
	"webhook.redeliver": {good: func(w *world) any { return obj{"deliveryId": w.delivery()} }, bad: func(*world) any { return obj{"deliveryId": "nope"} }},
	"mail.resend":       byID(func(w *world) string { return w.mail() }),
	"oauth.token": { // a client's credentials for a token: no change
		good: func(w *world) any {
			var secret string
			var c struct{ ID string }
			r := w.s.Post(w.t, "/customer/v1/client.create", w.s.Admin, obj{"name": w.uniq("erp"), "scope": "admin"}).Must(w.t)
			r.Decode(w.t, "client", &c)
			r.Decode(w.t, "clientSecret", &secret)
			return url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ID}, "client_secret": {secret}}
		},
		bad: func(*world) any {
			return url.Values{"grant_type": {"client_credentials"}, "client_id": {"nope"}, "client_secret": {"nope"}}
		},
		call: func(w *world, args any) apitest.Response {
			res, err := http.PostForm(w.s.URL+"/oauth/token", args.(url.Values))
			if err != nil {
				w.t.Fatal(err)
			}
			res.Body.Close()
			return apitest.Response{Status: res.StatusCode, OK: res.StatusCode == http.StatusOK}
		},
	},

	// --- reads (no entry, answered or refused)
	"audit.list":         readEx(none),
	"cart.info":          readEx(func(w *world) any { return obj{"cartId": w.newCart()} }),
	"cart.calculateCart": readEx(func(w *world) any { return obj{"cartId": w.newCart()} }),
	"shipping.info":      readEx(func(w *world) any { return obj{"id": w.newShipping()} }),
	"shipping.list":      readEx(none),
	"category.info":      readEx(func(w *world) any { return obj{"id": w.category} }),
	"category.list":      readEx(none),
	"job.info":           readEx(func(w *world) any { return obj{"id": w.job()} }),
	"media.list":         readEx(none),
	"priceList.info":     readEx(func(w *world) any { return obj{"id": w.newPriceList()} }),
	"priceList.list":     readEx(none),
	"product.info":       readEx(func(w *world) any { return obj{"id": w.product} }),
	"product.list":       readEx(none),
	"product.search":     readEx(func(*world) any { return obj{"q": "fridge"} }),
	"product.export":     export("/catalog/v1/product.export"),
	"order.export":       export("/order/v1/order.export"),
	"client.list":        readEx(none),
	"customer.info":      readEx(func(w *world) any { return obj{"id": w.customerID} }),
	"customer.list":      readEx(none),
	"customer.export":    readEx(func(w *world) any { return obj{"id": w.customerID} }),
	"group.list":         readEx(none),
	"event.list":         readEx(none),
	"webhook.info":       readEx(func(w *world) any { return obj{"id": w.newWebhook()} }),
	"webhook.list":       readEx(none),
	"webhook.deliveries": readEx(none),
	"mail.info":          readEx(func(w *world) any { return obj{"id": w.mail()} }),
	"mail.list":          readEx(none),
	"mail.preview":       readEx(func(w *world) any { return obj{"template": "welcome", "customerId": w.customerID} }),
	"order.info":         readEx(func(w *world) any { return obj{"id": w.newOrder().ID} }),
	"order.list":         readEx(none),
	"return.info":        readEx(func(w *world) any { return obj{"id": w.newReturn()} }),
	"return.list":        readEx(none),
	"promotion.info":     readEx(func(w *world) any { return obj{"id": w.newPromotion("")} }),
	"promotion.list":     readEx(none),
	"promotion.cartPromotions": readEx(func(w *world) any {
		return obj{"cartId": "c1", "items": []obj{{"id": "i1", "productId": w.product, "quantity": 1, "price": 10}}}
	}),
	"stock.info": readEx(func(w *world) any { return obj{"productId": w.product, "warehouseId": "W1"} }),
	"tax.info":   readEx(func(w *world) any { return obj{"id": w.newTax()} }),
	"tax.list":   readEx(none),
	"tax.cartTaxes": readEx(func(w *world) any {
		return obj{"cartId": "c1", "items": []obj{{"id": "i1", "productId": w.product, "quantity": 1, "price": 10}}}
	}),
}

// refreshToken signs the customer in and returns the refresh token.
func (w *world) refreshToken() string {
	w.t.Helper()
	var tok string
	w.s.Post(w.t, "/auth/v1/auth.login", w.s.API, obj{"email": w.email, "password": w.customerPassword}).Must(w.t).Decode(w.t, "refreshToken", &tok)
	return tok
}
