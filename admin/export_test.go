package admin

import (
	"encoding/json"
	"strings"
)

// SetCategoryPaging sets how many categories one read gets (categoryPage)
// and how many are listed at most (maxCategoryOptions), for a test; the
// function returned restores them.
func SetCategoryPaging(page, most int) func() {
	oldPage, oldMost := categoryPage, maxCategoryOptions
	categoryPage, maxCategoryOptions = page, most
	return func() { categoryPage, maxCategoryOptions = oldPage, oldMost }
}

// ErrorSentence is the sentence of an error code with its data (JSON
// text), for a test.
func ErrorSentence(code, data string) string {
	var d any
	if data != "" {
		dec := json.NewDecoder(strings.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&d); err != nil {
			panic(err)
		}
	}
	return errorSentence(code, d, nil)
}

// HasSentence reports whether the code has a sentence of its own.
func HasSentence(code string) bool {
	_, ok := errorSentences[code]
	return ok
}

// Readable is a validation problem ("path: message") as shown next to
// its field, for a test.
func Readable(problem string) string {
	p := formSpec{}.problem(problem)
	return p.Label + ": " + p.Text
}

// BuildRule and BuildRates are the pickers' JSON writers, for a test.
var BuildRule = buildRule

// BuildRates writes the rows (country, state, currency, amount each) as
// rate groups.
func BuildRates(rows ...[4]string) string {
	var rs []rateRow
	for _, r := range rows {
		rs = append(rs, rateRow{r[0], r[1], r[2], r[3]})
	}
	return buildRates(rs)
}
