package loader

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct {
		name, title, want string
	}{
		{"accents and space", "Frigoríficos combi", "frigorificos-combi"},
		{"sample root", "Elecrodomésticos", "elecrodomesticos"},
		{"upper case and digits", "Frigoríficos 2 puertas", "frigorificos-2-puertas"},
		{"several words", "Frigoríficos Side by Side", "frigorificos-side-by-side"},
		{"runs of symbols become one dash", "Tea & Coffee -- Makers!", "tea-coffee-makers"},
		{"leading and trailing symbols trimmed", "  ¡Ofertas!  ", "ofertas"},
		{"n tilde", "Señal Año", "senal-ano"},
		{"precomposed and decomposed agree", "Cafe\u0301", "cafe"},
		{"letters without decomposition kept", "Straße Øl", "straße-øl"},
		{"only symbols", "---", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Slug(tc.title); got != tc.want {
				t.Errorf("Slug(%q) = %q, want %q", tc.title, got, tc.want)
			}
		})
	}
}

func TestCategoryRef(t *testing.T) {
	for _, tc := range []struct {
		name, in, title string
		ok              bool
	}{
		{"reference", "categoryIdByTitle(Frigoríficos combi)", "Frigoríficos combi", true},
		{"spaces around", " categoryIdByTitle( Running ) ", "Running", true},
		{"parentheses inside", "categoryIdByTitle(Combi (A+))", "Combi (A+)", true},
		{"plain id", "ROOT", "", false},
		{"no closing parenthesis", "categoryIdByTitle(Running", "", false},
		{"other function", "productIdBySku(1)", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			title, ok := categoryRef(tc.in)
			if title != tc.title || ok != tc.ok {
				t.Errorf("categoryRef(%q) = %q, %v; want %q, %v", tc.in, title, ok, tc.title, tc.ok)
			}
		})
	}
}

