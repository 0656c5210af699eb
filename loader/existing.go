package loader

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// codeDuplicateKey is the service's answer to a create of a record whose
// unique key is taken.
const codeDuplicateKey = "duplicate_key"

// existing counts, by key, the records of one kind the service had when a
// file's load began (the kinds with a listPath), for loadRecord to skip as
// many records of each key. A nil *existing skips nothing.
type existing struct {
	mu sync.Mutex
	n  map[string]int
}

// existing lists the records of kind k the service has, when k is a kind
// without a unique key of the service's (taxes, shipping methods,
// promotions): a nil result for the others. An error is the list
// operation's (operation_not_found when the server lacks it).
func (l *loader) existing(ctx context.Context, k kind) (*existing, error) {
	if k.listPath == "" {
		return nil, nil
	}
	const limit = 1000
	have := &existing{n: map[string]int{}}
	for skip := 0; ; skip += limit {
		q := url.Values{"fields": {k.key}, "limit": {strconv.Itoa(limit)}, "skip": {strconv.Itoa(skip)}}
		res, err := l.c.call(ctx, k.listPath, q, nil)
		if err != nil {
			return nil, err
		}
		var page []map[string]any
		if err := json.Unmarshal(res["data"], &page); err != nil {
			return nil, &FatalError{err}
		}
		for _, rec := range page {
			if key, ok := recordKey(k, rec); ok {
				have.n[key]++
			}
		}
		if len(page) < limit {
			return have, nil
		}
	}
}

// take reports whether rec is already there, counting it against the
// existing records of its key: the n-th record of a key is there when the
// service had at least n.
func (e *existing) take(k kind, rec map[string]any) bool {
	if e == nil {
		return false
	}
	key, ok := recordKey(k, rec)
	if !ok {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n[key] == 0 {
		return false
	}
	e.n[key]--
	return true
}

// recordKey is the value of a record's identifying field (k.key), a tax
// code in NFC as the service stores it; false when the record has none,
// and the service will judge it.
func recordKey(k kind, rec map[string]any) (string, bool) {
	s, ok := rec[k.key].(string)
	if !ok || s == "" {
		return "", false
	}
	if k == taxes {
		s = norm.NFC.String(s)
	}
	return s, true
}

// duplicateIndex is the index named by a duplicate_key answer's data
// ({"index": "sku", "sku": ...}), "" when there is none.
func duplicateIndex(data json.RawMessage) string {
	var d struct {
		Index string `json:"index"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	return d.Index
}
