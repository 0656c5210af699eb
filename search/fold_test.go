package search_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

var foldSQL = flag.String("fold-sql", "", "TestFoldParity writes the rows of product_search_chars (PostgreSQL migration 0023_search_fold.sql), as the tokenizer gives them, to this file")

// tokenizerChars returns what SQLite's FTS5 tokenizer (unicode61
// remove_diacritics 2, the index's) does with each character of cps inside
// a word: " " for a character that separates words, "" for one it drops,
// the folded character for one it changes; the characters it keeps as they
// are are left out. It reads the tokens of "a<c>b" for each of them.
func tokenizerChars(t *testing.T, db *sqldb.DB, cps []rune) map[rune]string {
	t.Helper()
	ctx := context.Background()
	const chunk = 2000
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{`CREATE VIRTUAL TABLE chars_f USING fts5(a, tokenize = 'unicode61 remove_diacritics 2')`,
			`CREATE VIRTUAL TABLE chars_v USING fts5vocab(chars_f, 'instance')`} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		for i := 0; i < len(cps); i += chunk {
			var b strings.Builder
			for _, r := range cps[i:min(i+chunk, len(cps))] {
				b.WriteString("a" + string(r) + "b ")
			}
			if _, err := tx.Exec(ctx, `INSERT INTO chars_f (rowid, a) VALUES (?, ?)`, i/chunk+1, b.String()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT term FROM chars_v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			t.Fatal(err)
		}
		terms = append(terms, term)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	out := map[rune]string{}
	k := 0
	for _, r := range cps {
		switch {
		case k+1 < len(terms) && terms[k] == "a" && terms[k+1] == "b":
			out[r] = " "
			k += 2
		case k < len(terms) && strings.HasPrefix(terms[k], "a") && strings.HasSuffix(terms[k], "b") && len(terms[k]) >= 2:
			f := terms[k][1 : len(terms[k])-1]
			if _, n := utf8.DecodeRuneInString(f); n != len(f) {
				t.Fatalf("U+%04X: the tokenizer has %q", r, terms[k])
			}
			if f != string(r) {
				out[r] = f
			}
			k++
		default:
			t.Fatalf("U+%04X: the tokenizer has %q", r, terms[k:min(k+2, len(terms))])
		}
	}
	if k != len(terms) {
		t.Fatalf("%d terms left over", len(terms)-k)
	}
	return out
}

// charsSQL writes the rows of product_search_chars as the migration has
// them: the ranges of separators, then the characters dropped (NULL) or
// folded (to the code point).
func charsSQL(m map[rune]string) string {
	var seps [][2]rune
	var singles []string
	for _, r := range slices.Sorted(maps.Keys(m)) {
		switch f := m[r]; f {
		case " ":
			if n := len(seps); n > 0 && seps[n-1][1] == r-1 {
				seps[n-1][1] = r
			} else {
				seps = append(seps, [2]rune{r, r})
			}
		case "":
			singles = append(singles, fmt.Sprintf("(%d, NULL)", r))
		default:
			f, _ := utf8.DecodeRuneInString(f)
			singles = append(singles, fmt.Sprintf("(%d, %d)", r, f))
		}
	}
	var b strings.Builder
	lines := func(items []string) {
		for i, s := range items {
			switch {
			case i == 0:
				b.WriteString("\t")
			case i%8 == 0:
				b.WriteString(",\n\t")
			default:
				b.WriteString(", ")
			}
			b.WriteString(s)
		}
	}
	b.WriteString("INSERT INTO product_search_chars (c, f)\nSELECT g, ' ' FROM (VALUES\n")
	var items []string
	for _, s := range seps {
		items = append(items, fmt.Sprintf("(%d, %d)", s[0], s[1]))
	}
	lines(items)
	b.WriteString("\n) r (a, b), generate_series(r.a, r.b) g;\n")
	b.WriteString("INSERT INTO product_search_chars (c, f)\nSELECT r.c, coalesce(chr(r.f), '') FROM (VALUES\n")
	lines(singles)
	b.WriteString("\n) r (c, f);\n")
	return b.String()
}

// applyChars returns the words of s folded with m (as the tokenizer and
// PostgreSQL's product_search_chars fold them): ASCII letters in lower
// case, split at the other ASCII characters and at the separators of m.
func applyChars(m map[rune]string, s string) []string {
	var b strings.Builder
	for _, r := range s {
		switch f, ok := m[r]; {
		case ok:
			b.WriteString(f)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r < utf8.RuneSelf && !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return strings.Fields(b.String())
}

// TestFoldParity: PostgreSQL folds text as SQLite's FTS5 tokenizer does,
// character for character, so that both stores find the same products
// (docs/api.md section 21). The table product_search_chars of migration
// 0023_search_fold.sql is what the tokenizer does with each character of
// Unicode (not ASCII, not a surrogate), checked in full; and the functions
// that fold the indexed text and the query (product_search_doc,
// product_search_query) give the words the table gives, for every
// character of the Basic Multilingual Plane and every other character of
// the table, inside a word, alone and after one (Latin-1 and Latin
// Extended-A in a text of their own, which takes another path); on a database of the
// default locale and on one created with the C locale (where lower() and
// [[:alnum:]] know ASCII alone). With -fold-sql, the table's rows as the
// tokenizer gives them are written to a file.
func TestFoldParity(t *testing.T) {
	testdb.SkipWithoutPostgres(t)
	lite := testdb.SQLite(t)
	var cps []rune
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) {
			cps = append(cps, r)
		}
	}
	want := tokenizerChars(t, lite, cps)
	if *foldSQL != "" {
		if err := os.WriteFile(*foldSQL, []byte(charsSQL(want)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) < 5000 {
		t.Fatalf("the tokenizer changes only %d characters: not read right", len(want))
	}
	t.Run("default locale", func(t *testing.T) { foldParity(t, testdb.Postgres(t), cps, want) })
	t.Run("C locale", func(t *testing.T) {
		foldParity(t, testdb.PostgresAt(t, testdb.PostgresURLWith(t, "TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")), cps, want)
	})
}

// foldParity checks the table and the functions of pg against want, the
// tokenizer's folding of cps.
func foldParity(t *testing.T, pg *sqldb.DB, cps []rune, want map[rune]string) {
	ctx := context.Background()
	// The table against the tokenizer.
	got := map[rune]string{}
	rows, err := pg.Query(ctx, `SELECT c, f FROM product_search_chars`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c rune
		var f string
		if err := rows.Scan(&c, &f); err != nil {
			t.Fatal(err)
		}
		got[c] = f
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, r := range cps {
		w, inWant := want[r]
		g, inGot := got[r]
		if w != g || inWant != inGot {
			if bad++; bad <= 20 {
				t.Errorf("U+%04X %q: the tokenizer has %q (%v), product_search_chars %q (%v)", r, string(r), w, inWant, g, inGot)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d characters differ (go test ./search -run TestFoldParity -fold-sql FILE writes the tokenizer's rows)", bad)
	}

	// The functions: the words of a text of many characters, in order
	// (the query) and as a set (the indexed document).
	var check []rune
	for _, r := range cps {
		_, in := want[r]
		if r <= 0xffff || in || want[r-1] != "" || want[r+1] != "" {
			check = append(check, r)
		}
	}
	text := func(rs []rune) string {
		var b strings.Builder
		for _, r := range rs {
			b.WriteString("a" + string(r) + "B " + string(r) + " X" + string(r) + " ")
		}
		return b.String()
	}
	// The first text holds Latin-1 and Latin Extended-A alone (U+0080 to
	// U+017F: product_search_map folds them without a query), the others
	// 300 characters each.
	latin := slices.IndexFunc(check, func(r rune) bool { return r > 0x17f })
	texts := []string{text(check[:latin])}
	const chunk = 300
	for i := latin; i < len(check); i += chunk {
		texts = append(texts, text(check[i:min(i+chunk, len(check))]))
	}
	queries := make([]string, len(texts))
	// The document's words with their positions ("3 17 40").
	docs := make([]map[string]string, len(texts))
	err = pg.View(ctx, func(tx *sqldb.Tx) error {
		for i, s := range texts {
			if err := tx.QueryRow(ctx, `SELECT product_search_query(?, '')::text`, s).Scan(&queries[i]); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `SELECT lexeme, array_to_string(positions, ' ') FROM unnest(product_search_doc(?, NULL, NULL, NULL))`, s)
			if err != nil {
				return err
			}
			docs[i] = map[string]string{}
			for rows.Next() {
				var w, pos string
				if err := rows.Scan(&w, &pos); err != nil {
					rows.Close()
					return err
				}
				docs[i][w] = pos
			}
			if err := rows.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		words := applyChars(want, s)
		var q []string
		for _, w := range strings.Split(queries[i], " & ") {
			q = append(q, strings.Trim(strings.TrimSuffix(w, ":*"), "'"))
		}
		if !slices.Equal(q, words) {
			t.Errorf("text %d: the query has %d words, the table %d; first difference %s", i, len(q), len(words), firstDiff(q, words))
		}
		// Each word at its positions (a tsvector keeps at most 256 of a
		// word's: the words as frequent are left out).
		positions := map[string][]string{}
		for j, w := range words {
			positions[w] = append(positions[w], fmt.Sprint(j+1))
		}
		if len(docs[i]) != len(positions) {
			t.Errorf("text %d: the document has %d words, the table %d", i, len(docs[i]), len(positions))
		}
		bad := 0
		for w, pos := range positions {
			if got, ok := docs[i][w]; !ok || len(pos) < 250 && got != strings.Join(pos, " ") {
				if bad++; bad <= 5 {
					t.Errorf("text %d: the document has %q at %q, the table at %v", i, w, got, pos)
				}
			}
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q against %q", i, a[i], b[i])
		}
	}
	return "at the end"
}
