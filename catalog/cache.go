package catalog

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/commercekit/commerce/internal/snapcache"
)

// maxCachedProducts bounds the product cache; it is emptied when full
// (a product is a few KB, so the cache stays within a few tens of MB).
const maxCachedProducts = 10000

// cachedStore is a Store whose Product and Products answers come from
// memory while the catalog's version has not moved. Products in the
// cache are shared between callers: they are read-only.
//
// Correctness: every Update through this process empties the cache after
// its commit, and every snapcache.Interval at most a read compares the
// storage's version with the one the cache was filled under, emptying
// it when another process changed the catalog. A read that loaded a
// product before an invalidation does not put it in the cache after it
// (the generation check in put).
type cachedStore struct {
	Store

	epoch time.Time
	mu    sync.RWMutex
	// gen counts invalidations; a load records it first and keeps its
	// result only if no invalidation happened meanwhile.
	gen      uint64
	version  int64
	checked  time.Duration // since epoch; 0: never
	products map[string]*Product
	// encoded holds the JSON form of cached products, made on first use
	// (product.info answers it as it is).
	encoded map[string][]byte
	// check serialises the version checks so that concurrent reads that
	// find one due make one query, not one each.
	check sync.Mutex
}

func newCachedStore(s Store) *cachedStore {
	return &cachedStore{Store: s, epoch: time.Now(), products: map[string]*Product{}, encoded: map[string][]byte{}}
}

// Update implements Store, emptying the cache once fn's changes are
// committed (and also when it fails: a commit that reports an error may
// still have happened).
func (c *cachedStore) Update(ctx context.Context, fn func(tx Tx) error) error {
	err := c.Store.Update(ctx, fn)
	c.invalidate(-1)
	return err
}

// invalidate empties the cache; version, when not -1, is the storage's
// version the emptied cache corresponds to from now on.
func (c *cachedStore) invalidate(version int64) {
	c.mu.Lock()
	c.gen++
	clear(c.products)
	clear(c.encoded)
	if version >= 0 {
		c.version = version
	} else {
		c.checked = 0 // re-read the version on the next read
	}
	c.mu.Unlock()
}

// fresh makes sure the cache is not older than snapcache.Interval relative
// to the storage's version and returns the generation to load under.
func (c *cachedStore) fresh(ctx context.Context) (uint64, error) {
	now := time.Since(c.epoch) + 1
	c.mu.RLock()
	gen, checked := c.gen, c.checked
	c.mu.RUnlock()
	if checked != 0 && now-checked < snapcache.Interval {
		return gen, nil
	}
	c.check.Lock()
	defer c.check.Unlock()
	c.mu.RLock()
	gen, checked = c.gen, c.checked
	c.mu.RUnlock()
	if checked != 0 && now-checked < snapcache.Interval {
		return gen, nil // checked meanwhile by another read
	}
	v, err := c.Store.Version(ctx)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	if v != c.version || c.checked == 0 {
		c.gen++
		clear(c.products)
		clear(c.encoded)
		c.version = v
	}
	c.checked = now
	gen = c.gen
	c.mu.Unlock()
	return gen, nil
}

// put caches ps unless the cache was invalidated since gen.
func (c *cachedStore) put(gen uint64, ps ...*Product) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.products)+len(ps) > maxCachedProducts {
		clear(c.products)
		clear(c.encoded)
	}
	for _, p := range ps {
		c.products[p.ID] = p
	}
}

// Product implements Store from the cache.
func (c *cachedStore) Product(ctx context.Context, id string) (*Product, error) {
	gen, err := c.fresh(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	p, ok := c.products[id]
	c.mu.RUnlock()
	if ok {
		return p, nil
	}
	p, err = c.Store.Product(ctx, id)
	if err != nil {
		return nil, err
	}
	c.put(gen, p)
	return p, nil
}

// ProductJSON returns a product and its JSON form (json.Marshal of it),
// both from the cache when they are there: the encoding is made once per
// product while the product stays cached.
func (c *cachedStore) ProductJSON(ctx context.Context, id string) (*Product, []byte, error) {
	gen, err := c.fresh(ctx)
	if err != nil {
		return nil, nil, err
	}
	c.mu.RLock()
	p, ok := c.products[id]
	b := c.encoded[id]
	c.mu.RUnlock()
	if b != nil {
		return p, b, nil
	}
	if !ok {
		if p, err = c.Store.Product(ctx, id); err != nil {
			return nil, nil, err
		}
	}
	if b, err = json.Marshal(p); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.products) >= maxCachedProducts {
			clear(c.products)
			clear(c.encoded)
		}
		c.products[id], c.encoded[id] = p, b
	}
	c.mu.Unlock()
	return p, b, nil
}

// Products implements Store from the cache, loading the missing ones in
// one read.
func (c *cachedStore) Products(ctx context.Context, ids []string) (map[string]*Product, error) {
	gen, err := c.fresh(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Product, len(ids))
	var missing []string
	c.mu.RLock()
	for _, id := range ids {
		if p, ok := c.products[id]; ok {
			out[id] = p
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.RUnlock()
	if len(missing) == 0 {
		return out, nil
	}
	loaded, err := c.Store.Products(ctx, missing)
	if err != nil {
		return nil, err
	}
	ps := make([]*Product, 0, len(loaded))
	for id, p := range loaded {
		out[id] = p
		ps = append(ps, p)
	}
	c.put(gen, ps...)
	return out, nil
}
