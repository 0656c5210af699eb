package catalog

import (
	"encoding/json"
	"testing"
)

func TestLiteral(t *testing.T) {
	tests := []struct {
		name, in    string
		kind        Kind
		text        string
		blank, null bool
		out         string // MarshalJSON
	}{
		{"string", `"A+"`, KindString, "A+", false, false, `"A+"`},
		{"blank string", `"  "`, KindString, "  ", true, false, `"  "`},
		{"escaped string", `"caf\u00e9 \"x\""`, KindString, `café "x"`, false, false, `"café \"x\""`},
		{"number keeps its literal", ` 0.10 `, KindNumber, "0.10", false, false, `0.10`},
		{"exponent", `-1.5e2`, KindNumber, "-1.5e2", false, false, `-1.5e2`},
		{"huge", `1e400`, KindNumber, "1e400", false, false, `1e400`},
		{"true", `true`, KindBool, "true", false, false, `true`},
		{"false", `false`, KindBool, "false", false, false, `false`},
		{"null", `null`, KindNull, "", true, true, `null`},
		{"object, compacted", `{ "a" : [1, 2] }`, KindComposite, `{"a":[1,2]}`, false, false, `{"a":[1,2]}`},
		{"list", `[]`, KindComposite, `[]`, false, false, `[]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l Literal
			if err := json.Unmarshal([]byte(tc.in), &l); err != nil {
				t.Fatal(err)
			}
			if l.Kind() != tc.kind || l.Text() != tc.text {
				t.Errorf("got kind %d text %q, want %d %q", l.Kind(), l.Text(), tc.kind, tc.text)
			}
			if l.Blank() != tc.blank || l.IsNull() != tc.null || l.IsZero() {
				t.Errorf("blank %v null %v zero %v, want %v %v false", l.Blank(), l.IsNull(), l.IsZero(), tc.blank, tc.null)
			}
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.out {
				t.Errorf("marshal: got %s, want %s", b, tc.out)
			}
		})
	}
	t.Run("absent is zero, left out with omitzero, null otherwise", func(t *testing.T) {
		var v ClassificationValue
		if err := json.Unmarshal([]byte(`{"id": "a"}`), &v); err != nil {
			t.Fatal(err)
		}
		if !v.Value.IsZero() || !v.Value.IsNull() || !v.Value.Blank() {
			t.Errorf("absent value: %+v", v.Value)
		}
		b, _ := json.Marshal(v)
		if string(b) != `{"id":"a"}` {
			t.Errorf("got %s, want the value left out", b)
		}
		b, _ = json.Marshal(Literal{})
		if string(b) != `null` {
			t.Errorf("got %s, want null", b)
		}
	})
	t.Run("invalid JSON is an error", func(t *testing.T) {
		var l Literal
		if err := l.UnmarshalJSON([]byte(`{`)); err == nil {
			t.Errorf("got %+v, want an error", l)
		}
	})
}
