package rpc

import (
	"context"

	"commerce"
	"commerce/event"
)

type eventListArgs struct {
	Channel string `json:"channel"`
	Type    string `json:"type"`
	After   string `json:"after"`
	Limit   *int   `json:"limit"`
}

type eventPage struct {
	Limit int    `json:"limit"`
	After string `json:"after,omitempty"`
}

type eventList struct {
	Page eventPage     `json:"page"`
	Data []event.Event `json:"data"`
}

// RegisterEvents registers event.list (admin): the event log in order,
// after the event id `after` (exclusive), filtered by channel and type.
// Paging is by `after` rather than `skip`, so a consumer can follow the log.
func RegisterEvents(s *Server, log event.Log) {
	Handle(s, Op{Service: "event", Name: "event.list", Read: true, Admin: true},
		func(ctx context.Context, a *eventListArgs) (any, error) {
			page, err := commerce.PageArgs{Limit: a.Limit}.Page()
			if err != nil {
				return nil, err
			}
			events, err := log.List(ctx, event.Filter{Channel: a.Channel, Type: a.Type, After: a.After, Limit: page.Limit})
			if err != nil {
				return nil, err
			}
			if events == nil {
				events = []event.Event{}
			}
			return eventList{Page: eventPage{page.Limit, a.After}, Data: events}, nil
		})
}
