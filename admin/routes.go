package admin

import (
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strings"
	"time"
)

// routes registers the pages; every one needs a session.
func (h *Handler) routes() {
	m := h.mux
	a := h.authed
	m.HandleFunc("GET /admin/{$}", a(h.dashboard))
	m.HandleFunc("POST /admin/signout", a(h.signOut))

	m.HandleFunc("GET /admin/products", a(h.products))
	m.HandleFunc("GET /admin/products/new", a(h.productNew))
	m.HandleFunc("POST /admin/products/new", a(h.productCreate))
	m.HandleFunc("GET /admin/products/{id}", a(h.productEdit))
	m.HandleFunc("POST /admin/products/{id}", a(h.productUpdate))
	m.HandleFunc("POST /admin/products/{id}/stock", a(h.productStock))
	m.HandleFunc("POST /admin/products/{id}/media", a(h.productMediaUpload))
	m.HandleFunc("POST /admin/products/{id}/medias", a(h.productMedias))
	m.HandleFunc("POST /admin/products/{id}/medias/remove", a(h.productMediaRemove))

	m.HandleFunc("GET /admin/categories", a(h.categories))
	m.HandleFunc("POST /admin/categories", a(h.categoryCreate))
	m.HandleFunc("GET /admin/categories/{id}", a(h.categoryEdit))
	m.HandleFunc("POST /admin/categories/{id}", a(h.categoryUpdate))

	m.HandleFunc("GET /admin/promotions", a(h.promotions))
	m.HandleFunc("GET /admin/promotions/new", a(h.promotionNew))
	m.HandleFunc("POST /admin/promotions/new", a(h.promotionCreate))
	m.HandleFunc("POST /admin/promotions/check", a(h.promotionCheck))
	m.HandleFunc("POST /admin/promotions/rule", a(h.promotionRule))
	m.HandleFunc("GET /admin/pickers/products", a(h.productPicker))
	m.HandleFunc("GET /admin/promotions/{id}", a(h.promotionEdit))
	m.HandleFunc("POST /admin/promotions/{id}", a(h.promotionUpdate))
	m.HandleFunc("POST /admin/promotions/{id}/try", a(h.promotionTry))

	m.HandleFunc("GET /admin/taxes", a(h.taxes))
	m.HandleFunc("POST /admin/taxes", a(h.taxCreate))
	m.HandleFunc("GET /admin/taxes/{id}", a(h.taxEdit))
	m.HandleFunc("POST /admin/taxes/{id}", a(h.taxUpdate))

	m.HandleFunc("GET /admin/shipping", a(h.shippingMethods))
	m.HandleFunc("POST /admin/shipping", a(h.shippingCreate))
	m.HandleFunc("POST /admin/shipping/rates", a(h.shippingRates))
	m.HandleFunc("POST /admin/shipping/{id}/remove", a(h.shippingRemove))

	m.HandleFunc("GET /admin/events", a(h.events))
	// The pages of areas that may not be assembled: only when their
	// operations are registered.
	h.features["coupons"] = h.opts.RPC.Has("cart/v1/cart.applyCoupon")
	h.orderRoutes()
	h.returnRoutes()
	h.draftRoutes()
	h.customerRoutes()
	h.webhookRoutes()
	h.mailRoutes()
	h.staffRoutes()
	h.priceRoutes()
	h.importRoutes()
}

func toInt(v any) int64 {
	var n int64
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

var funcs = template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	},
	"str": func(v any) string {
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	},
	"join": func(v any, sep string) string {
		switch l := v.(type) {
		case []any:
			s := make([]string, len(l))
			for i, x := range l {
				s[i] = fmt.Sprint(x)
			}
			return strings.Join(s, sep)
		case []string:
			return strings.Join(l, sep)
		}
		return ""
	},
	"has": func(vs []string, v any) bool {
		s := fmt.Sprint(v)
		for _, x := range vs {
			if x == s {
				return true
			}
		}
		return false
	},
	"time": func(v any) string {
		var t time.Time
		switch x := v.(type) {
		case time.Time:
			t = x
		case string:
			p, err := time.Parse(time.RFC3339Nano, x)
			if err != nil {
				return x
			}
			t = p
		default:
			return fmt.Sprint(v)
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"sortedKeys": func(m map[string]any) []string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	},
	"money": formatMoney,
	// fullName is a customer's first and last name ("" when none).
	"fullName": func(c map[string]any) string {
		return strings.TrimSpace(str(c["firstName"]) + " " + str(c["lastName"]))
	},
	// capital gives a message a capital first letter.
	"capital": capitalize,
	// once is a fresh one-time token for a form (OnceField).
	"once":  randomToken,
	"sub":   func(a, b any) int64 { return toInt(a) - toInt(b) },
	"list2": func(s ...string) []string { return s },
	"seq": func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	},
}
