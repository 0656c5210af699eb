// Package stock keeps the quantity of each product in each warehouse and
// the carts' reservations of it (CONTRACT.md section 9).
//
// A Stock record is the pair (productId, warehouseId) with the Quantity on
// hand and the Reserved part of it held by carts; Available is the
// difference. The database guarantees 0 <= Reserved <= Quantity: every
// change is a conditional UPDATE (reserve only while enough is available,
// lower the quantity only down to what is reserved), so the stock is never
// oversold, whatever the concurrency and however many processes share a
// PostgreSQL database.
//
// Reservations are made, released and committed by the cart inside its own
// transaction, through a Tx (package sqldb gives one with sqldb.StockTx): a
// failing addToCart leaves neither a cart change nor a reservation behind.
// The cart reserves and releases units through Service.Reserve and
// Service.Release (which validate, and give a reservation its id and
// expiration time), and calls the other Tx methods (ReleaseItem,
// ReleaseCart, CommitCart, Reservations) directly.
//
// A reservation expires TTL after it was made (24 h by default); the sweep
// (Service.Sweep, run in the background by Service.Run) then gives its units
// back and marks it Expired. An expired reservation stays listed with its
// cart entry and is taken again at checkout if the stock still allows.
//
// The stock area emits no events: CONTRACT.md lists none for it.
package stock

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/commercekit/commerce"
)

// DefaultTTL is how long a reservation holds its units when the service is
// given no other duration (CONTRACT.md: 24 h, configurable).
const DefaultTTL = 24 * time.Hour

// SweepBatch is the most reservations one sweep transaction expires.
const SweepBatch = 500

// Key names a stock record: a product in a warehouse. It is also the
// argument of stock.info.
type Key struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
}

// Input is the argument of stock.create and stock.update. Quantity is a
// pointer so that an absent quantity is told apart from 0.
type Input struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
	Quantity    *int64 `json:"quantity"`
}

// Stock is the stock of a product in a warehouse. Quantity is what is on
// hand, Reserved the part of it held by carts' active reservations. Its
// JSON form also carries "available" (Quantity - Reserved).
type Stock struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
	Quantity    int64  `json:"quantity"`
	Reserved    int64  `json:"reserved"`
}

// Available is the quantity that can still be reserved.
func (s Stock) Available() int64 { return s.Quantity - s.Reserved }

// MarshalJSON writes {productId, warehouseId, quantity, reserved, available}.
func (s Stock) MarshalJSON() ([]byte, error) {
	type plain Stock
	return json.Marshal(struct {
		plain
		Available int64 `json:"available"`
	}{plain(s), s.Available()})
}

// Reservation holds Quantity units of a product in a warehouse for a cart
// entry (CartID, ItemID) until ExpirationTime. Its JSON form is the cart
// entry's Reserve: {id, warehouseId, quantity, expirationTime} (UTC).
//
// Expired is set by the sweep once the reservation's time has passed and
// its units have been given back to the stock: the reservation is kept,
// holding nothing, so that checkout can take its units again.
type Reservation struct {
	ID             string    `json:"id"`
	CartID         string    `json:"-"`
	ItemID         string    `json:"-"`
	ProductID      string    `json:"-"`
	WarehouseID    string    `json:"warehouseId"`
	Quantity       int64     `json:"quantity"`
	ExpirationTime time.Time `json:"expirationTime"`
	Expired        bool      `json:"-"`
}

// Shortage is the data of a not_enough_stock error.
type Shortage struct {
	ProductID         string `json:"productId"`
	WarehouseID       string `json:"warehouseId"`
	RequestedQuantity int64  `json:"requestedQuantity"`
	AvailableQuantity int64  `json:"availableQuantity"`
}

// NotEnoughStock returns the not_enough_stock error for a request of
// requested units of which only available can be had.
func NotEnoughStock(productID, warehouseID string, requested, available int64) *commerce.Error {
	return &commerce.Error{
		Code:    commerce.ENotEnoughStock,
		Data:    Shortage{ProductID: productID, WarehouseID: warehouseID, RequestedQuantity: requested, AvailableQuantity: available},
		Message: fmt.Sprintf("%d of product %s requested in warehouse %s, %d available", requested, productID, warehouseID, available),
	}
}

