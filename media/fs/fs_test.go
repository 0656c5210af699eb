package fs_test

import (
	"context"
	"testing"

	"github.com/commercekit/commerce/media/blobtest"
	"github.com/commercekit/commerce/media/fs"
)

func TestStore(t *testing.T) {
	s, err := fs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Run(t, s)
}

// TestKeysStayInTheFolder: a key cannot name a file outside the folder.
func TestKeysStayInTheFolder(t *testing.T) {
	s, err := fs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"../x", "/etc/passwd", "a/../../x", "", `a\..\x`} {
		if err := s.Put(context.Background(), k, []byte("x"), ""); err == nil {
			t.Errorf("put %q: no error", k)
		}
	}
}
