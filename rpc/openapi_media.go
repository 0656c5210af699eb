package rpc

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/media"
)

// mediaPaths document the product images' endpoints outside the
// operations (RegisterMedia): the multipart upload and GET /media/.
func mediaPaths(g *schemaGen, widths []int) map[string]schema {
	jsonOf := func(s schema) schema { return schema{"application/json": schema{"schema": s}} }
	errs := func(codes ...string) schema {
		g.errorCodes(codes)
		byStatus := map[int][]string{}
		for _, c := range codes {
			byStatus[Status(c)] = append(byStatus[Status(c)], c)
		}
		out := schema{}
		for st, cs := range byStatus {
			var refs []any
			for _, c := range cs {
				refs = append(refs, ref(errorComponent(c)))
			}
			sch := schema{"anyOf": refs}
			if len(refs) == 1 {
				sch = refs[0].(schema)
			}
			out[strconv.Itoa(st)] = schema{"description": http.StatusText(st) + ". Error codes: `" + strings.Join(cs, "`, `") + "`.",
				"content": jsonOf(sch)}
		}
		return out
	}
	okSchema := schema{"type": "object", "required": []string{"ok", "media"}, "properties": schema{
		"ok": schema{"const": true}, "media": g.of(reflect.TypeFor[media.Media](), modeOut)}}
	upResponses := errs(commerce.EValidation, commerce.EInvalidMedia, commerce.EInvalidToken, commerce.EForbidden,
		commerce.EProductNotFound, commerce.EMethodNotAllowed, commerce.ERequestTooLarge, commerce.EInternal, commerce.EUnavailable)
	upResponses["200"] = schema{"description": "The stored image.", "content": jsonOf(okSchema)}
	upload := schema{"post": schema{
		"operationId": "media.upload", "summary": "Upload a product image (admin)",
		"description": "multipart/form-data with a `file` part and optional `productId` (the image is appended to that " +
			"product's medias) and `alt`. The content decides the type (JPEG, PNG, GIF, WebP); the image is stored " +
			"turned upright by its EXIF orientation, without its metadata. A file over --media-max-bytes is 413; " +
			"anything else that is not such an image, a corrupt one, or one of more than 50 megapixels or a side " +
			"over 16384 pixels is `invalid_media`.",
		"tags": []any{"catalog"},
		"requestBody": schema{"required": true, "content": schema{"multipart/form-data": schema{"schema": schema{
			"type": "object", "required": []string{"file"}, "properties": schema{
				"file":      schema{"type": "string", "format": "binary", "description": "The image."},
				"productId": schema{"type": "string", "description": "The product whose medias the image is appended to."},
				"alt":       schema{"type": "string", "description": "The image's alternative text."},
			}}}}},
		"responses": upResponses,
	}}
	ws := make([]any, len(widths))
	for i, w := range widths {
		ws[i] = w
	}
	image := schema{"schema": schema{"type": "string", "format": "binary"}}
	getResponses := errs(commerce.EValidation, commerce.EMediaNotFound, commerce.EMethodNotAllowed, commerce.EInternal, commerce.EUnavailable)
	getResponses["200"] = schema{"description": "The image (or its resized copy), cacheable for a year.",
		"headers": schema{
			"ETag":          schema{"schema": schema{"type": "string"}, "description": "The image's (and size's) tag, for If-None-Match."},
			"Cache-Control": schema{"schema": schema{"type": "string"}, "description": "public, max-age=31536000, immutable"},
		},
		"content": schema{"image/jpeg": image, "image/png": image, "image/gif": image, "image/webp": image}}
	getResponses["304"] = schema{"description": "Not modified: If-None-Match names the image's ETag."}
	get := schema{"get": schema{
		"operationId": "media.get", "summary": "An image, at a width",
		"description": "No token needed. `?w=N` answers the image resized to width N keeping its proportions " +
			"(never enlarged: a narrower image is answered as it is), each size made once and kept.",
		"tags": []any{"service"}, "security": []any{},
		"parameters": []any{
			schema{"name": "file", "in": "path", "required": true, "description": "<id>.<ext>, as the image's url ends.",
				"schema": schema{"type": "string"}},
			schema{"name": "w", "in": "query", "description": "The width: one of --media-widths.",
				"schema": schema{"type": "integer", "enum": ws}},
		},
		"responses": getResponses,
	}}
	return map[string]schema{
		"/catalog/v1/media.upload": upload,
		"/media/{file}":            get,
	}
}
