// Command commerceclientcheck calls the commerce service through the client
// that oapi-codegen generates from /openapi-3.0.json (.ci/openapi-go builds
// it in a module of its own, with the generated package commerceclient):
// it creates a cart (typed as cart.ViewCalculateForm), reads a cart that
// does not exist (a typed 404 answer) and lists products.
//
// Usage: commerceclientcheck BASE_URL ADMIN_TOKEN
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"commerceclientcheck/commerceclient"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: commerceclientcheck BASE_URL ADMIN_TOKEN")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "oapi-codegen client:", err)
		os.Exit(1)
	}
}

func run(url, token string) error {
	ctx := context.Background()
	c, err := commerceclient.NewClientWithResponses(url, commerceclient.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		return err
	}
	usd := "USD"
	created, err := c.CartV1CartCreateWithResponse(ctx, nil, commerceclient.CartCreateInput{Currency: &usd})
	if err != nil {
		return fmt.Errorf("cart.create: %w", err)
	}
	if created.JSON200 == nil || created.JSON200.Cart.Id == "" || created.JSON200.Cart.Status != "ACTIVE" || created.JSON200.Cart.Currency != "USD" {
		return fmt.Errorf("cart.create: HTTP %d %s", created.StatusCode(), created.Body)
	}
	cart := created.JSON200.Cart
	missing := "no-such-cart"
	info, err := c.CartV1CartInfoGetWithResponse(ctx, &commerceclient.CartV1CartInfoGetParams{CartId: &missing})
	if err != nil {
		return fmt.Errorf("cart.info: %w", err)
	}
	if info.JSON404 == nil || info.JSON404.Error != "cart_not_found" {
		return fmt.Errorf("cart.info of an unknown cart: HTTP %d %s, want 404 cart_not_found", info.StatusCode(), info.Body)
	}
	list, err := c.CatalogV1ProductListGetWithResponse(ctx, &commerceclient.CatalogV1ProductListGetParams{})
	if err != nil {
		return fmt.Errorf("product.list: %w", err)
	}
	if list.JSON200 == nil || list.JSON200.Data == nil {
		return fmt.Errorf("product.list: HTTP %d %s", list.StatusCode(), list.Body)
	}
	fmt.Printf("oapi-codegen client: cart %s created (%s, %d items), cart.info of an unknown cart is %d %s, product.list gave %d products\n",
		cart.Id, cart.Status, len(cart.Items), info.StatusCode(), info.JSON404.Error, len(*list.JSON200.Data))
	return nil
}
