package rpc

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// Document30 returns the OpenAPI 3.0.3 rendering of Document (GET
// /openapi-3.0.json), for the generators that read 3.0 only (oapi-codegen,
// the most used Go one, fails on 3.1's type arrays): the same paths,
// operations and schemas, with the JSON Schema of 3.1 written in 3.0's
// dialect (to30). Built once, like Document.
func (s *Server) Document30() []byte {
	s.doc30Once.Do(func() {
		var d map[string]any
		if err := json.Unmarshal(s.Document(), &d); err != nil {
			panic("rpc: the OpenAPI document does not unmarshal: " + err.Error())
		}
		b, err := json.MarshalIndent(to30(d), "", "  ")
		if err != nil {
			panic("rpc: the OpenAPI 3.0 document does not marshal: " + err.Error())
		}
		s.doc30 = append(b, '\n')
	})
	return s.doc30
}

// to30 rewrites a decoded OpenAPI 3.1 document as 3.0.3, in place: the
// version, a sentence in info.description, and every schema (schema30).
func to30(d map[string]any) map[string]any {
	d["openapi"] = "3.0.3"
	if info, ok := d["info"].(map[string]any); ok {
		desc, _ := info["description"].(string)
		info["description"] = desc + " This is the OpenAPI 3.0.3 rendering of /openapi.json (OpenAPI 3.1), " +
			"for generators that read 3.0 only: JSON null is `nullable: true`, a constant a one-value enum."
	}
	if comps, ok := d["components"].(map[string]any); ok {
		if schemas, ok := comps["schemas"].(map[string]any); ok {
			hoistListEnums(schemas)
		}
	}
	walk30(d)
	return d
}

// hoistListEnums moves the enum that the items of a list alternative hold
// (a commerce.StringList of enum values: anyOf a list of them or a
// comma-separated string) into a component of its own, named after the
// property ("order.ListInput.statusValue"): oapi-codegen names both the
// list and its inline items after the property and fails on the
// duplicate name.
func hoistListEnums(schemas map[string]any) {
	added := map[string]any{}
	var visit func(where string, s map[string]any)
	visit = func(where string, s map[string]any) {
		if props, ok := s["properties"].(map[string]any); ok {
			for _, p := range slices.Sorted(maps.Keys(props)) {
				if ps, ok := props[p].(map[string]any); ok {
					visit(where+"."+p, ps)
				}
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			visit(where+"Item", items)
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			for _, a := range asList(s[k]) {
				am, ok := a.(map[string]any)
				if !ok {
					continue
				}
				items, _ := am["items"].(map[string]any)
				if _, enum := items["enum"]; am["type"] == "array" && enum {
					name := where + "Value"
					for i := 2; schemas[name] != nil || added[name] != nil; i++ {
						name = where + "Value" + strconv.Itoa(i)
					}
					added[name] = items
					am["items"] = map[string]any{"$ref": "#/components/schemas/" + name}
				}
				visit(where, am)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		if s, ok := schemas[name].(map[string]any); ok {
			visit(name, s)
		}
	}
	maps.Copy(schemas, added)
}

// walk30 converts the schemas found in a part of the document that is not
// a schema: the values of "schema" (parameters, media types, headers) and
// of components.schemas.
func walk30(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch k {
			case "schema":
				if s, ok := e.(map[string]any); ok {
					x[k] = schema30(s)
					continue
				}
			case "schemas":
				if m, ok := e.(map[string]any); ok {
					for name, s := range m {
						if sm, ok := s.(map[string]any); ok {
							m[name] = schema30(sm)
						}
					}
					continue
				}
			}
			walk30(e)
		}
	case []any:
		for _, e := range x {
			walk30(e)
		}
	}
}

// schema30 returns the 3.0 form of a 3.1 schema (JSON Schema 2020-12 as
// the generator writes it):
//   - a type list: its one non-null type, or anyOf the types; "null" in it
//     becomes nullable: true;
//   - anyOf an alternative and {"type": "null"} (an optional field): the
//     alternative with nullable: true (a $ref as allOf [$ref], since 3.0
//     ignores a $ref's siblings);
//   - const: an enum of the one value, typed;
//   - a $ref with siblings (a description): allOf [$ref] beside them.
func schema30(s map[string]any) map[string]any {
	for _, k := range []string{"items", "not"} {
		if sub, ok := s[k].(map[string]any); ok {
			s[k] = schema30(sub)
		}
	}
	if sub, ok := s["additionalProperties"].(map[string]any); ok {
		s["additionalProperties"] = schema30(sub)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			if pm, ok := p.(map[string]any); ok {
				props[name] = schema30(pm)
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		alts, ok := s[k].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, a := range alts {
			am, ok := a.(map[string]any)
			if !ok {
				kept = append(kept, a)
				continue
			}
			if len(am) == 1 && am["type"] == "null" {
				s["nullable"] = true
				continue
			}
			kept = append(kept, schema30(am))
		}
		if len(kept) == 1 && k != "allOf" {
			delete(s, k)
			one := kept[0].(map[string]any)
			if _, isRef := one["$ref"]; isRef || overlaps(s, one) {
				s["allOf"] = []any{one}
			} else {
				maps.Copy(s, one)
			}
			continue
		}
		s[k] = kept
	}
	if types, ok := s["type"].([]any); ok {
		var real []any
		for _, t := range types {
			if t == "null" {
				s["nullable"] = true
			} else {
				real = append(real, t)
			}
		}
		delete(s, "type")
		switch len(real) {
		case 0:
		case 1:
			s["type"] = real[0]
		default:
			var alts []any
			for _, t := range real {
				alts = append(alts, map[string]any{"type": t})
			}
			s["anyOf"] = alts
		}
	}
	if c, ok := s["const"]; ok {
		delete(s, "const")
		s["enum"] = []any{c}
		if _, typed := s["type"]; !typed {
			switch c.(type) {
			case bool:
				s["type"] = "boolean"
			case string:
				s["type"] = "string"
			case float64:
				s["type"] = "number"
			}
		}
	}
	if r, ok := s["$ref"]; ok && len(s) > 1 {
		delete(s, "$ref")
		s["allOf"] = append([]any{map[string]any{"$ref": r}}, asList(s["allOf"])...)
	}
	return s
}

// overlaps reports whether two schemas share a keyword (other than
// nullable), so that one cannot be merged into the other.
func overlaps(a, b map[string]any) bool {
	return slices.ContainsFunc(slices.Collect(maps.Keys(b)), func(k string) bool {
		_, ok := a[k]
		return ok && k != "nullable"
	})
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
