package cart

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/stock"
)

// change describes a change of a cart for Service.change.
type change struct {
	op   string // the operation, e.g. "cart.addToCart"
	data any    // the request's arguments, for the event
	// noData: cart_not_found without data (addToCart, removeFromCart,
	// calculateCart).
	noData bool
	// event is the type of the event emitted (event.Update when empty).
	event string
	// frozen: a cart that is not ACTIVE is returned as it stands rather
	// than refused (calculateCart).
	frozen bool
	// emitIfChanged: emit only when the computed state changed.
	emitIfChanged bool
	// prepare changes the cart in memory; it may call the other areas.
	// It runs outside any transaction and may run more than once.
	prepare func(c *Cart, now time.Time) error
	// authorize runs once the round's change is computed, outside any
	// transaction, right before the transaction that stores it: a remote
	// effect the transaction relies on (checkout authorises the payment).
	// It runs once per round, never again when that transaction is retried
	// (Store.Update may run its function more than once). When the
	// transaction fails, or finds the cart moved (the round then starts
	// again), the undo it returned runs before (checkout voids the
	// authorisation). A change with authorize runs at most
	// maxAuthorizedRounds rounds.
	authorize func(c *Cart) (undo func(), err error)
	// apply makes the change's effects on the other areas through tx
	// (the stock, an order), in the transaction that stores the cart,
	// before it is stored; it calls nothing else that reads the database
	// (see Service.change).
	apply func(tx Tx, c *Cart, now time.Time) error
	// reservations, when set, returns the reservations prepare made (each
	// prepared by stock.Service.Prepare) and put on the cart's entries:
	// all the stock the change takes, which Tx.Save makes with the cart
	// (in the order given). The stored cart and its event are then known
	// before the transaction, and the event is encoded outside it; the
	// transaction does not hold the cart's row (Save checks its version;
	// apply, if any, runs before) nor read its reservations back.
	reservations func() []stock.Reservation
}

// maxAttempts bounds the rounds of a change that keeps finding its cart
// changed by others (each lost round means another change was stored).
const maxAttempts = 64

// maxAuthorizedRounds bounds the rounds of a change with an authorisation:
// each round authorises (and voids) a payment with the provider again.
const maxAuthorizedRounds = 4

// errUnchanged, returned by a change's prepare, says that the operation
// changes nothing in the cart (cart.applyCoupon of a code it holds): the
// change then goes on as calculateCart does, storing the recalculation
// and emitting its event only when the computed state changed.
var errUnchanged = errors.New("the operation changes nothing")

