package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/commercekit/commerce/sqldb"
)

// IndexProducts implements sqldb.Dialect: it writes the search rows
// of products just inserted, their documents built here as the database's
// product_search_doc builds them (postgres/migration/0023_search_fold.sql
// and 0036_languages.sql), so that the deferred trigger product_search_write
// finds the row at the commit and leaves it (migration 0039). The same
// document from Go costs microseconds where the PL/pgSQL function, a
// regular-expression split and a tsvector cast for each of six fields, costs
// about 0.3 ms of the database's CPU a product: most of an import's time
// (BENCHMARKS.md, "Catalog import").
//
// A product whose text reaches a limit of tsvector (a word over 2,047
// bytes, a position past 16,383, a word at more than 256 positions, a
// document near 1 MB) is left to the trigger, which handles those as
// tsvector does; TestSearchDocParity checks that every other document is
// the function's, and that the limits are left to it.
func (Dialect) IndexProducts(ctx context.Context, tx *sqldb.Tx, ps []sqldb.IndexText) error {
	fold, err := foldTable(ctx, tx)
	if err != nil {
		return err
	}
	var b strings.Builder
	args := make([]any, 0, 2*len(ps))
	var doc strings.Builder
	for _, p := range ps {
		if !searchDoc(&doc, fold, p) {
			continue
		}
		if len(args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(CAST(? AS BIGINT), CAST(? AS TSVECTOR))")
		args = append(args, p.Seq, doc.String())
	}
	if len(args) == 0 {
		return nil
	}
	// The facts as product_search_categories and product_search_prices
	// compute them, in joins rather than a PL/pgSQL call each (a third of
	// the time).
	_, err = tx.Exec(ctx, `INSERT INTO product_search (product_seq, doc, online, brand, categories, prices)
		SELECT p.seq, d.doc, p.status = 'ONLINE', p.brand, coalesce(c.ids, '{}'), coalesce(x.prices, '{}')
		FROM (VALUES `+b.String()+`) AS d (seq, doc) JOIN products p ON p.seq = d.seq
		LEFT JOIN LATERAL (SELECT array_agg(category_id ORDER BY category_id) AS ids FROM product_categories
			WHERE product_seq = p.seq) c ON true
		LEFT JOIN LATERAL (SELECT jsonb_object_agg(currency, amount) AS prices
			FROM (SELECT currency, MIN(amount) AS amount FROM product_prices WHERE product_seq = p.seq GROUP BY currency) m) x ON true`, args...)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// fold is the table product_search_chars (migration 0023): what the
// tokenizer makes of each character outside ASCII that it does not keep
// as it is (" ": it separates words, "": it is dropped, else the folded
// character). It only changes with the migrations, which are this
// binary's, so one copy serves every database of the process.
var fold struct {
	mu sync.Mutex
	m  map[rune]string
}

func foldTable(ctx context.Context, tx *sqldb.Tx) (map[rune]string, error) {
	fold.mu.Lock()
	defer fold.mu.Unlock()
	if fold.m != nil {
		return fold.m, nil
	}
	rows, err := tx.Query(ctx, `SELECT c, f FROM product_search_chars`)
	if err != nil {
		return nil, fmt.Errorf("search folding table: %w", err)
	}
	defer rows.Close()
	m := make(map[rune]string, 10000)
	for rows.Next() {
		var c int32
		var f string
		if err := rows.Scan(&c, &f); err != nil {
			return nil, fmt.Errorf("search folding table: %w", err)
		}
		m[c] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search folding table: %w", err)
	}
	fold.m = m
	return m, nil
}

// The limits of tsvector (PostgreSQL's tsearch/ts_type.h): a lexeme's
// bytes (2,047), a position (16,383), the positions kept of one lexeme
// (256), and the size of a document (1 MB; a margin is kept for its
// header and entries).
const (
	docMaxWord      = 2047
	docMaxPos       = 16383
	docMaxPositions = 256
	docMaxBytes     = 512 << 10
)

// searchDoc writes to b the text of the tsvector product_search_doc makes
// of p (a literal that casts to the same value), and reports false, with b
// to be ignored, when p's text reaches a limit the function treats as
// tsvector does and this does not (see IndexProducts).
//
// What the function does: each field (title A, brand B, sku B, description
// C, translated title A, translated text C) folded (ASCII letters to lower
// case, other characters by the table), split at runs of ASCII characters
// that are not letters or digits, each piece numbered from 1 as
// regexp_split_to_table numbers it (a field starting with a separator
// gives an empty first piece), the empty pieces dropped; the fields'
// vectors joined with ||, which shifts the positions of the right operand
// by the largest position of the left.
func searchDoc(b *strings.Builder, fold map[rune]string, p sqldb.IndexText) bool {
	b.Reset()
	fields := [...]struct {
		text   string
		weight byte
	}{{p.Title, 'A'}, {p.Brand, 'B'}, {p.SKU, 'B'}, {p.Description, 'C'}, {p.I18nTitle, 'A'}, {p.I18nText, 'C'}}
	counts := map[string]int{}
	offset := 0
	var word strings.Builder
	for _, f := range fields {
		if f.text == "" {
			continue
		}
		piece, last := 1, 0
		emit := func() bool {
			if word.Len() == 0 {
				return true
			}
			w := word.String()
			word.Reset()
			pos := piece + offset
			if len(w) > docMaxWord || pos >= docMaxPos {
				return false
			}
			counts[w]++
			if counts[w] > docMaxPositions {
				return false
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('\'')
			b.WriteString(w)
			b.WriteString("':")
			b.WriteString(strconv.Itoa(pos))
			b.WriteByte(f.weight)
			last = piece
			return b.Len() < docMaxBytes
		}
		inSep := false
		for _, r := range f.text {
			if r == utf8.RuneError {
				return false // not UTF-8: the database refuses it anyway
			}
			var s string
			switch {
			case r >= 'A' && r <= 'Z':
				s = string(r + 'a' - 'A')
			case r < 0x80:
				s = string(r)
			default:
				to, ok := fold[r]
				if !ok {
					word.WriteRune(r)
					inSep = false
					continue
				}
				s = to
			}
			// s is the folded character: "" (dropped), one character.
			for _, c := range s {
				if isDocSeparator(c) {
					if !inSep {
						if !emit() {
							return false
						}
						piece++
						inSep = true
					}
					continue
				}
				word.WriteRune(c)
				inSep = false
			}
		}
		if !emit() {
			return false
		}
		offset += last
	}
	return true
}

// isDocSeparator reports whether c splits words: the class
// [\x01-\x2f\x3a-\x60\x7b-\x7f] of product_search_words, after folding
// (upper-case ASCII letters are folded already).
func isDocSeparator(c rune) bool {
	return (c >= 0x01 && c <= 0x2f) || (c >= 0x3a && c <= 0x60) || (c >= 0x7b && c <= 0x7f)
}
