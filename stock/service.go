package stock

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Service is the stock area's use cases.
type Service struct {
	store Store
	now   func() time.Time
	ttl   time.Duration
}

// NewService returns the service over store, with the clock now (time.Now
// when nil) and the reservation lifetime ttl (DefaultTTL when 0 or less).
func NewService(store Store, now func() time.Time, ttl time.Duration) *Service {
	if now == nil {
		now = time.Now
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Service{store: store, now: now, ttl: ttl}
}

// TTL is how long a new reservation holds its units.
func (s *Service) TTL() time.Duration { return s.ttl }

// Create is stock.create: a new record of the pair with the quantity on
// hand and nothing reserved, and CREATE on STOCK with {new, data}. The
// product must exist in the catalog, whatever its status (stock may be
// recorded for a DRAFT product before it goes ONLINE); warehouses are not
// resources of their own, and a warehouseId is a code people type
// (normalised to NFC, see commerce.Key).
// Errors: validation_error, product_not_found (data: the productId; nothing
// is stored), duplicate_key (see Duplicate).
func (s *Service) Create(ctx context.Context, in CreateInput) (Stock, error) {
	k, err := checkInput(in.ProductID, in.WarehouseID, in.Quantity)
	if err != nil {
		return Stock{}, err
	}
	st := Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID, Quantity: *in.Quantity}
	err = s.store.Update(ctx, func(tx Tx) error {
		// Checked in the transaction, with the product's row held until
		// it commits: a product.remove either ends before (and this is
		// product_not_found) or waits for this record, and removes it
		// with the product.
		if err := tx.LockProduct(ctx, k.ProductID); err != nil {
			return err
		}
		if err := tx.Create(ctx, st); err != nil {
			return err
		}
		return s.emit(tx, event.Create, map[string]any{"new": st, "data": in})
	})
	if err != nil {
		return Stock{}, fmt.Errorf("create stock: %w", err)
	}
	return st, nil
}

// Update is stock.update: it sets the quantity on hand (an absolute value,
// not a delta) and emits UPDATE on STOCK with {data, old, new}. A quantity
// below what carts hold reserved is a validation_error and changes
// nothing: the stock is never oversold, and reservations are not cancelled
// behind their carts' backs (release them, or wait for them to expire,
// first). Reservations whose time has passed hold nothing: they are
// released first when the quantity would be below them.
// Errors: validation_error, stock_not_found.
func (s *Service) Update(ctx context.Context, in UpdateInput) (Stock, error) {
	k, err := checkInput(in.ProductID, in.WarehouseID, in.Quantity)
	if err != nil {
		return Stock{}, err
	}
	q := *in.Quantity
	var out Stock
	err = s.store.Update(ctx, func(tx Tx) error {
		old, err := tx.Lock(ctx, k)
		if err != nil {
			return err
		}
		if q < old.Reserved {
			if _, err := tx.ReleaseExpired(ctx, k, s.now()); err != nil {
				return err
			}
		}
		if out, err = tx.SetQuantity(ctx, k, q); err != nil {
			return err
		}
		return s.emit(tx, event.Update, map[string]any{"data": in, "old": old, "new": out})
	})
	if err != nil {
		return Stock{}, fmt.Errorf("update stock: %w", err)
	}
	return out, nil
}

// Info is stock.info. Errors: validation_error, stock_not_found.
func (s *Service) Info(ctx context.Context, in InfoInput) (Stock, error) {
	var p commerce.Problems
	k := checkKey(&p, in.ProductID, in.WarehouseID)
	if err := p.Err(); err != nil {
		return Stock{}, err
	}
	return s.store.Stock(ctx, k)
}

// Prepare checks a reservation and completes it for Reserve: a new ID, the
// warehouse id in its stored form (NFC) and the ExpirationTime (the
// service's TTL from now, UTC, to the millisecond, as stored). It touches
// no storage, so a caller can show the reservation before its transaction.
// Errors: validation_error (an id missing, quantity not positive).
func (s *Service) Prepare(r Reservation) (Reservation, error) {
	var p commerce.Problems
	k := checkKey(&p, r.ProductID, r.WarehouseID)
	if strings.TrimSpace(r.CartID) == "" {
		p.Add("cartId", "required")
	}
	if strings.TrimSpace(r.ItemID) == "" {
		p.Add("itemId", "required")
	}
	if r.Quantity <= 0 {
		p.Add("quantity", "must be a positive integer")
	}
	if err := p.Err(); err != nil {
		return Reservation{}, err
	}
	r.ID = commerce.NewOrderedID()
	r.WarehouseID = k.WarehouseID
	r.ExpirationTime = s.now().Add(s.ttl).UTC().Truncate(time.Millisecond)
	r.Expired = false
	return r, nil
}

