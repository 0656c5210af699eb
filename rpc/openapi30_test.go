package rpc

import (
	"encoding/json"
	"testing"
)

// TestSchema30 checks the rewriting of 3.1 schemas into 3.0.3 ones, case
// by case: what the generator writes for optional fields, lists of types,
// constants and described references.
func TestSchema30(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"optional string", `{"type":["string","null"],"pattern":"^a$"}`, `{"nullable":true,"pattern":"^a$","type":"string"}`},
		{"optional enum", `{"type":["string","null"],"enum":["A",null]}`, `{"enum":["A",null],"nullable":true,"type":"string"}`},
		{"two types", `{"type":["string","number"]}`, `{"anyOf":[{"type":"string"},{"type":"number"}]}`},
		{"two types or null", `{"type":["string","number","null"]}`, `{"anyOf":[{"type":"string"},{"type":"number"}],"nullable":true}`},
		{"optional reference", `{"anyOf":[{"$ref":"#/c/X"},{"type":"null"}]}`, `{"allOf":[{"$ref":"#/c/X"}],"nullable":true}`},
		{"optional described reference", `{"anyOf":[{"$ref":"#/c/X"},{"type":"null"}],"description":"d"}`,
			`{"allOf":[{"$ref":"#/c/X"}],"description":"d","nullable":true}`},
		{"optional inline", `{"anyOf":[{"type":"array","items":{"type":["integer","null"]}},{"type":"null"}]}`,
			`{"items":{"nullable":true,"type":"integer"},"nullable":true,"type":"array"}`},
		{"one of several or null", `{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}},{"type":"null"}]}`,
			`{"anyOf":[{"type":"string"},{"items":{"type":"string"},"type":"array"}],"nullable":true}`},
		{"const true", `{"const":true}`, `{"enum":[true],"type":"boolean"}`},
		{"const string", `{"const":"x","description":"d"}`, `{"description":"d","enum":["x"],"type":"string"}`},
		{"described reference", `{"$ref":"#/c/X","description":"d"}`, `{"allOf":[{"$ref":"#/c/X"}],"description":"d"}`},
		{"bare reference", `{"$ref":"#/c/X"}`, `{"$ref":"#/c/X"}`},
		{"nested properties", `{"type":"object","properties":{"type":{"type":["string","null"]},"ok":{"const":false}},"additionalProperties":{"type":["number","null"]}}`,
			`{"additionalProperties":{"nullable":true,"type":"number"},"properties":{"ok":{"enum":[false],"type":"boolean"},"type":{"nullable":true,"type":"string"}},"type":"object"}`},
		{"allOf kept", `{"allOf":[{"type":"object"},{"$ref":"#/c/X"}]}`, `{"allOf":[{"type":"object"},{"$ref":"#/c/X"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(schema30(in))
			if string(got) != tc.want {
				t.Errorf("schema30(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestTo30 checks the document-level rewriting: the version, and the
// schemas of components, parameters and bodies, but not objects that only
// look like schemas (a property named "type" in a components map).
func TestTo30(t *testing.T) {
	in := `{"openapi":"3.1.0","info":{"description":"D."},
		"paths":{"/x":{"get":{"parameters":[{"name":"a","in":"query","schema":{"type":["integer","null"]}}],
			"responses":{"200":{"description":"ok","headers":{"H":{"schema":{"const":"true"}}},
				"content":{"application/json":{"schema":{"$ref":"#/components/schemas/type"}}}}}}}},
		"components":{"schemas":{"type":{"type":"object","properties":{"const":{"type":["string","null"]}}}}}}`
	var d map[string]any
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(to30(d))
	want := `{"components":{"schemas":{"type":{"properties":{"const":{"nullable":true,"type":"string"}},"type":"object"}}},` +
		`"info":{"description":"D. This is the OpenAPI 3.0.3 rendering of /openapi.json (OpenAPI 3.1), for generators that read 3.0 only: JSON null is ` + "`nullable: true`" + `, a constant a one-value enum."},` +
		`"openapi":"3.0.3","paths":{"/x":{"get":{"parameters":[{"in":"query","name":"a","schema":{"nullable":true,"type":"integer"}}],` +
		`"responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/type"}}},"description":"ok","headers":{"H":{"schema":{"enum":["true"],"type":"string"}}}}}}}}}`
	if string(got) != want {
		t.Errorf("to30\n got %s\nwant %s", got, want)
	}
}

// TestHoistListEnums: the enum of a list alternative moves to a component
// named after its property (oapi-codegen names the list and its inline
// items alike and fails on the duplicate); a plain list keeps its items.
func TestHoistListEnums(t *testing.T) {
	in := `{"order.ListInput":{"type":"object","properties":{
		"status":{"anyOf":[{"type":"array","items":{"type":"string","enum":["A","B"]}},{"type":"string"},{"type":"null"}]},
		"ids":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"string"}]}}},
		"order.ListInput.statusValue":{"type":"integer"}}`
	var schemas map[string]any
	if err := json.Unmarshal([]byte(in), &schemas); err != nil {
		t.Fatal(err)
	}
	hoistListEnums(schemas)
	got, _ := json.Marshal(schemas)
	want := `{"order.ListInput":{"properties":{"ids":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"string"}]},` +
		`"status":{"anyOf":[{"items":{"$ref":"#/components/schemas/order.ListInput.statusValue2"},"type":"array"},{"type":"string"},{"type":"null"}]}},"type":"object"},` +
		`"order.ListInput.statusValue":{"type":"integer"},"order.ListInput.statusValue2":{"enum":["A","B"],"type":"string"}}`
	if string(got) != want {
		t.Errorf("hoistListEnums\n got %s\nwant %s", got, want)
	}
}
