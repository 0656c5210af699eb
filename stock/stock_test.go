package stock_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/stock"
)

// fakeStore records what reaches the store.
type fakeStore struct{ calls []string }

func (f *fakeStore) Create(_ context.Context, s stock.Stock) (stock.Stock, error) {
	f.calls = append(f.calls, "create")
	return s, nil
}

func (f *fakeStore) SetQuantity(_ context.Context, k stock.Key, q int64) (stock.Stock, error) {
	f.calls = append(f.calls, "set")
	return stock.Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID, Quantity: q}, nil
}

func (f *fakeStore) Get(_ context.Context, k stock.Key) (stock.Stock, error) {
	f.calls = append(f.calls, "get")
	return stock.Stock{ProductID: k.ProductID, WarehouseID: k.WarehouseID}, nil
}

func (f *fakeStore) Sweep(context.Context, time.Time, int) (int, error) {
	f.calls = append(f.calls, "sweep")
	return 0, nil
}

// fakeTx records the reservations it is given.
type fakeTx struct {
	stock.Tx
	reserved []stock.Reservation
}

func (f *fakeTx) Reserve(_ context.Context, r stock.Reservation) error {
	f.reserved = append(f.reserved, r)
	return nil
}

func qty(n int64) *int64 { return &n }

func TestInputValidation(t *testing.T) {
	cases := []struct {
		name string
		in   stock.Input
		want []string // problems; nil: valid
	}{
		{"valid", stock.Input{ProductID: "p", WarehouseID: "w", Quantity: qty(5)}, nil},
		{"zero quantity", stock.Input{ProductID: "p", WarehouseID: "w", Quantity: qty(0)}, nil},
		{"negative quantity", stock.Input{ProductID: "p", WarehouseID: "w", Quantity: qty(-1)}, []string{"quantity: must be a non-negative integer"}},
		{"missing quantity", stock.Input{ProductID: "p", WarehouseID: "w"}, []string{"quantity: required"}},
		{"blank ids", stock.Input{ProductID: " ", Quantity: qty(1)}, []string{"productId: required", "warehouseId: required"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range []string{"create", "update"} {
				store := &fakeStore{}
				svc := stock.NewService(store, nil, 0)
				var err error
				if op == "create" {
					_, err = svc.Create(context.Background(), tc.in)
				} else {
					_, err = svc.Update(context.Background(), tc.in)
				}
				if tc.want == nil {
					if err != nil || len(store.calls) != 1 {
						t.Fatalf("%s: got %v with store calls %v, want success through the store", op, err, store.calls)
					}
					continue
				}
				if commerce.ErrorCode(err) != commerce.EValidation {
					t.Fatalf("%s: got %v, want validation_error", op, err)
				}
				if got, _ := commerce.ErrorData(err).([]string); !slices.Equal(got, tc.want) {
					t.Errorf("%s: got problems %q, want %q", op, got, tc.want)
				}
				if len(store.calls) != 0 {
					t.Errorf("%s: store called (%v) for invalid input", op, store.calls)
				}
			}
		})
	}
}

func TestReserveSetsExpiry(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	svc := stock.NewService(&fakeStore{}, func() time.Time { return now }, 2*time.Hour)
	tx := &fakeTx{}
	r, err := svc.Reserve(context.Background(), tx, stock.Reservation{CartID: "c", ItemID: "i", ProductID: "p", WarehouseID: "w", Quantity: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 3, 1, 13, 0, 0, 123000000, time.UTC)
	if !r.ExpirationTime.Equal(want) || r.ExpirationTime.Location() != time.UTC {
		t.Errorf("got expiration %v, want %v in UTC", r.ExpirationTime, want)
	}
	if r.ID == "" || len(tx.reserved) != 1 || tx.reserved[0] != r {
		t.Errorf("got reservation %+v, tx saw %+v: want the same one, with an id", r, tx.reserved)
	}
	if svc.TTL() != 2*time.Hour {
		t.Errorf("got TTL %v, want 2h", svc.TTL())
	}
	if d := stock.NewService(&fakeStore{}, nil, 0).TTL(); d != stock.DefaultTTL {
		t.Errorf("got default TTL %v, want %v", d, stock.DefaultTTL)
	}
}

func TestReserveValidation(t *testing.T) {
	valid := stock.Reservation{CartID: "c", ItemID: "i", ProductID: "p", WarehouseID: "w", Quantity: 1}
	cases := []struct {
		name   string
		change func(r *stock.Reservation)
		want   string
	}{
		{"zero quantity", func(r *stock.Reservation) { r.Quantity = 0 }, "quantity: must be a positive integer"},
		{"negative quantity", func(r *stock.Reservation) { r.Quantity = -3 }, "quantity: must be a positive integer"},
		{"no cart", func(r *stock.Reservation) { r.CartID = "" }, "cartId: required"},
		{"no item", func(r *stock.Reservation) { r.ItemID = "" }, "itemId: required"},
		{"no product", func(r *stock.Reservation) { r.ProductID = "" }, "productId: required"},
		{"no warehouse", func(r *stock.Reservation) { r.WarehouseID = "" }, "warehouseId: required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := valid
			tc.change(&r)
			tx := &fakeTx{}
			_, err := stock.NewService(&fakeStore{}, nil, 0).Reserve(context.Background(), tx, r)
			if got, _ := commerce.ErrorData(err).([]string); commerce.ErrorCode(err) != commerce.EValidation || !slices.Equal(got, []string{tc.want}) {
				t.Fatalf("got %v, want validation_error %q", err, tc.want)
			}
			if len(tx.reserved) != 0 {
				t.Errorf("invalid reservation reached the store: %+v", tx.reserved)
			}
		})
	}
	if err := stock.NewService(&fakeStore{}, nil, 0).Release(context.Background(), &fakeTx{}, "c", "i", 0); commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("release of 0: got %v, want validation_error", err)
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(stock.Stock{ProductID: "p", WarehouseID: "w", Quantity: 10, Reserved: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"productId":"p","warehouseId":"w","quantity":10,"reserved":3,"available":7}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	b, err = json.Marshal(stock.Reservation{ID: "r", CartID: "c", ItemID: "i", ProductID: "p", WarehouseID: "w", Quantity: 2,
		ExpirationTime: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"r","warehouseId":"w","quantity":2,"expirationTime":"2026-01-02T03:04:05.006Z"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
