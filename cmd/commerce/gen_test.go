package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenCommand: `commerce gen` fills an empty SQLite store and prints
// its facts; the same into a store with products is refused; --facts
// writes them to a file.
func TestGenCommand(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "gen.db")
	noEnv := func(string) string { return "" }
	var out strings.Builder
	args := []string{"gen", "--db", db, "--jwt-secret", strings.Repeat("s", 32), "--products", "80", "--seed", "5", "--quiet"}
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var facts struct {
		Sizes     struct{ Products, Orders, Events int }
		Products  []string
		Customers []string
	}
	if err := json.Unmarshal([]byte(out.String()), &facts); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if facts.Sizes.Products != 80 || facts.Sizes.Orders != 80 || facts.Sizes.Events != 800 || len(facts.Products) == 0 || len(facts.Customers) == 0 {
		t.Errorf("facts: %+v", facts)
	}
	if err := run(context.Background(), args, noEnv, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "empty store") {
		t.Errorf("gen into a store with products: %v", err)
	}
	file := filepath.Join(dir, "facts.json")
	args = []string{"gen", "--db", "sqlite:" + filepath.Join(dir, "other.db"), "--jwt-secret", strings.Repeat("s", 32), "--products", "20", "--facts", file, "--quiet"}
	out.Reset()
	if err := run(context.Background(), args, noEnv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"products": 20`) || out.Len() != 0 {
		t.Errorf("--facts: %v %q, stdout %q", err, b, out.String())
	}
}
