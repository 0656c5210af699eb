package rpc_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/webhook"
)

// tagEnum returns the enum of the `openapi` tag of t's field with JSON
// name name (nil when t has no such field or it has no enum).
func tagEnum(t reflect.Type, name string) []string {
	for i := range t.NumField() {
		sf := t.Field(i)
		if n, _, _ := strings.Cut(sf.Tag.Get("json"), ","); n == name {
			var r commerce.ArgRule
			r.Add(sf.Tag.Get("openapi"))
			return r.Enum
		}
	}
	return nil
}

// TestEnumTags: the values an `openapi` tag allows (the one statement of
// an argument's values, which struct tags write as text) are the Go
// constants and lists the services check them against, in their order.
func TestEnumTags(t *testing.T) {
	orderStates := map[string][]string{"status": order.Statuses, "paymentStatus": order.PaymentStatuses,
		"fulfillmentStatus": order.FulfillmentStatuses}
	type want struct {
		t      reflect.Type
		fields map[string][]string
	}
	for _, w := range []want{
		{reflect.TypeFor[catalog.ProductFields](), map[string][]string{"status": {catalog.StatusOnline, catalog.StatusDraft}}},
		{reflect.TypeFor[pricelist.CreateInput](), map[string][]string{"status": {pricelist.StatusActive, pricelist.StatusDraft}}},
		{reflect.TypeFor[pricelist.UpdateInput](), map[string][]string{"status": {pricelist.StatusActive, pricelist.StatusDraft}}},
		{reflect.TypeFor[customer.ClientCreateInput](), map[string][]string{"scope": {commerce.ScopeAPI, commerce.ScopeAdmin}}},
		{reflect.TypeFor[customer.Client](), map[string][]string{"scope": {commerce.ScopeAPI, commerce.ScopeAdmin}}},
		{reflect.TypeFor[cart.View](), map[string][]string{"status": {cart.StatusActive, cart.StatusCheckedOut, cart.StatusExpired,
			cart.StatusDraft, cart.StatusExchange}}},
		{reflect.TypeFor[promotion.CreateInput](), map[string][]string{"class": {promotion.ClassDefault}}},
		{reflect.TypeFor[order.ListInput](), orderStates},
		{reflect.TypeFor[order.StateData](), orderStates},
		{reflect.TypeFor[order.Order](), orderStates},
		{reflect.TypeFor[order.Order](), map[string][]string{"source": {order.SourceStorefront, order.SourceDraft}}},
		{reflect.TypeFor[order.Payment](), map[string][]string{"status": {order.PayAuthorized, order.PayCaptured, order.PayVoided,
			order.PayRefunded, order.PayPartiallyRefunded, order.PayFailed}}},
		{reflect.TypeFor[order.Fulfillment](), map[string][]string{"status": {order.FulfillmentShipped, order.FulfillmentDelivered}}},
		{reflect.TypeFor[order.ReturnItemInput](), map[string][]string{"reason": order.ReturnReasons}},
		{reflect.TypeFor[order.ReturnItem](), map[string][]string{"reason": order.ReturnReasons}},
		{reflect.TypeFor[order.ReturnListInput](), map[string][]string{"status": order.ReturnStatuses}},
		{reflect.TypeFor[order.Return](), map[string][]string{"status": order.ReturnStatuses}},
		{reflect.TypeFor[webhook.DeliveriesInput](), map[string][]string{"status": {webhook.Pending, webhook.Delivered, webhook.Failed}}},
		{reflect.TypeFor[webhook.Delivery](), map[string][]string{"status": {webhook.Pending, webhook.Delivered, webhook.Failed}}},
		{reflect.TypeFor[mail.ListInput](), map[string][]string{"status": mail.Statuses, "template": mail.Templates}},
		{reflect.TypeFor[mail.PreviewInput](), map[string][]string{"template": mail.Templates}},
		{reflect.TypeFor[mail.Mail](), map[string][]string{"status": mail.Statuses, "template": mail.Templates}},
	} {
		for name, values := range w.fields {
			if got := tagEnum(w.t, name); !slices.Equal(got, values) {
				t.Errorf("%v.%s: the openapi tag allows %v, the Go values are %v", w.t, name, got, values)
			}
		}
	}
}
