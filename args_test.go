package commerce_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

type argsInner struct {
	Name string `json:"name" openapi:"trim"`
	Note string `json:"note"`
}

type argsInput struct {
	ID        string          `json:"id" openapi:"required"`
	Title     string          `json:"title" openapi:"required,trim"`
	Count     *int            `json:"count" openapi:"required,min=1"`
	Items     []int           `json:"items" openapi:"required,minItems=1"`
	Pair      []int           `json:"pair" openapi:"minItems=2"`
	Data      json.RawMessage `json:"data" openapi:"required"`
	Enum      string          `json:"enum" openapi:"enum=A|B"`
	argsInner `openapi:"name:required note:required"`
}

// TestCheckArgs: the presence rules of the openapi tags are checked in the
// fields' order, promoted fields with the rules of the embedding tag;
// value rules (min, enum) are the services' to check.
func TestCheckArgs(t *testing.T) {
	one := 1
	full := argsInput{ID: "x", Title: "t", Count: &one, Items: []int{1}, Pair: []int{1, 2}, Data: json.RawMessage(`{}`),
		argsInner: argsInner{Name: "n", Note: "o"}}
	for _, tc := range []struct {
		name string
		in   func(in *argsInput)
		want []string
	}{
		{"all given", func(*argsInput) {}, nil},
		{"nothing given", func(in *argsInput) { *in = argsInput{} }, []string{"p.id: required", "p.title: required", "p.count: required",
			"p.items: must list at least one item", "p.pair: must list at least 2 items", "p.data: required", "p.name: required", "p.note: required"}},
		{"blank text with trim", func(in *argsInput) { in.Title, in.Name, in.ID = " \t", " ", " " }, []string{"p.title: required", "p.name: required"}},
		{"JSON null", func(in *argsInput) { in.Data = json.RawMessage(" null ") }, []string{"p.data: required"}},
		{"empty list", func(in *argsInput) { in.Items, in.Pair = []int{}, []int{1} }, []string{"p.items: must list at least one item", "p.pair: must list at least 2 items"}},
		{"value rules left to the service", func(in *argsInput) { zero := 0; in.Count, in.Enum = &zero, "C" }, nil},
	} {
		in := full
		tc.in(&in)
		var p commerce.Problems
		p.CheckArgs("p", &in)
		if !slices.Equal([]string(p), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, p, tc.want)
		}
	}
	if err := commerce.CheckArgs(argsInput{}); commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("CheckArgs of nothing: %v, want validation_error", err)
	}
	if err := commerce.CheckArgs(full); err != nil {
		t.Errorf("CheckArgs of everything: %v", err)
	}
	if err := commerce.CheckArgs((*argsInput)(nil)); err != nil {
		t.Errorf("CheckArgs(nil): %v", err)
	}
}
