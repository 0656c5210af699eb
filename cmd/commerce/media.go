package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/commercekit/commerce/media"
	mediafs "github.com/commercekit/commerce/media/fs"
	medias3 "github.com/commercekit/commerce/media/s3"
)

func init() {
	flagEnv["media-store"] = "COMMERCE_MEDIA_STORE"
	flagEnv["media-max-bytes"] = "COMMERCE_MEDIA_MAX_BYTES"
	flagEnv["media-widths"] = "COMMERCE_MEDIA_WIDTHS"
	flagEnv["media-base-url"] = "COMMERCE_MEDIA_BASE_URL"
}

// mediaFlags are serve's flags of the product images (docs/api.md
// section 23).
type mediaFlags struct {
	store, widths, baseURL string
	maxBytes               int64
}

func (m *mediaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.store, "media-store", "file:./data/media", "where product images are kept: file:DIR or s3://BUCKET/PREFIX?endpoint=URL&region=R&path-style=true (credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) (env COMMERCE_MEDIA_STORE)")
	fs.Int64Var(&m.maxBytes, "media-max-bytes", media.DefaultMaxBytes, "the largest image upload in bytes; larger is 413 (env COMMERCE_MEDIA_MAX_BYTES)")
	fs.StringVar(&m.widths, "media-widths", "100,200,400,800,1600", "the widths GET /media/<id>.<ext>?w= may ask for, comma-separated (env COMMERCE_MEDIA_WIDTHS)")
	fs.StringVar(&m.baseURL, "media-base-url", "", "a CDN address put before /media/<id>.<ext> in images' url (env COMMERCE_MEDIA_BASE_URL; default: the path alone)")
}

// build returns the store and the widths the flags name, and where the
// images are for the log line.
func (m *mediaFlags) build() (media.Blobs, []int, string, error) {
	if m.maxBytes <= 0 {
		return nil, nil, "", fmt.Errorf("--media-max-bytes must be positive")
	}
	var widths []int
	for _, s := range strings.Split(m.widths, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || w <= 0 || w > 16384 {
			return nil, nil, "", fmt.Errorf("--media-widths (or COMMERCE_MEDIA_WIDTHS) %q: want comma-separated widths from 1 to 16384", m.widths)
		}
		widths = append(widths, w)
	}
	switch {
	case strings.HasPrefix(m.store, "file:"):
		dir := strings.TrimPrefix(m.store, "file:")
		if dir == "" {
			return nil, nil, "", fmt.Errorf("--media-store file:DIR: no folder")
		}
		s, err := mediafs.New(dir)
		return s, widths, m.store, err
	case strings.HasPrefix(m.store, "s3://"):
		s, err := medias3.New(m.store)
		where, _, _ := strings.Cut(m.store, "?")
		return s, widths, where, err
	}
	return nil, nil, "", fmt.Errorf("--media-store (or COMMERCE_MEDIA_STORE) %q: want file:DIR or s3://BUCKET/PREFIX", m.store)
}
