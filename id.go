package commerce

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"time"
)

// NewID returns a new opaque, URL-safe identifier carrying 96 random bits.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it panics on an unusable source)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// orderedEncoding is base64's URL-safe alphabet in ASCII order, so that
// encoded strings sort as the bytes they encode.
var orderedEncoding = base64.NewEncoding("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz").WithPadding(base64.NoPadding)

// NewOrderedID returns a new opaque, URL-safe identifier of 24 characters:
// the time in milliseconds (48 bits) then 96 random bits, so that ids made
// one after the other sort together. It is for the records written by the
// thousand (events, stock reservations, webhook deliveries): the index on
// their ids then grows at its end instead of changing pages all over, as
// random ids make it (the cost that dominated writing VIEWED events).
func NewOrderedID() string { return newOrderedID(time.Now()) }

func newOrderedID(now time.Time) string {
	var b [18]byte
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[:6], ms[2:])
	_, _ = rand.Read(b[6:])
	return orderedEncoding.EncodeToString(b[:])
}
