package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// DefaultMaxBytes is --media-max-bytes' default (20 MB).
const DefaultMaxBytes = 20_000_000

// DefaultWidths are --media-widths' default.
var DefaultWidths = []int{100, 200, 400, 800, 1600}

// ProductMedia is the entry an upload appends to a product's medias:
// {id, url, alt, width, height}.
type ProductMedia struct {
	ID, URL, Alt  string
	Width, Height int
}

// Products is what the area needs of the catalog.
type Products interface {
	// CheckProduct fails with product_not_found when the product does not
	// exist.
	CheckProduct(ctx context.Context, id string) error
	// AddMedia appends an entry to a product's medias (PRODUCTS UPDATE).
	// Errors: product_not_found.
	AddMedia(ctx context.Context, productID string, m ProductMedia) error
}

// Config configures the service.
type Config struct {
	// MaxBytes is the largest upload (DefaultMaxBytes when 0).
	MaxBytes int64
	// Widths are the widths ?w= may ask for (DefaultWidths when nil).
	Widths []int
	// BaseURL is put before /media/<id>.<ext> in url ("" for a path).
	BaseURL string
	// Limits bound the images' dimensions.
	Limits Limits
	// Workers is how many images are decoded at once, uploads and resizes
	// together (2 when 0): the bound on the memory images take (a
	// 12-megapixel JPEG takes about 45 MB while it is resized).
	Workers int
}

// Service is the product images area.
type Service struct {
	store    Store
	blobs    Blobs
	products Products
	now      func() time.Time
	cfg      Config
	sem      chan struct{}
	group    singleflight.Group
	records  sync.Map // id -> Media: records are immutable but for alt, which serving does not read
	resized  atomic.Int64
}

