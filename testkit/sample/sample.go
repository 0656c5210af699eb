// Package sample finds the MicroBase sample data (shared/data/microbase-sample,
// next to the module root) for tests, and skips a test when it is absent:
// a user's clone has no shared/, CI and the project's workspace have it.
package sample

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the sample folder, or skips the test.
func Dir(t testing.TB) string {
	t.Helper()
	root, ok := moduleRoot()
	if !ok {
		t.Skip("cannot locate the module root (no go.mod above the working directory): skipping the sample data test")
	}
	// shared/ sits next to the module root.
	dir := filepath.Join(root, "..", "shared", "data", "microbase-sample")
	if _, err := os.Stat(filepath.Join(dir, "dataProductsFridges.jsonl")); err != nil {
		t.Skipf("the MicroBase sample is not at %s (only the project's workspace and CI have shared/): skipping", dir)
	}
	return dir
}

// moduleRoot is the nearest folder holding go.mod at or above the working
// directory (a test runs in its package's folder). It does not ask the
// source file's path (runtime.Caller), which -trimpath builds leave out.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// File returns the path of one file of the sample, or skips the test.
func File(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Dir(t), name)
}
