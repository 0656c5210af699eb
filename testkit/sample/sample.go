// Package sample finds the MicroBase sample data (shared/data/microbase-sample,
// next to the module root) for tests, and skips a test when it is absent:
// a user's clone has no shared/, CI and the project's workspace have it.
package sample

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the sample folder, or skips the test.
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Skip("cannot locate the module root: skipping the sample data test")
	}
	// This file is <root>/testkit/sample/sample.go; shared/ sits next to <root>.
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "microbase-sample")
	if _, err := os.Stat(filepath.Join(dir, "dataProductsFridges.jsonl")); err != nil {
		t.Skipf("the MicroBase sample is not at %s (only the project's workspace and CI have shared/): skipping", dir)
	}
	return dir
}

// File returns the path of one file of the sample, or skips the test.
func File(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(Dir(t), name)
}