// NewService returns the service.
func NewService(store Store, blobs Blobs, products Products, now func() time.Time, cfg Config) *Service {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Widths == nil {
		cfg.Widths = DefaultWidths
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Service{store: store, blobs: blobs, products: products, now: now, cfg: cfg, sem: make(chan struct{}, cfg.Workers)}
}

// MaxBytes is the largest upload.
func (s *Service) MaxBytes() int64 { return s.cfg.MaxBytes }

// Widths are the widths ?w= may ask for.
func (s *Service) Widths() []int { return s.cfg.Widths }

// Resized counts the resized copies this process has made (each size of
// an image is made once).
func (s *Service) Resized() int64 { return s.resized.Load() }

func (s *Service) withURL(m Media) Media {
	m.URL = s.cfg.BaseURL + Path(m.ID, m.Ext)
	m.ContentType = ContentType(m.Ext)
	return m
}

func originalKey(id, ext string) string { return id + "/original." + ext }

func (s *Service) acquire(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) release() { <-s.sem }

// Upload processes an image (Limits.Process), stores it and its record
// (CREATE on MEDIAS, payload {new, data: {productId, alt}}), and appends
// it to the product's medias when ProductID is given. Errors:
// invalid_media, request_too_large, product_not_found, validation_error.
func (s *Service) Upload(ctx context.Context, in UploadInput) (Media, error) {
	var ps commerce.Problems
	if len(in.Alt) > 1000 {
		ps.Add("alt", "must be at most 1000 bytes")
	}
	if len(in.ProductID) > 200 {
		ps.Add("productId", "must be at most 200 bytes")
	}
	if err := ps.Err(); err != nil {
		return Media{}, err
	}
	if int64(len(in.Data)) > s.cfg.MaxBytes {
		return Media{}, commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	if len(in.Data) == 0 {
		return Media{}, Invalid("the file is empty")
	}
	if in.ProductID != "" {
		if err := s.products.CheckProduct(ctx, in.ProductID); err != nil {
			return Media{}, err
		}
	}
	if _, _, err := s.cfg.Limits.Check(in.Data); err != nil {
		return Media{}, err // refused before waiting for a worker
	}
	if err := s.acquire(ctx); err != nil {
		return Media{}, err
	}
	p, err := s.cfg.Limits.Process(in.Data)
	s.release()
	if err != nil {
		return Media{}, err
	}
	sum := sha256.Sum256(p.Data)
	m := Media{ID: commerce.NewID(), Ext: p.Ext, Width: p.Width, Height: p.Height, Bytes: int64(len(p.Data)),
		SHA256: hex.EncodeToString(sum[:]), Alt: in.Alt, CreatedAt: s.now().UTC()}
	m = s.withURL(m)
	if err := s.blobs.Put(ctx, originalKey(m.ID, m.Ext), p.Data, m.ContentType); err != nil {
		return Media{}, fmt.Errorf("store media %s: %w", m.ID, err)
	}
	err = s.store.Update(ctx, func(tx Tx) error {
		if err := tx.Insert(ctx, m); err != nil {
			return err
		}
		return event.Emit(tx, event.Medias, event.Create, m.CreatedAt, map[string]any{
			"new": m, "data": map[string]string{"productId": in.ProductID, "alt": in.Alt}})
	})
	if err != nil {
		s.deleteBlobs(m.ID)
		return Media{}, err
	}
	if in.ProductID != "" {
		err := s.products.AddMedia(ctx, in.ProductID, ProductMedia{ID: m.ID, URL: m.URL, Alt: m.Alt, Width: m.Width, Height: m.Height})
		if err != nil {
			// The product went away meanwhile: the image is no one's.
			if rerr := s.remove(context.WithoutCancel(ctx), m.ID); rerr != nil {
				err = errors.Join(err, rerr)
			}
			return Media{}, err
		}
	}
	return m, nil
}

// deleteBlobs removes an image's files, after its record is gone (a
// failure leaves files no record names, which serve nothing).
func (s *Service) deleteBlobs(id string) {
	s.records.Delete(id)
	_ = s.blobs.Delete(context.Background(), id+"/")
}

// Remove removes an image: its record (REMOVE on MEDIAS, {id, old}), then
// its files. Errors: media_not_found, media_in_use (data the ids of the
// products that list it).
func (s *Service) Remove(ctx context.Context, in RemoveInput) error {
	if in.ID == "" {
		return commerce.Invalid("id: required")
	}
	return s.remove(ctx, in.ID)
}

func (s *Service) remove(ctx context.Context, id string) error {
	err := s.store.Update(ctx, func(tx Tx) error {
		users, err := tx.Users(ctx, id)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return InUse(users)
		}
		old, err := tx.Delete(ctx, id)
		if err != nil {
			return err
		}
		return event.Emit(tx, event.Medias, event.Remove, s.now(), map[string]any{"id": id, "old": s.withURL(old)})
	})
	if err != nil {
		return err
	}
	s.deleteBlobs(id)
	return nil
}

// List returns a page of images, newest first, and how many match.
func (s *Service) List(ctx context.Context, in ListInput) ([]Media, commerce.Page, int, error) {
	page, err := in.Page()
	if err != nil {
		return nil, page, 0, err
	}
	list, total, err := s.store.List(ctx, Filter{ProductID: in.ProductID, Limit: page.Limit, Skip: page.Skip})
	if err != nil {
		return nil, page, 0, err
	}
	for i := range list {
		list[i] = s.withURL(list[i])
	}
	return list, page, total, nil
}

// Info returns an image's record. Errors: media_not_found.
func (s *Service) Info(ctx context.Context, id string) (Media, error) {
	m, err := s.store.Media(ctx, id)
	if err != nil {
		return Media{}, err
	}
	return s.withURL(m), nil
}

// record is an image's record as serving needs it, kept in memory.
func (s *Service) record(ctx context.Context, id string) (Media, error) {
	if v, ok := s.records.Load(id); ok {
		return v.(Media), nil
	}
	m, err := s.Info(ctx, id)
	if err != nil {
		return Media{}, err
	}
	s.records.Store(id, m)
	return m, nil
}

// Served is an image as GET /media/<id>.<ext> answers it.
type Served struct {
	Object      Object
	ContentType string
	ETag        string
}

// CheckWidth parses ?w=: 0 for none. validation_error for a width that is
// not one of Config.Widths.
func (s *Service) CheckWidth(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	w, err := strconv.Atoi(v)
	if err != nil || !slices.Contains(s.cfg.Widths, w) {
		ws := make([]string, len(s.cfg.Widths))
		for i, n := range s.cfg.Widths {
			ws[i] = strconv.Itoa(n)
		}
		return 0, commerce.Invalid("w: must be one of " + strings.Join(ws, ", "))
	}
	return w, nil
}

// Open returns the image <id>.<ext>, resized to width w when w > 0 and
// the image is wider (never enlarged). A size is made on its first
// request, once however many ask for it at the same time, and kept in
// the store. Errors: media_not_found (also for another extension).
func (s *Service) Open(ctx context.Context, id, ext string, w int) (Served, error) {
	m, err := s.record(ctx, id)
	if err != nil {
		return Served{}, err
	}
	if m.Ext != ext {
		return Served{}, NotFound(id)
	}
	etag := `"` + m.SHA256[:32]
	if w <= 0 || w >= m.Width {
		obj, err := s.blobs.Open(ctx, originalKey(id, ext))
		if err != nil {
			return Served{}, s.openError(id, err)
		}
		return Served{Object: obj, ContentType: m.ContentType, ETag: etag + `"`}, nil
	}
	out := resizedExt(ext)
	key := id + "/" + strconv.Itoa(w) + "." + out
	served := Served{ContentType: ContentType(out), ETag: etag + "-w" + strconv.Itoa(w) + `"`}
	obj, err := s.blobs.Open(ctx, key)
	if err == nil {
		served.Object = obj
		return served, nil
	}
	if !IsNotExist(err) {
		return Served{}, err
	}
	_, err, _ = s.group.Do(key, func() (any, error) {
		// Made by a call that ended just before this one began?
		if obj, err := s.blobs.Open(ctx, key); err == nil {
			return nil, obj.Close()
		}
		return nil, s.makeSize(context.WithoutCancel(ctx), m, w, key)
	})
	if err != nil {
		return Served{}, s.openError(id, err)
	}
	obj, err = s.blobs.Open(ctx, key)
	if err != nil {
		return Served{}, s.openError(id, err)
	}
	served.Object = obj
	return served, nil
}

func (s *Service) openError(id string, err error) error {
	if IsNotExist(err) {
		s.records.Delete(id)
		return NotFound(id) // removed meanwhile
	}
	return err
}

// makeSize resizes the stored image to width w and stores it under key.
func (s *Service) makeSize(ctx context.Context, m Media, w int, key string) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	obj, err := s.blobs.Open(ctx, originalKey(m.ID, m.Ext))
	if err != nil {
		return err
	}
	data := make([]byte, obj.Size())
	_, err = readFull(obj, data)
	obj.Close()
	if err != nil {
		return fmt.Errorf("read media %s: %w", m.ID, err)
	}
	out, err := Resize(m.Ext, data, w)
	if err != nil {
		return fmt.Errorf("resize media %s: %w", m.ID, err)
	}
	if err := s.blobs.Put(ctx, key, out, ContentType(resizedExt(m.Ext))); err != nil {
		return err
	}
	s.resized.Add(1)
	return nil
}
