package cart

import "sync"

// maxCachedCarts bounds the carts a process keeps decoded in memory (a
// cart of 20 entries is about 15 KB decoded): the carts changed last, the
// ones shoppers are filling.
const maxCachedCarts = 1024

// cartCache keeps, per process, the carts as this process last stored
// them, so that the next change of a cart starts from memory instead of
// reading and decoding its document. It is a hint, never the truth: a
// change computed from a cached cart is stored only over the version it
// was computed from (Tx.Save, Tx.LockVersion), so a cart changed
// meanwhile by another process (or by a change that did not go through
// the cache) makes the change run again from the stored cart; and what is
// not such a change (a refusal, a cart not ACTIVE given as it stands) is
// answered from the stored cart (see Service.change). Only ACTIVE carts
// are kept.
type cartCache struct {
	mu    sync.Mutex
	carts map[string]*Cart // never changed once put: get returns a clone
}

func newCartCache() *cartCache { return &cartCache{carts: map[string]*Cart{}} }

// get returns a copy of the cached cart, or nil.
func (cc *cartCache) get(id string) *Cart {
	cc.mu.Lock()
	c := cc.carts[id]
	cc.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.clone()
}

// put caches a copy of c (as stored, with its version); a full cache
// first drops one cart, any.
func (cc *cartCache) put(c *Cart) {
	d := c.clone()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if _, ok := cc.carts[d.ID]; !ok && len(cc.carts) >= maxCachedCarts {
		for id := range cc.carts {
			delete(cc.carts, id)
			break
		}
	}
	cc.carts[d.ID] = d
}

// drop forgets a cart (its cached copy is stale).
func (cc *cartCache) drop(id string) {
	cc.mu.Lock()
	delete(cc.carts, id)
	cc.mu.Unlock()
}
