package commerce

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestStringList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want StringList
		ok   bool
	}{
		{`"a, b,,c"`, StringList{"a", "b", "c"}, true},
		{`["a"," b ",""]`, StringList{"a", "b"}, true},
		{`[1, "x"]`, StringList{"1", "x"}, true},
		{`7`, StringList{"7"}, true},
		{`null`, nil, true},
		{`{"a":1}`, nil, false},
		{`[{"a":1}]`, nil, false},
	} {
		var got StringList
		err := json.Unmarshal([]byte(tc.in), &got)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestProject(t *testing.T) {
	v := map[string]any{"id": "x", "title": "T", "price": 1, "other": true}
	got, err := Project(v, []string{"title", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if string(b) != `{"id":"x","title":"T"}` {
		t.Errorf("got %s", b)
	}
	if same, _ := Project(v, nil); same == nil {
		t.Error("no fields: want the record itself")
	}
}

// A value that cannot be projected is internal_error with its cause.
func TestProjectKeepsTheCause(t *testing.T) {
	_, err := Project(map[string]any{"id": make(chan int)}, []string{"id"})
	var ue *json.UnsupportedTypeError
	var ce *Error
	if !errors.As(err, &ce) || ce.Code != EInternal || !errors.As(err, &ue) {
		t.Errorf("got %v, want an internal_error *Error caused by *json.UnsupportedTypeError", err)
	}
}

func TestIsNull(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{"", true}, {"null", true}, {" \n null\t", true},
		{`"null"`, false}, {"0", false}, {"{}", false}, {"[]", false}, {"nullx", false},
	} {
		if got := IsNull([]byte(tc.raw)); got != tc.want {
			t.Errorf("IsNull(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
