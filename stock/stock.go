// Package stock keeps the quantity of each product in each warehouse and
// the carts' reservations of it (docs/api.md section 9).
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
// transaction, through the Tx its store gives (cart.Tx.Stock): a failing
// addToCart leaves neither a cart change nor a reservation behind. The cart
// reserves and releases units through Service.Reserve and Service.Release
// (which validate, give a reservation its id and expiration time, and
// treat reservations past their time as free), and calls the other Tx
// methods (ReleaseItem, ReleaseCart, CommitCart, Reservations) directly.
//
// A reservation holds its units until TTL after it was made (24 h by
// default). After that its units are free: a Reserve that finds too few
// available releases the reservations of that product and warehouse whose
// time has passed and tries again, and the sweep (Service.Sweep, run in the
// background by Service.Run every SweepInterval(TTL)) releases the others.
// A released reservation is marked Expired and kept with its cart entry,
// holding nothing: checkout takes its units again if the stock still allows.
//
// stock.create and stock.update emit CREATE ({new, data}) and UPDATE
// ({data, old, new}) on the STOCK channel in their transaction;
// reservations emit nothing (the carts' own events tell about them).
package stock

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
)

// DefaultTTL is how long a reservation holds its units when the service is
// given no other duration (docs/api.md: 24 h, configurable).
const DefaultTTL = 24 * time.Hour

// SweepBatch is the most reservations one sweep transaction expires.
const SweepBatch = 500

// MaxSweepInterval is the longest pause between two sweeps.
const MaxSweepInterval = 30 * time.Second

// minSweepInterval keeps a tiny TTL from making the sweep spin.
const minSweepInterval = 100 * time.Millisecond

// SweepInterval is how often the sweep runs for reservations that hold
// ttl: a quarter of ttl, at most MaxSweepInterval (at least 100 ms). Units
// of a reservation past its time are free for Reserve at once; the sweep
// bounds how long stock.info still counts them as reserved.
func SweepInterval(ttl time.Duration) time.Duration {
	return max(min(ttl/4, MaxSweepInterval), minSweepInterval)
}

// Key names a stock record: a product in a warehouse.
type Key struct {
	ProductID   string `json:"productId"`
	WarehouseID string `json:"warehouseId"`
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

// Key returns the record's key.
func (s Stock) Key() Key { return Key{ProductID: s.ProductID, WarehouseID: s.WarehouseID} }

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
// Expired is set once the reservation's time has passed and its units have
// been given back to the stock (by the sweep, or by a Reserve that needed
// them): the reservation is kept, holding nothing, so that checkout can
// take its units again.
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

// Holds reports whether the reservation still holds its units at now: not
// released, and its expiration time not reached.
func (r Reservation) Holds(now time.Time) bool { return !r.Expired && now.Before(r.ExpirationTime) }

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

// BelowReserved returns the validation_error of a quantity below the
// reserved quantity.
func BelowReserved(reserved int64) *commerce.Error {
	return commerce.Invalid(fmt.Sprintf("quantity: must not be below the reserved quantity %d", reserved))
}

// ProductNotFound returns the product_not_found error of stock.create for
// a product the catalog does not have (data: the id).
func ProductNotFound(id string) *commerce.Error {
	return &commerce.Error{Code: commerce.EProductNotFound, Data: id, Message: "no product " + id}
}
