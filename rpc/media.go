package rpc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/media"
)

// mediaList is the answer of media.list.
type mediaList struct {
	Page  commerce.Page `json:"page"`
	Total int           `json:"total"`
	Data  []media.Media `json:"data"`
}

type mediaResult struct {
	Media media.Media `json:"media"`
}

// RegisterMedia registers the product images' endpoints (docs/api.md
// section 23):
//
//   - POST /catalog/v1/media.upload (also under /services): admin only; a
//     multipart/form-data body with a file part and optional productId and
//     alt fields.
//   - media.list (GET or POST) and media.remove (POST) under
//     /catalog/v1/: admin only.
//   - GET /media/<id>.<ext>[?w=N]: anyone, without a token (the images a
//     storefront shows).
func RegisterMedia(s *Server, svc *media.Service) {
	Handle(s, Op{Service: "catalog", Name: "media.list", Read: true, Admin: true, Result: mediaList{},
		Doc: "Uploaded images, newest first, of one product's medias when productId is given, a page at a time, with the total."},
		func(ctx context.Context, a *media.ListInput) (any, error) {
			list, page, total, err := svc.List(ctx, *a)
			if err != nil {
				return nil, err
			}
			return mediaList{Page: page, Total: total, Data: list}, nil
		})
	Handle(s, Op{Service: "catalog", Name: "media.remove", Admin: true, Result: struct{}{},
		Doc:    "Removes an image that no product lists (media_in_use, data the product ids, while one does) and deletes its files.",
		Errors: []string{commerce.EMediaNotFound, commerce.EMediaInUse}},
		func(ctx context.Context, a *media.RemoveInput) (any, error) {
			return nil, svc.Remove(ctx, *a)
		})
	s.mediaWidths = svc.Widths()
	up := &mediaUpload{s: s, svc: svc}
	s.HandlePath("/catalog/v1/media.upload", "catalog", "media.upload", up)
	s.HandlePath("/services/catalog/v1/media.upload", "catalog", "media.upload", up)
	s.HandlePath("/media/", "media", "media.get", &mediaFiles{s: s, svc: svc})
}

// mediaUpload is POST /catalog/v1/media.upload, whose multipart body is
// no operation's JSON: checked in the operations' order (method, token,
// size, form) and answered in their envelope.
type mediaUpload struct {
	s   *Server
	svc *media.Service
}

// Fail implements PathHandler.
func (u *mediaUpload) Fail(w http.ResponseWriter, r *http.Request) int {
	return u.s.answerError(w, "media.upload", commerce.Errorf(commerce.EInternal, "media.upload panicked"), false)
}

// maxField is the longest text field of an upload (productId, alt).
const maxField = 4096

// Serve implements PathHandler. Only admin tokens may upload.
func (u *mediaUpload) Serve(w http.ResponseWriter, r *http.Request) int {
	const op = "media.upload"
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		return u.s.writeError(w, r, op, commerce.NewError(commerce.EMethodNotAllowed, nil))
	}
	// The role's check and the audit scope of every changing operation
	// (authorize, audited), as serveOp makes them.
	claims, err := u.s.authenticate(r, Op{Name: op, Admin: true})
	if err == nil {
		err = authorize(claims, Op{Name: op})
	}
	if err != nil {
		return u.s.writeError(w, r, op, err)
	}
	limit := u.svc.MaxBytes() + 2*maxField + 64<<10 // the file, the fields and the parts' headers
	if r.ContentLength > limit {
		return u.s.writeError(w, r, op, commerce.NewError(commerce.ERequestTooLarge, nil))
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	in, err := u.read(r)
	if err != nil {
		return u.s.writeError(w, r, op, err)
	}
	m, err := u.svc.Upload(audited(commerce.WithClaims(r.Context(), claims), claims, Op{Name: op}, remoteIP(r)), in)
	if err != nil {
		return u.s.writeError(w, r, op, err)
	}
	out, err := envelope(mediaResult{m})
	if err != nil {
		return u.s.writeError(w, r, op, err)
	}
	writeJSON(w, http.StatusOK, out)
	return http.StatusOK
}

