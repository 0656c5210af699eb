package sqlite_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/commercekit/commerce/search"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestWordsAsTheTokenizer: search.Words splits and folds a query as the
// FTS5 index's tokenizer (unicode61 remove_diacritics 2) splits and folds
// text, for every character of the Basic Multilingual Plane placed inside
// a word, alone and after one, so that a word typed as a product has it
// is found. The tokenizer's tables are those of Unicode 6.1: a character
// assigned since is kept inside a word as it is, unfolded, which Go's
// newer tables cannot know, and a few marks became letters since; only
// those may differ.
func TestWordsAsTheTokenizer(t *testing.T) {
	db := testdb.SQLite(t)
	ctx := context.Background()
	var cps []rune
	for r := rune(0x80); r <= 0xffff; r++ {
		if utf8.ValidRune(r) {
			cps = append(cps, r)
		}
	}
	text := func(r rune) string { return "a" + string(r) + "b " + string(r) + " X" + string(r) }
	err := db.Update(ctx, func(tx *sqldb.Tx) error {
		for _, q := range []string{`CREATE VIRTUAL TABLE words_f USING fts5(a, tokenize = 'unicode61 remove_diacritics 2')`,
			`CREATE VIRTUAL TABLE words_v USING fts5vocab(words_f, 'instance')`} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		for i, r := range cps {
			if _, err := tx.Exec(ctx, `INSERT INTO words_f (rowid, a) VALUES (?, ?)`, i+1, text(r)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tokens := make([][]string, len(cps))
	rows, err := db.Query(ctx, `SELECT doc, term FROM words_v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		tokens[doc-1] = append(tokens[doc-1], term)
	}
	rows.Close()
	newer, bad := 0, 0
	for i, r := range cps {
		got := search.Words(text(r))
		if slices.Equal(got, tokens[i]) {
			continue
		}
		if len(tokens[i]) > 0 && tokens[i][0] == "a"+string(r)+"b" {
			newer++ // unknown to the tokenizer's tables
			continue
		}
		if r >= 0x19b0 && r <= 0x19c9 || r == 0x1cf2 || r == 0x1cf3 {
			continue // spacing marks in Unicode 6.1, letters since
		}
		if bad++; bad <= 40 {
			t.Errorf("U+%04X %q: the tokenizer has %q, Words %q", r, string(r), strings.Join(tokens[i], " "), strings.Join(got, " "))
		}
	}
	if bad > 40 {
		t.Errorf("%d characters in all", bad)
	}
	if newer > 3000 {
		t.Errorf("%d characters unknown to the tokenizer: more than Unicode added since 6.1", newer)
	}
	t.Logf("%d characters differ as assigned after Unicode 6.1", newer)
}
