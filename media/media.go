// Package media is the product images area (docs/api.md section 23): the
// upload pipeline (sniff the content, check the size before decoding,
// decode, auto-orient, re-encode without metadata), the records of the
// uploaded images, their resized copies made on first request, and the
// port to where the bytes are kept (Blobs, with the adapters media/fs and
// media/s3).
package media

import (
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// Media is an uploaded image: {id, url, contentType, width, height, bytes,
// sha256, alt}. Bytes and SHA256 are those of the stored image (after
// orientation and metadata removal), which GET /media/<id>.<ext> serves.
type Media struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Bytes       int64  `json:"bytes"`
	SHA256      string `json:"sha256"`
	Alt         string `json:"alt"`
	// Ext is the extension of the image's name (jpg, png, gif, webp).
	Ext string `json:"-"`
	// CreatedAt orders media.list (newest first).
	CreatedAt time.Time `json:"-"`
}

// Formats by extension: the content type each stored extension is
// served with.
var contentTypes = map[string]string{
	"jpg":  "image/jpeg",
	"png":  "image/png",
	"gif":  "image/gif",
	"webp": "image/webp",
}

// ContentType is the content type of an extension ("" when it is none of
// the stored formats').
func ContentType(ext string) string { return contentTypes[ext] }

// NotFound is media_not_found, data the id.
func NotFound(id string) *commerce.Error { return commerce.NewError(commerce.EMediaNotFound, id) }

// Invalid is invalid_media, data {reason}.
func Invalid(reason string) *commerce.Error {
	return &commerce.Error{Code: commerce.EInvalidMedia, Data: map[string]string{"reason": reason}, Message: reason}
}

// InUse is media_in_use, data the ids of the products listing the image.
func InUse(products []string) *commerce.Error {
	return &commerce.Error{Code: commerce.EMediaInUse, Data: products, Message: strings.Join(products, ", ")}
}

// Path is the path an image (or its resized copy, w > 0) is served at:
// /media/<id>.<ext>[?w=N].
func Path(id, ext string) string { return "/media/" + id + "." + ext }
