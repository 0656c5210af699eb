package app

import (
	"context"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
)

// mediaArea assembles the product images (docs/api.md section 23), after
// the catalog, whose products list them.
func mediaArea(a *App) error {
	blobs := a.opts.MediaBlobs
	if blobs == nil {
		blobs = media.NewMemory()
	}
	a.Media = media.NewService(sqldb.NewMediaStore(a.db), blobs, mediaProducts{a.Catalog}, a.now, media.Config{
		MaxBytes: a.opts.MediaMaxBytes, Widths: a.opts.MediaWidths, BaseURL: a.opts.MediaBaseURL})
	rpc.RegisterMedia(a.srv, a.Media)
	return nil
}

// mediaProducts gives the media area the catalog's products.
type mediaProducts struct{ catalog *catalog.Service }

// CheckProduct implements media.Products.
func (p mediaProducts) CheckProduct(ctx context.Context, id string) error {
	_, err := p.catalog.Product(ctx, id)
	return err
}

// AddMedia implements media.Products.
func (p mediaProducts) AddMedia(ctx context.Context, productID string, m media.ProductMedia) error {
	_, err := p.catalog.AddMedia(ctx, productID, catalog.Media{ID: m.ID, URL: m.URL, Alt: m.Alt, Width: m.Width, Height: m.Height})
	return err
}