// Reserve reserves r.Quantity units of (r.ProductID, r.WarehouseID) for the
// cart entry (r.CartID, r.ItemID) in the caller's transaction tx, until
// r.ExpirationTime. A reservation without an ID is prepared first
// (Prepare); one prepared is stored as it is. Reservations past their time
// are free: when too few units are available, those of the product and
// warehouse are released (Tx.ReleaseExpired) and the reservation is tried
// again, so that no unit waits for the sweep. It returns the reservation
// as stored.
// Errors: validation_error (an id missing, quantity not positive),
// not_enough_stock.
func (s *Service) Reserve(ctx context.Context, tx Tx, r Reservation) (Reservation, error) {
	if r.ID == "" {
		var err error
		if r, err = s.Prepare(r); err != nil {
			return Reservation{}, err
		}
	}
	if err := ReserveAt(ctx, tx, r, s.now()); err != nil {
		return Reservation{}, err
	}
	return r, nil
}

// ReserveAt makes the prepared reservation r in tx as Service.Reserve
// does, at the time now: when too few units are available, the
// reservations of the product and warehouse whose expiration time is at
// or before now are released (Tx.ReleaseExpired) and r is tried again.
// Errors: not_enough_stock.
func ReserveAt(ctx context.Context, tx Tx, r Reservation, now time.Time) error {
	err := tx.Reserve(ctx, r)
	if commerce.ErrorCode(err) == commerce.ENotEnoughStock {
		released, rerr := tx.ReleaseExpired(ctx, Key{ProductID: r.ProductID, WarehouseID: r.WarehouseID}, now)
		if rerr != nil {
			return rerr
		}
		if released > 0 {
			err = tx.Reserve(ctx, r)
		}
	}
	return err
}

// Release gives back quantity units reserved by a cart entry (the units
// removeFromCart removes), in the caller's transaction; see Tx.Release.
// Errors: validation_error when quantity is not positive.
func (s *Service) Release(ctx context.Context, tx Tx, cartID, itemID string, quantity int64) error {
	if quantity <= 0 {
		return commerce.Invalid("quantity: must be a positive integer")
	}
	return tx.Release(ctx, cartID, itemID, quantity)
}

// Sweep releases every reservation whose expiration time has passed, in
// transactions of up to SweepBatch reservations, and returns how many it
// released.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := s.store.Update(ctx, func(tx Tx) (err error) {
			n, err = tx.Sweep(ctx, s.now(), SweepBatch)
			return err
		})
		if err != nil {
			return total, fmt.Errorf("stock sweep: %w", err)
		}
		total += n
		if n < SweepBatch {
			return total, nil
		}
	}
}

// Run sweeps expired reservations at once and then every interval
// (SweepInterval(TTL) when 0 or less) until ctx ends, logging failures (the
// next round tries again). Several processes sharing a database may all
// run it: a reservation is released once, by whichever gets it first.
func (s *Service) Run(ctx context.Context, every time.Duration, logger *slog.Logger) {
	if every <= 0 {
		every = SweepInterval(s.ttl)
	}
	commerce.Sweep(ctx, every, logger, "stock", s.Sweep)
}

// emit queues an event on STOCK.
func (s *Service) emit(tx Tx, typ string, payload any) error {
	return event.Emit(tx, event.Stock, typ, s.now(), payload)
}

// checkKey records what is missing of a key and returns it with the
// warehouse id normalised (commerce.Key).
func checkKey(p *commerce.Problems, productID, warehouseID string) Key {
	if strings.TrimSpace(productID) == "" {
		p.Add("productId", "required")
	}
	if strings.TrimSpace(warehouseID) == "" {
		p.Add("warehouseId", "required")
	}
	return Key{ProductID: productID, WarehouseID: commerce.Key(warehouseID)}
}

// checkInput checks the arguments of stock.create and stock.update.
func checkInput(productID, warehouseID string, quantity *int64) (Key, error) {
	var p commerce.Problems
	k := checkKey(&p, productID, warehouseID)
	switch {
	case quantity == nil:
		p.Add("quantity", "required")
	case *quantity < 0:
		p.Add("quantity", "must be a non-negative integer")
	}
	return k, p.Err()
}
