package media

import "github.com/commercekit/commerce"

// UploadInput is media.upload's multipart form, decoded by the transport.
type UploadInput struct {
	// Data is the file part's content (at most Config.MaxBytes).
	Data []byte
	// ProductID, when set, names the product whose medias the image is
	// appended to.
	ProductID string
	// Alt is the image's alternative text.
	Alt string
}

// ListInput is media.list's arguments.
type ListInput struct {
	// ProductID lists the images that product lists in its medias.
	ProductID string `json:"productId"`
	commerce.PageArgs
}

// RemoveInput is media.remove's argument.
type RemoveInput struct {
	// ID is the image to remove.
	ID string `json:"id" openapi:"required"`
}
