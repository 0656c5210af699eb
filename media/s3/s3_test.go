package s3_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce/media/blobtest"
	"github.com/commercekit/commerce/media/s3"
)

// TestS3Store runs the media store suite on a real S3-compatible server:
// COMMERCE_TEST_S3 is its s3:// URL (.ci/run starts gofakes3 and sets it,
// with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
func TestS3Store(t *testing.T) {
	raw := os.Getenv("COMMERCE_TEST_S3")
	if raw == "" {
		t.Skip("COMMERCE_TEST_S3 is not set: no S3-compatible server to test against")
	}
	// A prefix of its own, so that runs do not see each other's objects.
	sep := "?"
	base, query, ok := strings.Cut(raw, "?")
	if ok {
		query = sep + query
	}
	url := strings.TrimRight(base, "/") + "/t" + time.Now().Format("150405.000000000") + query
	s, err := s3.New(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.EnsureBucket(ctx); err != nil {
		t.Fatalf("bucket: %v", err)
	}
	blobtest.Run(t, s)
}

func TestNewRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"s3:///prefix", "file:/x", "s3://b/p?endpoint=ftp://h", "s3://b?endpoint=::"} {
		if _, err := s3.New(u); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
}
