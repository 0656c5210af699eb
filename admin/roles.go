package admin

import (
	"net"
	"net/http"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/staff"
)

// pageResources are the resources of staff.Resources (the one permission
// table) that the app's pages under /admin/<segment> show or change.
var pageResources = map[string]string{
	"products": "product", "categories": "category", "pickers": "product", "promotions": "promotion",
	"taxes": "tax", "shipping": "shipping", "events": "event", "orders": "order", "returns": "return",
	"drafts": "draft", "customers": "customer", "webhooks": "webhook", "mail": "mail", "staff": "staff",
	"audit": "audit", "groups": "group", "pricelists": "priceList",
	// The pages under /admin/imports are product.import's.
	"imports": "product.import",
}

// pageAction is the operation or resource a request of the app asks for,
// and whether it changes anything ("" for the pages every member may
// use: the dashboard, their own account, signing out).
func pageAction(r *http.Request) (string, bool) {
	rest := strings.TrimPrefix(r.URL.Path, "/admin/")
	seg, sub, _ := strings.Cut(rest, "/")
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	switch seg {
	case "", "signout", "account":
		return "", write
	case "orders":
		if strings.HasSuffix(sub, "/return") {
			return "return", write
		}
	case "mail":
		if strings.HasSuffix(sub, "/resend") {
			return "mail.resend", write
		}
	case "promotions":
		if sub == "check" || sub == "rule" {
			return "promotion", false // checks a rule, changes nothing
		}
	}
	if res, ok := pageResources[seg]; ok {
		return res, write
	}
	return seg, write // not in the table: owners and admins only
}

// permitted reports whether the member's role may open the page or send
// the form of r: staff.Allowed, the check the API makes of the
// operations the page runs (which it makes again, with the member's
// role in the claims, whatever the page sent).
func permitted(st staff.Staff, r *http.Request) bool {
	res, write := pageAction(r)
	return res == "" || staff.Allowed(st.Role, res, write)
}

// denied answers a page the member's role may not use: 403.
func (h *Handler) denied(w http.ResponseWriter, r *http.Request) {
	h.fail(w, r, "denied", page{Title: "Not allowed"}, formSpec{}, commerce.Errorf(commerce.EForbidden, "role may not use %s", r.URL.Path))
}

// clientIP is the address a request came from (the connection's).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
