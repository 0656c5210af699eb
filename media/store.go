package media

import (
	"context"

	"github.com/commercekit/commerce/event"
)

// Filter selects images for Store.List.
type Filter struct {
	// ProductID, when set, selects the images that product lists.
	ProductID   string
	Limit, Skip int
}

// Store keeps the image records (implemented by package sqldb); the bytes
// are in Blobs.
type Store interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn may run more than once.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Media returns an image's record. Errors: media_not_found.
	Media(ctx context.Context, id string) (Media, error)
	// List returns a page of the images matching f, newest first, and how
	// many match in all.
	List(ctx context.Context, f Filter) ([]Media, int, error)
}

// Tx is a write transaction of the store.
type Tx interface {
	Emit(e event.Event)
	// Insert stores a new image record (URL is not stored).
	Insert(ctx context.Context, m Media) error
	// Delete removes an image record. Errors: media_not_found.
	Delete(ctx context.Context, id string) (Media, error)
	// Users returns the ids of the products whose medias list the image,
	// the rows read locked against a concurrent change where the
	// database can.
	Users(ctx context.Context, id string) ([]string, error)
}