// change runs a change of the cart id in two steps.
//
// First, outside any transaction, it takes the cart (this process's copy
// of it as last stored, else the stored one), checks the caller may use it
// and that it is ACTIVE, and lets o.prepare change it in memory; for a
// cart still ACTIVE the promotions and taxes are then recalculated. Every
// call to another area (catalog, promotions, taxes, shipping) happens in
// this step, on connections of their own; then o.authorize, if any, makes
// its remote call.
//
// Then one transaction stores the change, over the version it was
// computed from only. In general it locks the cart's row and, if its
// version is still the one read, runs o.apply (stock reservations, on the
// transaction's connection), reads the reservations back (those still
// holding units), moves the expiration to now + TTL and stores the cart
// with its event. A change whose reservations prepare made already
// (o.reservations: addToCart) has its cart finished and its event encoded
// before the transaction, which stores the cart with its reservations
// (Tx.Save checks the version then) and the event.
// When the version moved, another change was stored in between (in this
// process or another): the authorisation is undone and the whole change
// runs again on the stored cart (at most maxAttempts times,
// maxAuthorizedRounds with an authorisation; then
// concurrent_modification).
//
// Why not compute under the lock: the other areas read through their own
// connections. A transaction holding a connection (and the cart's row)
// while waiting for a second one deadlocks once every connection of the
// pool is held by such transactions, which a burst of parallel requests
// on one cart is enough for; and a remote call must never hold a row lock.
// Here a transaction needs exactly one connection, and no lost update is
// possible: a cart is stored only over the version its change was
// computed from.
func (s *Service) change(ctx context.Context, id string, o change) (*Cart, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	rounds := maxAttempts
	if o.authorize != nil {
		rounds = maxAuthorizedRounds
	}
	reread := false // the first round starts again from the stored cart
	for attempt := 1; ; attempt++ {
		now := s.clock()
		// The first round starts from this process's copy of the cart
		// when it has one (a hint: the version check below catches a
		// cart changed meanwhile), later rounds from the stored cart.
		// An answer that is not a change stored over the version read (a
		// refusal, or a cart not ACTIVE given as it stands) must not come
		// from the copy, which may be stale: the round then starts again
		// from the stored cart (and does not count as one).
		var c *Cart
		var err error
		cached := false
		if attempt == 1 && !reread {
			c = s.cache.get(id)
			cached = c != nil
		}
		// again, where the answer would come from the copy, drops it and
		// has the round start again from the stored cart.
		again := func() bool {
			if cached {
				s.cache.drop(id)
				reread, attempt = true, attempt-1
			}
			return cached
		}
		if c == nil {
			c, err = s.store.Cart(ctx, id)
		}
		if err == nil && !canUse(cl, c) {
			err = NotFound(id)
		}
		if err != nil {
			if again() {
				continue
			}
			if o.noData && commerce.ErrorCode(err) == commerce.ECartNotFound {
				return nil, &commerce.Error{Code: commerce.ECartNotFound, Message: "no cart with id " + id}
			}
			return nil, err
		}
		if c.Status == StatusActive && !now.Before(c.ExpirationTime) {
			s.cache.drop(id)
			cached = false
			if c, err = s.expireID(ctx, id); err != nil {
				return nil, err
			}
		}
		if !c.open() {
			if again() {
				continue
			}
			if o.frozen {
				return c, nil
			}
			return nil, notActive(c.Status)
		}
		var before []byte
		quiet := o.emitIfChanged
		if quiet {
			before = computed(c)
		}
		if o.prepare != nil {
			if err := o.prepare(c, now); errors.Is(err, errUnchanged) {
				if !quiet {
					quiet, before = true, computed(c) // prepare left c as read
				}
			} else if err != nil {
				if again() {
					continue
				}
				return nil, err
			}
		}
		// Prices lists may have changed since the entries were priced:
		// a checkout refuses prices the customer was not shown.
		moved, err := s.reprice(ctx, c, shopperOf(cl, c), now)
		if err != nil {
			return nil, err
		}
		if len(moved) > 0 && o.event == event.Checkout {
			if again() {
				continue
			}
			return nil, pricesChanged(moved)
		}
		if err := s.recalc(ctx, c); err != nil {
			return nil, err
		}
		var undo func()
		if o.authorize != nil {
			if undo, err = o.authorize(c); err != nil {
				return nil, err
			}
		}
		version, status := c.Version, c.Status
		// known: the change's outcome is known before the transaction.
		known := o.reservations != nil && !quiet
		var rs []stock.Reservation
		var e event.Event
		if known {
			c.DropLapsed(now)
			c.ExpirationTime, c.UpdatedAt = now.Add(s.ttl), now
			e, err = changeEvent(o, c, now)
			rs = o.reservations()
		}
		if err == nil {
			err = s.store.Update(ctx, func(tx Tx) error {
				c.Version, c.Status, c.Payment = version, status, nil // fn may run again
				if !known {
					locked, err := tx.LockVersion(ctx, id)
					if err != nil {
						return err
					}
					if locked != version {
						return Changed(id, version)
					}
				}
				if o.apply != nil {
					if err := o.apply(tx, c, now); err != nil {
						return err
					}
				}
				if !known {
					if c.open() {
						held, err := tx.Stock().Reservations(ctx, c.ID)
						if err != nil {
							return err
						}
						setReserves(c, held)
						c.DropLapsed(now)
					}
					c.ExpirationTime, c.UpdatedAt = now.Add(s.ttl), now
				}
				if err := tx.Save(ctx, c, rs); err != nil {
					return err
				}
				if !known {
					if quiet && bytes.Equal(before, computed(c)) {
						return nil
					}
					var err error
					if e, err = changeEvent(o, c, now); err != nil {
						return err
					}
				}
				tx.Emit(e)
				return nil
			})
		}
		if err != nil && undo != nil {
			undo()
		}
		if !changed(err) {
			if err != nil {
				return nil, err
			}
			if c.open() {
				s.cache.put(c)
			} else {
				s.cache.drop(id) // no change starts from it
			}
			c.DropLapsed(s.clock())
			return c, nil
		}
		s.cache.drop(id)
		if attempt == rounds {
			return nil, commerce.Errorf(commerce.EConcurrentMod, "cart %s keeps changing", id)
		}
		// A short random pause spreads the retries of parallel changes.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.IntN(1000*min(attempt, 10))) * time.Microsecond):
		}
	}
}

// changeEvent is the event of a change: o.event (UPDATE when empty) on
// CARTS with {data, new, operation} and, after a checkout, the payment
// without its paymentData. The cart is written by View.MarshalJSON into
// the payload, the rest by encoding/json, keys in encoding/json's order
// for a map.
func changeEvent(o change, c *Cart, now time.Time) (event.Event, error) {
	data, err := json.Marshal(o.data)
	if err != nil {
		return event.Event{}, fmt.Errorf("cart event: %w", err)
	}
	b := make([]byte, 0, len(data)+128+viewSize(len(c.Items)))
	b = append(b, `{"data":`...)
	b = append(b, data...)
	b = append(b, `,"new":`...)
	if b, err = Render(c, CalculateForm).appendJSON(b); err != nil {
		return event.Event{}, fmt.Errorf("cart event: %w", err)
	}
	b = append(b, `,"operation":`...)
	b = appendString(b, o.op)
	if c.Payment != nil {
		// paymentData may hold what a provider needs (card tokens):
		// it stays in the stored cart, never in the event log.
		rec := *c.Payment
		rec.Data = nil
		b = append(b, `,"payment":`...)
		if b, err = appendMarshal(b, rec); err != nil {
			return event.Event{}, fmt.Errorf("cart event: %w", err)
		}
	}
	return event.NewEncoded(event.Carts, cmp.Or(o.event, event.Update), now, append(b, '}')).Owned(c.ID), nil
}
