package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

type eventListArgs struct {
	// Channel matches the events of this channel (PRODUCTS, CARTS, ...).
	Channel string `json:"channel"`
	// Type matches the events of this type (CREATE, UPDATE, ...).
	Type string `json:"type"`
	// After is an event id: the events after it in the log (the next page).
	After string `json:"after"`
	commerce.PageArgs
}

type eventPage struct {
	commerce.Page
	After string `json:"after,omitempty"`
}

type eventList struct {
	Page eventPage     `json:"page"`
	Data []event.Event `json:"data"`
}

// RegisterEvents registers event.list (admin): the event log in order,
// after the event id `after` (exclusive), filtered by channel and type.
// A consumer follows the log with `after` (the last id it saw); `limit`
// and `skip` page as in every list.
func RegisterEvents(s *Server, log event.Log) {
	Handle(s, Op{Service: "event", Name: "event.list", Read: true, Admin: true, Result: eventList{},
		Doc: "The event log in order, after the event id `after`, filtered by channel and type."},
		func(ctx context.Context, a *eventListArgs) (any, error) {
			page, err := a.PageArgs.Page()
			if err != nil {
				return nil, err
			}
			events, err := log.List(ctx, event.Filter{Channel: a.Channel, Type: a.Type, After: a.After, Limit: page.Limit, Skip: page.Skip})
			if err != nil {
				return nil, err
			}
			if events == nil {
				events = []event.Event{}
			}
			return eventList{Page: eventPage{page, a.After}, Data: events}, nil
		})
}
