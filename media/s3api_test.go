package media_test

import (
	"bytes"
	"context"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/media/s3"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestS3Upload: the service over the S3 store (a real S3-compatible
// server, COMMERCE_TEST_S3, as media/s3's suite): upload, a resized size,
// removal.
func TestS3Upload(t *testing.T) {
	raw := os.Getenv("COMMERCE_TEST_S3")
	if raw == "" {
		t.Skip("COMMERCE_TEST_S3 is not set: no S3-compatible server to test against")
	}
	base, query, _ := strings.Cut(raw, "?")
	store, err := s3.New(strings.TrimRight(base, "/") + "/api" + time.Now().Format("150405.000000000") + "?" + query)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := newShop(t, testdb.SQLite(t), func(o *app.Options) { o.MediaBlobs = store })
	m := s.uploaded(t, withEXIF(jpegOf(t, picture(400, 200)), 1), map[string]string{"productId": s.product})
	res, body := s.get(t, m.URL+"?w=200")
	cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
	if res.StatusCode != 200 || err != nil || cfg.Width != 200 || cfg.Height != 100 {
		t.Fatalf("?w=200 on S3: %d %+v %v", res.StatusCode, cfg, err)
	}
	if _, err := store.Open(context.Background(), m.ID+"/200.jpg"); err != nil {
		t.Errorf("the size is not kept in the bucket: %v", err)
	}
	s.Post(t, "/catalog/v1/product.update?id="+s.product, s.Admin, map[string]any{"medias": []any{}}).Must(t)
	s.Post(t, "/catalog/v1/media.remove", s.Admin, map[string]any{"id": m.ID}).Must(t)
	if _, err := store.Open(context.Background(), m.ID+"/original.jpg"); !media.IsNotExist(err) {
		t.Errorf("after remove the original is still there: %v", err)
	}
	if res, _ := s.get(t, m.URL); res.StatusCode != 404 {
		t.Errorf("GET after remove: %d", res.StatusCode)
	}
}
