// Package s3 keeps images in an S3-compatible bucket (--media-store
// s3://BUCKET/PREFIX?endpoint=URL&region=R&path-style=true) through
// minio-go, credentials from the standard AWS environment variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). The key
// "<id>/400.jpg" is the object PREFIX/<id>/400.jpg.
package s3

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/commercekit/commerce/media"
)

// Store is a bucket of images (media.Blobs).
type Store struct {
	client *minio.Client
	bucket string
	prefix string // "" or ending in "/"
}

var _ media.Blobs = (*Store)(nil)

// New returns the store of an s3:// URL. It does not reach the server.
func New(raw string) (*Store, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return nil, fmt.Errorf("media store %q: want s3://BUCKET/PREFIX", raw)
	}
	q := u.Query()
	endpoint, secure := "s3.amazonaws.com", true
	if e := q.Get("endpoint"); e != "" {
		eu, err := url.Parse(e)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return nil, fmt.Errorf("media store: endpoint %q: want http(s)://HOST[:PORT]", e)
		}
		endpoint, secure = eu.Host, eu.Scheme == "https"
	}
	opts := &minio.Options{Creds: credentials.NewEnvAWS(), Secure: secure, Region: q.Get("region")}
	if q.Get("path-style") == "true" {
		opts.BucketLookup = minio.BucketLookupPath
	}
	c, err := minio.New(endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("media store: %w", err)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Store{client: c, bucket: u.Host, prefix: prefix}, nil
}

// Put implements media.Blobs: one PUT, which S3 makes visible whole.
func (s *Store) Put(ctx context.Context, key string, data []byte, contentType string) error {
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// Open implements media.Blobs.
func (s *Store) Open(ctx context.Context, key string) (media.Object, error) {
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.classify(key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, s.classify(key, err)
	}
	return object{obj, st.Size}, nil
}

func (s *Store) classify(key string, err error) error {
	if r := minio.ToErrorResponse(err); r.Code == minio.NoSuchKey || r.StatusCode == 404 {
		return fmt.Errorf("open %s: %w", key, media.ErrNotExist)
	}
	return fmt.Errorf("open %s: %w", key, err)
}

type object struct {
	*minio.Object
	size int64
}

func (o object) Size() int64 { return o.size }

// Delete implements media.Blobs.
func (s *Store) Delete(ctx context.Context, prefix string) error {
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return fmt.Errorf("list %s: %w", prefix, o.Err)
		}
		if err := s.client.RemoveObject(ctx, s.bucket, o.Key, minio.RemoveObjectOptions{}); err != nil {
			return fmt.Errorf("delete %s: %w", o.Key, err)
		}
	}
	return nil
}

// EnsureBucket makes the bucket when it does not exist (tests, a new
// install).
func (s *Store) EnsureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	return s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{})
}