// NotFound returns the stock_not_found error of a key; its data is
// {productId, warehouseId}, the key being a pair rather than one id.
func NotFound(k Key) *commerce.Error {
	return &commerce.Error{Code: commerce.EStockNotFound, Data: k,
		Message: fmt.Sprintf("no stock of product %s in warehouse %s", k.ProductID, k.WarehouseID)}
}

// Duplicate returns the duplicate_key error of a second stock.create of
// the same pair: data {index: "product_warehouse", productId, warehouseId}.
func Duplicate(k Key) *commerce.Error {
	return &commerce.Error{Code: commerce.EDuplicateKey,
		Data:    map[string]any{"index": "product_warehouse", "productId": k.ProductID, "warehouseId": k.WarehouseID},
		Message: fmt.Sprintf("stock of product %s in warehouse %s exists", k.ProductID, k.WarehouseID)}
}

// Store keeps stock records (implemented by package sqldb).
type Store interface {
	// Create stores a new record with nothing reserved.
	// Errors: duplicate_key (see Duplicate) when the pair exists.
	Create(ctx context.Context, s Stock) (Stock, error)
	// SetQuantity sets the quantity on hand of an existing record, only if
	// it is not below the reserved quantity.
	// Errors: stock_not_found (see NotFound); validation_error
	// ("quantity: ...") when quantity is below what is reserved.
	SetQuantity(ctx context.Context, k Key, quantity int64) (Stock, error)
	// Get returns a record. Errors: stock_not_found.
	Get(ctx context.Context, k Key) (Stock, error)
	// Sweep expires up to limit active reservations whose expiration time
	// is at or before now, in one transaction: their units are given back
	// and they are marked Expired. It returns how many it expired.
	Sweep(ctx context.Context, now time.Time, limit int) (int, error)
}

// Tx changes reservations inside a transaction owned by the caller (the
// cart's store runs its own change and these in one transaction; package
// sqldb provides one with sqldb.StockTx). Every method leaves the stock
// consistent: 0 <= reserved <= quantity.
type Tx interface {
	// Reserve holds r.Quantity units of (r.ProductID, r.WarehouseID) for
	// the entry (r.CartID, r.ItemID) until r.ExpirationTime; r.ID must be
	// set (Service.Reserve fills ID and ExpirationTime).
	// Errors: not_enough_stock (see NotEnoughStock; availableQuantity 0
	// when there is no stock record) and nothing changed.
	Reserve(ctx context.Context, r Reservation) error
	// Release gives back quantity units reserved by the entry: expired
	// reservations go first (they hold nothing), then active ones newest
	// first; the last one touched is split when it holds more than what is
	// left to release, so exactly quantity units are released, or all the
	// entry has when it has fewer. No error for an entry without
	// reservations (a product with UNLIMITED stock has none).
	Release(ctx context.Context, cartID, itemID string, quantity int64) error
	// ReleaseItem releases every reservation of a cart entry.
	ReleaseItem(ctx context.Context, cartID, itemID string) error
	// ReleaseCart releases every reservation of a cart.
	ReleaseCart(ctx context.Context, cartID string) error
	// CommitCart turns the cart's reservations into a decrement of the
	// stock (checkout) and removes them, returning them. Active ones are
	// taken from what they hold, even past their expiration time when the
	// sweep has not run yet; expired ones are taken again from what is
	// available. Errors: not_enough_stock when an expired reservation can
	// no longer be taken: requestedQuantity is everything the cart needs of
	// that product in that warehouse, availableQuantity what is available
	// plus what the cart still holds there. Nothing changes on error (the
	// caller rolls the transaction back).
	CommitCart(ctx context.Context, cartID string) ([]Reservation, error)
	// Reservations returns the cart's reservations, active and expired,
	// in the order they were made (an empty list when it has none).
	Reservations(ctx context.Context, cartID string) ([]Reservation, error)
}

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
// hand and nothing reserved. The product id is not checked against the
// catalog: stock may be recorded before the product is created (as in an
// import), and warehouses are not resources of their own.
// Errors: validation_error, duplicate_key.
func (s *Service) Create(ctx context.Context, in Input) (Stock, error) {
	if err := validInput(in); err != nil {
		return Stock{}, err
	}
	return s.store.Create(ctx, Stock{ProductID: in.ProductID, WarehouseID: in.WarehouseID, Quantity: *in.Quantity})
}

