package loader

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Slug derives a category slug from a title: accents stripped (NFD
// decomposition with the combining marks removed), lower case, every run of
// characters that are not letters or digits turned into one "-", and no "-"
// at either end: "Frigoríficos combi" -> "frigorificos-combi".
// Letters without a decomposition (ß, ø, CJK) are kept as they are rather
// than dropped, so a title in any script still gets a readable slug.
func Slug(title string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	s, _, err := transform.String(t, title)
	if err != nil {
		s = title
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// refPrefix and refSuffix delimit a reference to a category by its title.
const (
	refPrefix = "categoryIdByTitle("
	refSuffix = ")"
)

// categoryRef returns the title of a string value `categoryIdByTitle(TITLE)`
// (surrounding spaces trimmed), and false for any other string.
func categoryRef(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, refPrefix) || !strings.HasSuffix(s, refSuffix) {
		return "", false
	}
	return strings.TrimSpace(s[len(refPrefix) : len(s)-len(refSuffix)]), true
}

// resolveRefs replaces, anywhere in v (a decoded JSON value), every string
// value that is a categoryIdByTitle reference with the id resolve returns.
// Object keys are left alone. The first error stops the walk.
func resolveRefs(v any, resolve func(title string) (string, error)) (any, error) {
	switch x := v.(type) {
	case string:
		if title, ok := categoryRef(x); ok {
			return resolve(title)
		}
		return x, nil
	case map[string]any:
		for k, e := range x {
			r, err := resolveRefs(e, resolve)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
		return x, nil
	case []any:
		for i, e := range x {
			r, err := resolveRefs(e, resolve)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
		return x, nil
	}
	return v, nil
}

// Misspelled and Corrected are the promotion discount flag as the
// MicroBase sample spells it and as the service expects it.
const (
	Misspelled = "isPercentaje"
	Corrected  = "isPercentage"
)

// fixSpelling renames the key isPercentaje to isPercentage in every object
// inside v and reports whether it changed anything. An object that already
// has isPercentage keeps both keys, so the service still reports the
// ambiguous record instead of the loader choosing one of the two values.
func fixSpelling(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		if val, ok := x[Misspelled]; ok {
			if _, both := x[Corrected]; !both {
				delete(x, Misspelled)
				x[Corrected] = val
				changed = true
			}
		}
		for _, e := range x {
			if fixSpelling(e) {
				changed = true
			}
		}
	case []any:
		for _, e := range x {
			if fixSpelling(e) {
				changed = true
			}
		}
	}
	return changed
}

// hasKey reports whether the key appears in any object inside v.
func hasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[key]; ok {
			return true
		}
		for _, e := range x {
			if hasKey(e, key) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasKey(e, key) {
				return true
			}
		}
	}
	return false
}

// decodeRecord parses one line as a JSON object, keeping numbers exact
// (json.Number, so 10.10 is sent as 10.10, never through a float).
func decodeRecord(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not valid JSON: more than one value on the line")
	}
	rec, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return rec, nil
}

// identify names a record for the report: its sku, code or title, the first
// present, e.g. `sku "001004721744979"`; "" when it has none of them.
func identify(rec map[string]any) string {
	for _, k := range []string{"sku", "code", "title"} {
		if v, ok := rec[k]; ok && v != nil {
			if s, ok := v.(string); ok {
				return fmt.Sprintf("%s %q", k, s)
			}
			return fmt.Sprintf("%s %v", k, v)
		}
	}
	return ""
}

// line is one non-blank line of a JSON Lines file with its 1-based number.
type line struct {
	n    int
	data []byte
}

// eachLine calls fn with every non-blank line of the file (a leading UTF-8
// byte order mark and trailing \r removed), numbered from 1 as an editor
// numbers them; the last line needs no newline.
func eachLine(path string, fn func(l line) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if ferr := fn(line{n: n, data: t}); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// countLines returns the number of non-blank lines of the file.
func countLines(path string) (int, error) {
	n := 0
	err := eachLine(path, func(line) error { n++; return nil })
	return n, err
}
