// Package table holds what the areas whose records form one small table
// (taxes, shipping methods, promotions) share: their create, update and
// remove, each one transaction of the area's store with its event in it
// (docs/architecture.md, "Transactions and events"), followed by dropping
// the area's in-memory snapshot of the table (internal/snapcache), and
// the answer of their list operation.
package table

import (
	"context"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Store is the write side of an area's store.
type Store[X event.Emitter] interface {
	// Update runs fn in one write transaction and commits it with the
	// events fn emitted; fn's error rolls everything back and is returned.
	// fn may run more than once (a transient conflict of the database), so
	// it must have no effect outside the transaction.
	Update(ctx context.Context, fn func(tx X) error) error
}

// Changes makes the changes of one area's records.
type Changes[X event.Emitter] struct {
	Store Store[X]
	// Channel is the events' channel (event.Taxes, ...).
	Channel string
	// Name is what a record is called in errors ("tax": "create tax: ...").
	Name string
	// Now is the clock of the events.
	Now func() time.Time
	// Changed runs after every change, committed or not (a commit that
	// reports an error may still have happened): the area drops its
	// snapshot of the table there.
	Changed func(ctx context.Context)
}

func (c Changes[X]) update(ctx context.Context, op string, fn func(tx X) error) error {
	err := c.Store.Update(ctx, fn)
	c.Changed(ctx)
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, c.Name, err)
	}
	return nil
}

// Create stores t with insert (which may complete it: a sequence number)
// and emits CREATE with {new, data: in}, in one transaction, and returns
// the record stored.
func Create[X event.Emitter, T any](ctx context.Context, c Changes[X], in any, t T, insert func(tx X, t *T) error) (T, error) {
	var out T
	err := c.update(ctx, "create", func(tx X) error {
		out = t // a retried transaction starts again from t
		if err := insert(tx, &out); err != nil {
			return err
		}
		return event.Emit(tx, c.Channel, event.Create, c.Now(), map[string]any{"new": out, "data": in})
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Update reads the record id with lock (its row locked), makes the new
// record from it with change, stores it with put and emits UPDATE with
// {data: in, old, new}, in one transaction, so that concurrent updates of
// a record are serialised and none is lost. It returns the new record.
func Update[X event.Emitter, T any](ctx context.Context, c Changes[X], in any, id string,
	lock func(tx X, id string) (T, error), change func(old T) (T, error), put func(tx X, t T) error) (T, error) {
	var out T
	err := c.update(ctx, "update", func(tx X) error {
		old, err := lock(tx, id)
		if err != nil {
			return err
		}
		t, err := change(old)
		if err != nil {
			return err
		}
		if err := put(tx, t); err != nil {
			return err
		}
		out = t
		return event.Emit(tx, c.Channel, event.Update, c.Now(), map[string]any{"data": in, "old": old, "new": t})
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// Remove deletes the record id with remove and emits REMOVE with {id,
// old}, in one transaction, and returns the removed record.
func Remove[X event.Emitter, T any](ctx context.Context, c Changes[X], id string, remove func(tx X, id string) (T, error)) (T, error) {
	var old T
	err := c.update(ctx, "remove", func(tx X) error {
		var err error
		if old, err = remove(tx, id); err != nil {
			return err
		}
		return event.Emit(tx, c.Channel, event.Remove, c.Now(), map[string]any{"id": id, "old": old})
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return old, nil
}

// List is the answer of a list operation: the page of records read (err,
// the store's error), each projected to the fields asked for (all when
// none). names is what the records are called in errors ("taxes").
func List[T any](names string, page commerce.Page, fields []string, records []T, err error) (commerce.List, error) {
	if err != nil {
		return commerce.List{}, fmt.Errorf("list %s: %w", names, err)
	}
	data, err := commerce.ProjectAll(records, fields)
	if err != nil {
		return commerce.List{}, fmt.Errorf("list %s: %w", names, err)
	}
	return commerce.List{Page: page, Data: data}, nil
}
