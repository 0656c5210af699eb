package sqldb

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/search"
)

// A search's total, facets and first products in order cost what its
// matches cost: every match is ranked, counted and looked up for its
// price and categories, so that a word found in 2,470 products of 100,000
// costs ten times one found in 247 of 10,000 (BENCHMARKS.md, Growth). They
// change only with the catalog (products, their prices and categories,
// the categories), whose version every change bumps in its transaction
// (area_versions), so a search keeps them per query and catalog version:
// the same query again, at the same version, reads only its page's
// products. The version is read in the search's own transaction, before
// the match: a result kept for version v was computed from data at least
// as new as v (on PostgreSQL the bump orders the changes: a reader of v
// sees every change up to v), and any change makes the next search read
// v+1 and compute again, so that a search answers what it answered
// without the cache.
const (
	// searchCacheHead is how many of a query's first products are kept:
	// pages within them (skip + limit up to 100, five pages of 20) come
	// from the cache; deeper ones are computed each time.
	searchCacheHead = 100
	// searchCacheEntries bounds the queries kept (about 10 KB each: the
	// head's seqs and the facets); when full, the cache starts again.
	searchCacheEntries = 2048
)

// searchCache holds the results of one catalog version.
type searchCache struct {
	mu      sync.Mutex
	version int64
	entries map[string]*searchEntry
}

// searchEntry is what a query found, but the products: the seqs of its
// first products in order (at most searchCacheHead; fewer when it found
// fewer), its total and facets.
type searchEntry struct {
	head       []int64
	total      int
	brands     []search.BrandCount
	categories []search.CategoryCount
	prices     []int
}

// searchKey is q without its page: the queries that differ only by page
// share their entry.
func searchKey(q search.Query) (string, bool) {
	q.Limit, q.Skip = 0, 0
	b, err := json.Marshal(q)
	return string(b), err == nil
}

func (c *searchCache) get(version int64, key string) *searchEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return nil
	}
	return c.entries[key]
}

func (c *searchCache) put(version int64, key string, e *searchEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version < c.version {
		return // computed at an older version than a search already saw
	}
	if version != c.version || c.entries == nil || len(c.entries) >= searchCacheEntries {
		c.version, c.entries = version, map[string]*searchEntry{}
	}
	c.entries[key] = e
}

// fill gives res the entry's total and facets (copies: the caller may
// change res), and returns the seqs of q's page.
func (e *searchEntry) fill(q search.Query, res *search.Result) []int64 {
	res.Total = e.total
	if q.BrandFacet {
		res.Brands = slices.Clone(e.brands)
	}
	if q.CategoryFacet {
		res.Categories = slices.Clone(e.categories)
	}
	if q.PriceFacet {
		res.Prices = slices.Clone(e.prices)
	}
	from, to := min(q.Skip, len(e.head)), min(q.Skip+q.Limit, len(e.head))
	return e.head[from:to]
}

// entry returns what res holds of a query's whole match (before it is
// given out), with the seqs of its first products.
func newSearchEntry(res *search.Result, head []int64) *searchEntry {
	return &searchEntry{head: head, total: res.Total, brands: slices.Clone(res.Brands),
		categories: slices.Clone(res.Categories), prices: slices.Clone(res.Prices)}
}

// pageBySeq reads the products of seqs, in that order, into res.
func pageBySeq(ctx context.Context, tx *Tx, seqs []int64, res *search.Result) error {
	if len(seqs) == 0 {
		return nil
	}
	args := make([]any, len(seqs))
	at := make(map[int64]int, len(seqs))
	for i, s := range seqs {
		args[i], at[s] = s, i
	}
	rows, err := tx.Query(ctx, `SELECT seq, id, doc FROM products WHERE seq IN (`+Placeholders(len(seqs))+`)`, args...)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	ids := make([]string, len(seqs))
	ps := make([]*catalog.Product, len(seqs))
	for rows.Next() {
		var seq int64
		var id, doc string
		if err := rows.Scan(&seq, &id, &doc); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		p, err := decodeProduct(doc)
		if err != nil {
			return err
		}
		i := at[seq]
		ids[i], ps[i] = id, p
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for i := range seqs {
		if ps[i] == nil {
			// Not possible at the entry's version (a product removed
			// bumps it): an error rather than a shorter page.
			return fmt.Errorf("search: product %d of a kept result not found", seqs[i])
		}
	}
	res.IDs, res.Products = ids, ps
	return nil
}