func TestResolveRefs(t *testing.T) {
	ids := map[string]string{"Frigoríficos combi": "C1", "Running": "R1"}
	resolve := func(title string) (string, error) {
		if id, ok := ids[title]; ok {
			return id, nil
		}
		return "", &APIError{Op: "categoryIdByTitle", Code: codeCategoryNotFound}
	}
	t.Run("everywhere in the record", func(t *testing.T) {
		rec, err := decodeRecord([]byte(`{"parent":"categoryIdByTitle(Running)","categories":["categoryIdByTitle(Frigoríficos combi)","X"],
			"if":{"all":[{"category":{"id":"categoryIdByTitle(Running)","quantity":1}}]},"categoryIdByTitle(Running)":1,"n":2.50}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := resolveRefs(rec, resolve); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(rec)
		want := `{"categories":["C1","X"],"categoryIdByTitle(Running)":1,"if":{"all":[{"category":{"id":"R1","quantity":1}}]},"n":2.50,"parent":"R1"}`
		if string(got) != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
	t.Run("unknown title", func(t *testing.T) {
		rec, _ := decodeRecord([]byte(`{"categories":["categoryIdByTitle(Nope)"]}`))
		_, err := resolveRefs(rec, resolve)
		var ae *APIError
		if !errors.As(err, &ae) || ae.Code != codeCategoryNotFound {
			t.Errorf("got %v, want category_not_found", err)
		}
	})
}

func TestFixSpelling(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        bool
	}{
		{"sample promotion",
			`{"then":{"category":{"id":"C","quantity":3,"discount":{"rate":10,"isPercentaje":true}}}}`,
			`{"then":{"category":{"discount":{"isPercentage":true,"rate":10},"id":"C","quantity":3}}}`, true},
		{"inside arrays",
			`{"then":{"all":[{"product":{"discount":{"rate":5,"isPercentaje":false}}},{"product":{"discount":{"rate":1}}}]}}`,
			`{"then":{"all":[{"product":{"discount":{"isPercentage":false,"rate":5}}},{"product":{"discount":{"rate":1}}}]}}`, true},
		{"already correct", `{"discount":{"rate":10,"isPercentage":true}}`, `{"discount":{"isPercentage":true,"rate":10}}`, false},
		{"both spellings left for the service to reject",
			`{"discount":{"isPercentage":true,"isPercentaje":false}}`, `{"discount":{"isPercentage":true,"isPercentaje":false}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := decodeRecord([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if changed := fixSpelling(rec); changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if got, _ := json.Marshal(rec); string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if hasKey(rec, Misspelled) != strings.Contains(tc.want, Misspelled) {
				t.Errorf("hasKey(%s) = %v", Misspelled, !strings.Contains(tc.want, Misspelled))
			}
		})
	}
}

func TestDecodeRecord(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"object", `{"a":1}`, true},
		{"array", `[1]`, false},
		{"string", `"x"`, false},
		{"broken", `{"a":`, false},
		{"two values", `{"a":1}{"b":2}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRecord([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Errorf("decodeRecord(%s) error %v, want ok=%v", tc.in, err, tc.ok)
			}
		})
	}
}

// The decoder's error stays in the chain of a line that is not JSON, so a
// caller can tell a syntax error (with its offset) from other failures.
func TestDecodeRecordErrorChain(t *testing.T) {
	_, err := decodeRecord([]byte(`{"a":1,}`))
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset != 8 {
		t.Fatalf("got %v, want a *json.SyntaxError at offset 8 in the chain", err)
	}
	_, err = decodeRecord([]byte(`{"a":`))
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want io.ErrUnexpectedEOF in the chain", err)
	}
}

func TestIdentify(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"sku first", `{"title":"T","sku":"001"}`, `sku "001"`},
		{"code before title", `{"title":"T","code":"ca-on-pm"}`, `code "ca-on-pm"`},
		{"title", `{"title":"UPS Same Day"}`, `title "UPS Same Day"`},
		{"number", `{"sku":12}`, `sku 12`},
		{"none", `{"rate":1}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, _ := decodeRecord([]byte(tc.in))
			if got := identify(rec); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEachLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.jsonl")
	os.WriteFile(path, []byte("\xef\xbb\xbf{\"a\":1}\r\n\n   \n{\"b\":2}\n{\"c\":3}"), 0o644)
	var got []line
	if err := eachLine(path, func(l line) error { got = append(got, l); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []line{{1, []byte(`{"a":1}`)}, {4, []byte(`{"b":2}`)}, {5, []byte(`{"c":3}`)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if n, _ := countLines(path); n != 3 {
		t.Errorf("countLines = %d, want 3", n)
	}
}

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		name        string
		done, total int
		want        string
	}{
		{"empty", 0, 10, "[>" + strings.Repeat(" ", 29) + "]"},
		{"half", 5, 10, "[" + strings.Repeat("=", 15) + ">" + strings.Repeat(" ", 14) + "]"},
		{"full", 983, 983, "[" + strings.Repeat("=", 30) + "]"},
		{"no total", 0, 0, "[" + strings.Repeat(" ", 30) + "]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bar(tc.done, tc.total); got != tc.want {
				t.Errorf("bar(%d, %d) = %q, want %q", tc.done, tc.total, got, tc.want)
			}
		})
	}
}

func TestProgressThrottles(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, "products", 1000)
	for range 1000 {
		p.add(1)
	}
	p.finish()
	out := b.String()
	// A tight loop takes far less than 100ms: the first record and the
	// last one draw, nothing in between, and finish does not redraw.
	if n := strings.Count(out, "\r"); n < 2 || n > 4 {
		t.Errorf("drew %d times, want 2..4: %q", n, out)
	}
	if !strings.HasSuffix(out, "\r["+strings.Repeat("=", 30)+"] 1000/1000 products\n") {
		t.Errorf("final line %q", out[strings.LastIndex(out, "\r"):])
	}
}