// read decodes the multipart form: one file part, productId and alt.
func (u *mediaUpload) read(r *http.Request) (media.UploadInput, error) {
	var in media.UploadInput
	mr, err := r.MultipartReader()
	if err != nil {
		return in, commerce.Invalid("body: must be multipart/form-data with a file part")
	}
	var ps commerce.Problems
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return in, bodyError(err)
		}
		name := part.FormName()
		if seen[name] {
			ps.Add(name, "given more than once")
			continue
		}
		seen[name] = true
		switch name {
		case "file":
			in.Data, err = io.ReadAll(io.LimitReader(part, u.svc.MaxBytes()+1))
			if err != nil {
				return in, bodyError(err)
			}
			if int64(len(in.Data)) > u.svc.MaxBytes() {
				return in, commerce.NewError(commerce.ERequestTooLarge, nil)
			}
		case "productId", "alt":
			b, err := io.ReadAll(io.LimitReader(part, maxField+1))
			if err != nil {
				return in, bodyError(err)
			}
			v := string(b)
			switch {
			case len(b) > maxField:
				ps.Add(name, "must be at most %d bytes", maxField)
			case commerce.TextProblem(v) != "":
				ps.Add(name, "%s", commerce.TextProblem(v))
			case name == "alt":
				in.Alt = v
			default:
				in.ProductID = strings.TrimSpace(v)
			}
		default:
			ps.Add(name, "unknown field")
		}
	}
	if !seen["file"] {
		ps.Add("file", "required")
	}
	return in, ps.Err()
}

// bodyError is the error of a multipart body that could not be read: 413
// past the limit, else validation_error.
func bodyError(err error) error {
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	e := commerce.Invalid("body: not a readable multipart/form-data body")
	e.Err = err
	return e
}

// mediaFiles is GET /media/<id>.<ext>[?w=N]: the images, without a
// token, cacheable for a year (a stored size never changes; a new image
// is a new id).
type mediaFiles struct {
	s   *Server
	svc *media.Service
}

// Fail implements PathHandler.
func (h *mediaFiles) Fail(w http.ResponseWriter, r *http.Request) int {
	return h.s.answerError(w, "media.get", commerce.Errorf(commerce.EInternal, "media panicked"), false)
}

// Serve implements PathHandler. Anyone may call it.
func (h *mediaFiles) Serve(w http.ResponseWriter, r *http.Request) int {
	const op = "media.get"
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return h.s.writeError(w, r, op, commerce.NewError(commerce.EMethodNotAllowed, nil))
	}
	// What is public is public to everyone: no-store, set for any
	// request with a token, does not apply.
	w.Header().Del("Cache-Control")
	name := strings.TrimPrefix(r.URL.Path, "/media/")
	id, ext, ok := strings.Cut(name, ".")
	if !ok || id == "" || media.ContentType(ext) == "" || strings.Contains(id, "/") {
		return h.s.writeError(w, r, op, media.NotFound(name))
	}
	width, err := h.svc.CheckWidth(r.URL.Query().Get("w"))
	if err != nil {
		return h.s.writeError(w, r, op, err)
	}
	img, err := h.svc.Open(r.Context(), id, ext, width)
	if err != nil {
		return h.s.writeError(w, r, op, err)
	}
	defer img.Object.Close()
	hd := w.Header()
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("ETag", img.ETag)
	hd.Set("Content-Type", img.ContentType)
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	var content io.ReadSeeker = img.Object
	if f, ok := img.Object.(interface{ OSFile() *os.File }); ok {
		content = f.OSFile() // sent with sendfile, as http.FileServer does
	}
	http.ServeContent(sw, r, "", time.Time{}, content)
	return sw.status
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// ReadFrom lets the connection send a file with sendfile (net/http's
// response is an io.ReaderFrom).
func (w *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
}
