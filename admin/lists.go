package admin

import (
	"fmt"
	"net/http"
	"net/url"
)

// The helpers of the list and edit pages: a list page reads one page of
// rows of a list operation with the filters of its query string, an edit
// page reads its record with an info operation (the not-found page when
// that fails), fills its form from it and says "Saved." after a save.

// listRows calls the list operation op for the rows the query string
// asks for: its paging (pageArgs) added to args (nil: none), and the
// filters named, each when given (trimmed, see opt). It answers the rows,
// their pager and the call's error (no rows then).
func (h *Handler) listRows(r *http.Request, op string, args map[string]any, filters ...string) ([]any, pager, error) {
	q := r.URL.Query()
	limit, skip := pageArgs(q)
	if args == nil {
		args = map[string]any{}
	}
	args["limit"], args["skip"] = limit, skip
	for _, k := range filters {
		if v := opt(q, k); v != nil {
			args[k] = *v
		}
	}
	res, err := h.call(r, op, args)
	rows := list(res)
	return rows, newPager(q, limit, skip, len(rows)), err
}

// record calls the info operation op for the record id and answers the
// record, the answer's key. When the call fails it draws the not-found
// page (notFound: its title and nav) and answers ok false: the handler
// has answered.
func (h *Handler) record(w http.ResponseWriter, r *http.Request, op, key, id string, notFound page) (rec map[string]any, ok bool) {
	res, err := h.call(r, op, map[string]any{"id": id})
	if err != nil {
		h.fail(w, r, "notfound", notFound, formSpec{}, err)
		return nil, false
	}
	rec, _ = res[key].(map[string]any)
	return rec, true
}

// formValues sets the fields keys of a record read (rec) as form values
// on f: those present and not null, printed.
func formValues(f url.Values, rec map[string]any, keys ...string) url.Values {
	for _, k := range keys {
		if v, ok := rec[k]; ok && v != nil {
			f.Set(k, fmt.Sprint(v))
		}
	}
	return f
}

// savedNotice says "Saved." on a page shown after a save (?saved=1).
func savedNotice(r *http.Request, p *page) {
	if r.URL.Query().Get("saved") != "" {
		p.Notice = "Saved."
	}
}
