package loader

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"sync"
)

// categoryListPath is the operation that resolves category titles.
const categoryListPath = "/catalog/v1/category.list"

// resolver turns category titles into ids with category.list, remembering
// every answer (found or not) for the rest of the load, and the ids of the
// categories the loader creates itself. It is safe for concurrent use; the
// workers asking for one title at the same time share one request.
type resolver struct {
	c       *client
	mu      sync.Mutex
	entries map[string]*lookup
}

// lookup is the answer for one title, ready when done is closed.
type lookup struct {
	done chan struct{}
	id   string
	err  error
}

func newResolver(c *client) *resolver {
	return &resolver{c: c, entries: map[string]*lookup{}}
}

// add records the id of a category the loader just created, unless the
// title already resolves to a category: as with category.list, the first
// category with a title (in creation order) is the one its references mean.
func (r *resolver) add(title, id string) {
	l := &lookup{done: make(chan struct{}), id: id}
	close(l.done)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.entries[title]; ok {
		select {
		case <-old.done:
			if old.err == nil {
				return
			}
		default:
			return // being looked up: the service's answer will do
		}
	}
	r.entries[title] = l
}

// categoryID returns the id of the category titled title. It asks
// category.list?title=^<escaped title>$ (the service's title filter is a
// case-insensitive regex) and takes, among the matches, the first one (in
// creation order) whose title is exactly title, else the first one. No match
// is an *APIError category_not_found whose data is the title. A fatal error
// is not remembered, so nothing is cached from a failed request.
func (r *resolver) categoryID(ctx context.Context, title string) (string, error) {
	r.mu.Lock()
	l, ok := r.entries[title]
	if !ok {
		l = &lookup{done: make(chan struct{})}
		r.entries[title] = l
	}
	r.mu.Unlock()
	if ok {
		select {
		case <-l.done:
			return l.id, l.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	l.id, l.err = r.fetch(ctx, title)
	if l.err != nil && isFatal(l.err) {
		r.mu.Lock()
		delete(r.entries, title)
		r.mu.Unlock()
	}
	close(l.done)
	return l.id, l.err
}

func (r *resolver) fetch(ctx context.Context, title string) (string, error) {
	q := url.Values{"title": {"^" + regexp.QuoteMeta(title) + "$"}, "limit": {"100"}}
	res, err := r.c.call(ctx, categoryListPath, q, nil)
	if err != nil {
		return "", err
	}
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(res["data"], &list); err != nil {
		return "", &FatalError{err}
	}
	for _, c := range list {
		if c.Title == title {
			return c.ID, nil
		}
	}
	if len(list) > 0 {
		return list[0].ID, nil
	}
	data, _ := json.Marshal(title)
	return "", &APIError{Op: "categoryIdByTitle", Code: codeCategoryNotFound, Data: data}
}
