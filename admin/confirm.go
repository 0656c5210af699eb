package admin

import (
	"net/http"
	"slices"
)

// ConfirmedField is the form field that says a destructive form was
// confirmed: "yes" (template "confirmed").
const ConfirmedField = "confirmed"

// confirmation is the question a destructive action asks before it runs.
type confirmation struct {
	// Title and Nav are those of the page asking (without JavaScript).
	Title, Nav string
	// Question is asked; Yes is the label of the button that goes ahead.
	Question, Yes string
	// Back is where "No" goes.
	Back string
}

// hiddenField is a field a confirmation page sends on.
type hiddenField struct{ Name, Value string }

// confirmFirst reports whether a destructive form may go ahead: its
// ConfirmedField is "yes", set by admin.js's dialog (the form has the
// template "confirm") or by the page this renders otherwise. That page
// asks c.Question with a form that sends the same fields again,
// confirmed (its one-time token too: a form sent twice still runs once),
// and a link back; confirmFirst then reports false and the action does
// nothing. Pages of new areas use it the same way for their removals.
func (h *Handler) confirmFirst(w http.ResponseWriter, r *http.Request, c confirmation) bool {
	if r.PostForm.Get(ConfirmedField) == "yes" {
		return true
	}
	var fields []hiddenField
	for name, vs := range r.PostForm {
		if name == CSRFField || name == ConfirmedField {
			continue
		}
		for _, v := range vs {
			fields = append(fields, hiddenField{name, v})
		}
	}
	slices.SortStableFunc(fields, func(a, b hiddenField) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	p := page{Title: c.Title, Nav: c.Nav, Data: map[string]any{"question": c.Question, "yes": c.Yes, "back": c.Back,
		"action": r.URL.Path, "fields": fields}}
	h.render(w, r, http.StatusOK, "confirm", p)
	return false
}
