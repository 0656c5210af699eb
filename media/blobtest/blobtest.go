// Package blobtest is the conformance suite of media.Blobs, run on every
// adapter (media/fs, and media/s3 against a real S3-compatible server).
package blobtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/commercekit/commerce/media"
)

// Run runs the suite on a store that holds nothing under the keys the
// suite uses ("a/", "ab/", "c/").
func Run(t *testing.T, s media.Blobs) {
	ctx := context.Background()
	read := func(t *testing.T, key string) []byte {
		t.Helper()
		o, err := s.Open(ctx, key)
		if err != nil {
			t.Fatalf("open %s: %v", key, err)
		}
		defer o.Close()
		b, err := io.ReadAll(o)
		if err != nil {
			t.Fatalf("read %s: %v", key, err)
		}
		if o.Size() != int64(len(b)) {
			t.Errorf("%s: Size %d, read %d bytes", key, o.Size(), len(b))
		}
		return b
	}
	t.Run("put and open", func(t *testing.T) {
		data := bytes.Repeat([]byte("0123456789"), 1000)
		if err := s.Put(ctx, "a/original.jpg", data, "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		if got := read(t, "a/original.jpg"); !bytes.Equal(got, data) {
			t.Errorf("read %d bytes, want the %d put", len(got), len(data))
		}
	})
	t.Run("seek", func(t *testing.T) {
		o, err := s.Open(ctx, "a/original.jpg")
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if _, err := o.Seek(5, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 3)
		if _, err := io.ReadFull(o, b); err != nil || string(b) != "567" {
			t.Errorf("after seeking to 5 read %q, %v; want 567", b, err)
		}
		if n, err := o.Seek(0, io.SeekEnd); err != nil || n != 10000 {
			t.Errorf("seek to end: %d, %v; want 10000", n, err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := s.Open(ctx, "a/400.jpg")
		if !media.IsNotExist(err) {
			t.Errorf("open of a missing key: %v, want ErrNotExist", err)
		}
	})
	t.Run("replace", func(t *testing.T) {
		if err := s.Put(ctx, "c/original.png", []byte("one"), "image/png"); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, "c/original.png", []byte("two!"), "image/png"); err != nil {
			t.Fatal(err)
		}
		if got := read(t, "c/original.png"); string(got) != "two!" {
			t.Errorf("read %q after replacing, want two!", got)
		}
	})
	t.Run("concurrent puts of one key", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				if err := s.Put(ctx, "c/200.png", bytes.Repeat([]byte{byte('a' + i)}, 5000), "image/png"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got := read(t, "c/200.png")
		if len(got) != 5000 || !bytes.Equal(got, bytes.Repeat(got[:1], 5000)) {
			t.Errorf("read %d bytes not all one put's", len(got))
		}
	})
	t.Run("delete a prefix", func(t *testing.T) {
		for _, k := range []string{"a/100.jpg", "a/200.jpg", "ab/original.jpg"} {
			if err := s.Put(ctx, k, []byte(k), "image/jpeg"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, "a/"); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a/original.jpg", "a/100.jpg", "a/200.jpg"} {
			if _, err := s.Open(ctx, k); !media.IsNotExist(err) {
				t.Errorf("open %s after deleting a/: %v, want ErrNotExist", k, err)
			}
		}
		if got := read(t, "ab/original.jpg"); string(got) != "ab/original.jpg" {
			t.Errorf("ab/original.jpg: %q after deleting a/", got)
		}
		if err := s.Delete(ctx, "a/"); err != nil {
			t.Errorf("deleting an empty prefix: %v", err)
		}
		for _, p := range []string{"ab/", "c/"} {
			if err := s.Delete(ctx, p); err != nil {
				t.Error(fmt.Errorf("clean up %s: %w", p, err))
			}
		}
	})
}
