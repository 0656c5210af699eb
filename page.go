package commerce

// Paging limits of list operations (docs/api.md section 4).
const (
	DefaultLimit = 10
	MaxLimit     = 1000
)

// PageArgs are the paging arguments of a list operation; embed it in the
// operation's argument struct.
type PageArgs struct {
	// Limit is the most records the page holds: 1 to 1000, 10 when absent.
	Limit *int `json:"limit" openapi:"min=1,max=1000"`
	// Skip is the number of records (in the list's order) before the page:
	// 0 or more, 0 when absent.
	Skip *int `json:"skip" openapi:"min=0"`
}

// Page is the page of a list response: {limit, skip}.
type Page struct {
	Limit int `json:"limit"`
	Skip  int `json:"skip"`
}

// Page validates the arguments and applies the defaults (limit 10, skip 0):
// limit must be 1..1000 and skip >= 0, else validation_error.
func (a PageArgs) Page() (Page, error) {
	p := Page{Limit: DefaultLimit}
	var problems Problems
	if a.Limit != nil {
		if *a.Limit < 1 || *a.Limit > MaxLimit {
			problems.Add("limit", "must be between 1 and %d", MaxLimit)
		}
		p.Limit = *a.Limit
	}
	if a.Skip != nil {
		if *a.Skip < 0 {
			problems.Add("skip", "must not be negative")
		}
		p.Skip = *a.Skip
	}
	if err := problems.Err(); err != nil {
		return Page{}, err
	}
	return p, nil
}

// List is the response of a list operation: {page, data}. Data holds the
// records, or maps of the fields asked for.
type List struct {
	Page Page  `json:"page"`
	Data []any `json:"data"`
}
