package admin

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/media"
)

// The product page's images (docs/api.md section 23): upload (file input
// or dropped on the upload form), order, alt text, removal.

// mediaUploadSpec and mediaSpec describe the image forms for their errors.
var (
	mediaUploadSpec = formSpec{ID: "media-upload", Fields: fieldsOf("file:Image", "alt:Alternative text")}
	mediaSpec       = formSpec{ID: "media-form", Fields: fieldsOf("medias:Images")}
)

// mediaRow is an entry of a product's medias on its page.
type mediaRow struct {
	ID, URL, Alt, Thumb string
	Width, Height       string
}

// mediaRows are the product's medias (product.info's) as rows.
func mediaRows(p map[string]any) []mediaRow {
	var rows []mediaRow
	list, _ := p["medias"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		get := func(k string) string {
			if v, ok := m[k]; ok && v != nil {
				return fmt.Sprint(v)
			}
			return ""
		}
		row := mediaRow{ID: get("id"), URL: get("url"), Alt: get("alt"), Width: get("width"), Height: get("height")}
		row.Thumb = row.URL
		if row.Width != "" && strings.Contains(row.URL, "/media/") {
			row.Thumb = row.URL + "?w=200" // an uploaded image: a small size
		}
		rows = append(rows, row)
	}
	return rows
}

// productWithMedias is the product page of a product with its images.
func (h *Handler) productWithMedias(r *http.Request, id string) (page, error) {
	res, err := h.call(r, "catalog/v1/product.info", map[string]any{"id": id})
	if err != nil {
		return page{}, err
	}
	pr, _ := res["product"].(map[string]any)
	p := h.productPage(r, productForm(pr), id)
	h.addMedias(&p, pr)
	return p, nil
}

// addMedias puts the product's images on its page.
func (h *Handler) addMedias(p *page, pr map[string]any) {
	if h.opts.Media == nil {
		return
	}
	p.Data["media"] = true
	p.Data["medias"] = mediaRows(pr)
	p.Data["mediaMax"] = h.opts.Media.MaxBytes()
}

// mediaFail answers a failed image form on the product page.
func (h *Handler) mediaFail(w http.ResponseWriter, r *http.Request, id string, spec formSpec, err error) {
	p, perr := h.productWithMedias(r, id)
	if perr != nil {
		h.fail(w, r, "notfound", page{Title: "Product", Nav: "products"}, formSpec{}, perr)
		return
	}
	h.fail(w, r, "product", p, spec, err)
}

// productMediaUpload uploads an image and appends it to the product's
// medias (media.upload with productId).
func (h *Handler) productMediaUpload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if h.opts.Media == nil {
		http.NotFound(w, r)
		return
	}
	var data []byte
	if r.MultipartForm != nil && len(r.MultipartForm.File["file"]) > 0 {
		f, err := r.MultipartForm.File["file"][0].Open()
		if err == nil {
			data, err = io.ReadAll(io.LimitReader(f, h.opts.Media.MaxBytes()+1))
			f.Close()
		}
		if err != nil {
			h.mediaFail(w, r, id, mediaUploadSpec, commerce.Invalid("file: could not be read"))
			return
		}
	}
	if data == nil {
		h.mediaFail(w, r, id, mediaUploadSpec, commerce.Invalid("file: required"))
		return
	}
	s := who(r)
	ctx := commerce.WithClaims(event.WithActor(r.Context(), s.staff.Actor()), s.staff.Claims())
	if _, err := h.opts.Media.Upload(ctx, media.UploadInput{Data: data, ProductID: id, Alt: r.PostForm.Get("alt")}); err != nil {
		h.mediaFail(w, r, id, mediaUploadSpec, err)
		return
	}
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1#images")
}

// productMedias saves the product's images as the form lists them: their
// alt text, and the order after a move ("op" up:i or down:i).
func (h *Handler) productMedias(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f := r.PostForm
	ids := f["media_id"]
	medias := make([]map[string]any, 0, len(ids))
	for i, mid := range ids {
		m := map[string]any{"id": mid, "url": at(f["media_url"], i)}
		if alt := strings.TrimSpace(at(f["media_alt"], i)); alt != "" {
			m["alt"] = alt
		}
		for _, k := range []string{"width", "height"} {
			if n, err := strconv.Atoi(at(f["media_"+k], i)); err == nil && n > 0 {
				m[k] = n
			}
		}
		medias = append(medias, m)
	}
	op, arg, _ := strings.Cut(f.Get("op"), ":")
	if i, err := strconv.Atoi(arg); err == nil && i >= 0 && i < len(medias) {
		switch {
		case op == "up" && i > 0:
			medias[i-1], medias[i] = medias[i], medias[i-1]
		case op == "down" && i+1 < len(medias):
			medias[i+1], medias[i] = medias[i], medias[i+1]
		}
	}
	if _, err := h.call(r, "catalog/v1/product.update", map[string]any{"id": id, "medias": medias}); err != nil {
		h.mediaFail(w, r, id, mediaSpec, err)
		return
	}
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1#images")
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return ""
}

// productMediaRemove takes an image off the product (after confirming),
// and removes the uploaded image itself when no other product lists it.
func (h *Handler) productMediaRemove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	mid := r.PostForm.Get("media_id")
	if !h.confirmFirst(w, r, confirmation{Title: "Remove an image", Nav: "products",
		Question: "Remove this image from the product?", Yes: "Remove", Back: "/admin/products/" + url.PathEscape(id) + "#images"}) {
		return
	}
	pr, ok := h.record(w, r, "catalog/v1/product.info", "product", id, page{Title: "Product", Nav: "products"})
	if !ok {
		return
	}
	list, _ := pr["medias"].([]any)
	keep := slices.DeleteFunc(slices.Clone(list), func(x any) bool {
		m, _ := x.(map[string]any)
		return m["id"] == mid
	})
	if _, err := h.call(r, "catalog/v1/product.update", map[string]any{"id": id, "medias": keep}); err != nil {
		h.mediaFail(w, r, id, mediaSpec, err)
		return
	}
	if h.opts.Media != nil {
		// An image another product lists stays (media_in_use); one that
		// was never uploaded is no record (media_not_found).
		_, err := h.call(r, "catalog/v1/media.remove", map[string]any{"id": mid})
		if c := commerce.ErrorCode(err); err != nil && c != commerce.EMediaInUse && c != commerce.EMediaNotFound {
			h.mediaFail(w, r, id, mediaSpec, err)
			return
		}
	}
	seeOther(w, r, "/admin/products/"+url.PathEscape(id)+"?saved=1#images")
}