// Update is stock.update: it sets the quantity on hand (an absolute value,
// not a delta). A quantity below what carts have reserved is a
// validation_error and changes nothing: the stock is never oversold, and
// reservations are not cancelled behind their carts' backs (release them,
// or wait for them to expire, first).
// Errors: validation_error, stock_not_found.
func (s *Service) Update(ctx context.Context, in Input) (Stock, error) {
	if err := validInput(in); err != nil {
		return Stock{}, err
	}
	return s.store.SetQuantity(ctx, Key{in.ProductID, in.WarehouseID}, *in.Quantity)
}

// Info is stock.info. Errors: validation_error, stock_not_found.
func (s *Service) Info(ctx context.Context, k Key) (Stock, error) {
	if problems := validKey(k); problems != nil {
		return Stock{}, commerce.Invalid(problems...)
	}
	return s.store.Get(ctx, k)
}

// Reserve reserves r.Quantity units of (r.ProductID, r.WarehouseID) for the
// cart entry (r.CartID, r.ItemID) in the caller's transaction tx, for the
// service's TTL from now. It returns the reservation with its new ID and
// ExpirationTime (UTC, to the millisecond, as stored).
// Errors: validation_error (an id missing, quantity not positive),
// not_enough_stock.
func (s *Service) Reserve(ctx context.Context, tx Tx, r Reservation) (Reservation, error) {
	problems := validKey(Key{r.ProductID, r.WarehouseID})
	if strings.TrimSpace(r.CartID) == "" {
		problems = append(problems, "cartId: required")
	}
	if strings.TrimSpace(r.ItemID) == "" {
		problems = append(problems, "itemId: required")
	}
	if r.Quantity <= 0 {
		problems = append(problems, "quantity: must be a positive integer")
	}
	if problems != nil {
		return Reservation{}, commerce.Invalid(problems...)
	}
	r.ID = commerce.NewID()
	r.ExpirationTime = s.now().Add(s.ttl).UTC().Truncate(time.Millisecond)
	r.Expired = false
	if err := tx.Reserve(ctx, r); err != nil {
		return Reservation{}, err
	}
	return r, nil
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

// Sweep expires every reservation whose expiration time has passed,
// in transactions of up to SweepBatch reservations, and returns how many
// it expired.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := s.store.Sweep(ctx, s.now(), SweepBatch)
		total += n
		if err != nil {
			return total, fmt.Errorf("stock sweep: %w", err)
		}
		if n < SweepBatch {
			return total, nil
		}
	}
}

// Run sweeps expired reservations at once and then every interval until
// ctx ends, logging failures (the next round tries again). Several
// processes sharing a database may all run it: a reservation is expired
// once, by whichever gets it first.
func (s *Service) Run(ctx context.Context, every time.Duration, logger *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			logger.Error("stock sweep failed", "err", err)
		} else if n > 0 {
			logger.Info("stock reservations expired", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func validKey(k Key) []string {
	var problems []string
	if strings.TrimSpace(k.ProductID) == "" {
		problems = append(problems, "productId: required")
	}
	if strings.TrimSpace(k.WarehouseID) == "" {
		problems = append(problems, "warehouseId: required")
	}
	return problems
}

func validInput(in Input) error {
	problems := validKey(Key{in.ProductID, in.WarehouseID})
	switch {
	case in.Quantity == nil:
		problems = append(problems, "quantity: required")
	case *in.Quantity < 0:
		problems = append(problems, "quantity: must be a non-negative integer")
	}
	if problems != nil {
		return commerce.Invalid(problems...)
	}
	return nil
}
