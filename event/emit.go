package event

import "time"

// Emitter queues events in a write transaction: every area's Tx is one.
type Emitter interface {
	Emit(e Event)
}

// Emit builds an event (see New) and queues it on tx, to be committed with
// the transaction: how a use case emits its event inside Store.Update.
func Emit(tx Emitter, channel, typ string, now time.Time, payload any) error {
	e, err := New(channel, typ, now, payload)
	if err != nil {
		return err
	}
	tx.Emit(e)
	return nil
}

// EmitOwned is Emit for an event whose payload holds personal data of
// owner (Event.Owner): a customer's id, or a cart's.
func EmitOwned(tx Emitter, channel, typ string, now time.Time, owner string, payload any) error {
	e, err := New(channel, typ, now, payload)
	if err != nil {
		return err
	}
	tx.Emit(e.Owned(owner))
	return nil
}
