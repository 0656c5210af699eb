package catalog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
)

// classificationDefs converts classification definitions as given,
// checking that each has an id, a description, a type of STRING, BOOLEAN or
// NUMBER and mandatory, and that ids are unique; it adds the problems to ps.
func classificationDefs(in []ClassificationDefInput, ps *commerce.Problems) []ClassificationDef {
	out := make([]ClassificationDef, 0, len(in))
	seen := map[string]bool{}
	for i, d := range in {
		path := commerce.Index("classifications", i)
		var def ClassificationDef
		switch {
		case d.ID == nil || blank(*d.ID):
			ps.Add(path+".id", "required")
		case seen[*d.ID]:
			ps.Add(path+".id", "duplicate classification %q", *d.ID)
		default:
			def.ID = *d.ID
			seen[def.ID] = true
		}
		if d.Description == nil {
			ps.Add(path+".description", "required")
		} else {
			def.Description = *d.Description
		}
		if d.Type == nil {
			ps.Add(path+".type", "required")
		} else if t := *d.Type; t != TypeString && t != TypeBoolean && t != TypeNumber {
			ps.Add(path+".type", "must be STRING, BOOLEAN or NUMBER")
		} else {
			def.Type = t
		}
		if d.Mandatory == nil {
			ps.Add(path+".mandatory", "required")
		} else {
			def.Mandatory = *d.Mandatory
		}
		out = append(out, def)
	}
	return out
}

// effectiveDefs merges the classification definitions that apply to a
// product: those of each of its categories and all their ancestors. When
// two categories define the same id, the first found wins for the type
// (the product's categories in order, each from itself up to ROOT), and
// the classification is mandatory if any of them says so. cats must hold
// every category on the paths. The result is in the order found.
func effectiveDefs(categories []string, cats map[string]*Category) []ClassificationDef {
	var out []ClassificationDef
	index := map[string]int{}
	for _, id := range categories {
		c := cats[id]
		if c == nil {
			continue
		}
		path := strings.Split(c.Path, ".")
		for j := len(path) - 1; j >= 0; j-- {
			a := cats[path[j]]
			if a == nil {
				continue
			}
			for _, d := range a.Classifications {
				if k, ok := index[d.ID]; ok {
					out[k].Mandatory = out[k].Mandatory || d.Mandatory
					continue
				}
				index[d.ID] = len(out)
				out = append(out, d)
			}
		}
	}
	return out
}

// jsonNumber is the grammar of a JSON number, which a NUMBER value given
// as a string must follow (strconv alone would take "0x10" or "Inf").
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// normalizeClassifications checks a product's classification values
// against the definitions that apply to it and returns them normalised
// (NUMBER as numbers, BOOLEAN as booleans, STRING as strings), in the order
// given, without the optional ones given empty. Errors: a value for an id
// no definition names (validation_error), then per definition in order:
// missing_classification, empty_classification_value,
// classification_value_not_a_boolean, classification_value_not_a_number
// (data: the classification id), and validation_error for an object or a
// list given for a STRING.
func normalizeClassifications(values []ClassificationValue, defs []ClassificationDef) ([]ClassificationValue, error) {
	byID := make(map[string]ClassificationDef, len(defs))
	for _, d := range defs {
		byID[d.ID] = d
	}
	var ps commerce.Problems
	given := make(map[string]int, len(values))
	for i, v := range values {
		if _, ok := byID[v.ID]; !ok {
			ps.Add(commerce.Index("classifications", i)+".id", "no category of the product (or their ancestors) defines classification %q", v.ID)
		}
		given[v.ID] = i
	}
	if err := ps.Err(); err != nil {
		return nil, err
	}
	norm := make([]Literal, len(values))
	for _, d := range defs {
		i, ok := given[d.ID]
		if !ok {
			if d.Mandatory {
				return nil, commerce.NewError(commerce.EMissingClassification, d.ID)
			}
			continue
		}
		v := values[i].Value
		if v.Blank() {
			if d.Mandatory {
				return nil, commerce.NewError(commerce.EEmptyClassificationValue, d.ID)
			}
			continue // an optional classification given empty is absent
		}
		n, err := normalizeValue(v, d, i)
		if err != nil {
			return nil, err
		}
		norm[i] = n
	}
	out := make([]ClassificationValue, 0, len(values))
	for i, v := range values {
		if !norm[i].IsZero() {
			out = append(out, ClassificationValue{ID: v.ID, Value: norm[i]})
		}
	}
	return out, nil
}

// normalizeValue converts the non-empty value v (classifications[i]) to
// the type of its definition d.
func normalizeValue(v Literal, d ClassificationDef, i int) (Literal, error) {
	text := strings.TrimSpace(v.Text())
	switch d.Type {
	case TypeBoolean:
		if v.Kind() == KindBool || v.Kind() == KindString {
			switch {
			case strings.EqualFold(text, "true"):
				return BoolLiteral(true), nil
			case strings.EqualFold(text, "false"):
				return BoolLiteral(false), nil
			}
		}
		return Literal{}, commerce.NewError(commerce.EClassificationValueNotBoolean, d.ID)
	case TypeNumber:
		if v.Kind() != KindNumber && v.Kind() != KindString || !jsonNumber.MatchString(text) {
			return Literal{}, commerce.NewError(commerce.EClassificationValueNotNumber, d.ID)
		}
		if _, err := strconv.ParseFloat(text, 64); err != nil {
			return Literal{}, commerce.NewError(commerce.EClassificationValueNotNumber, d.ID)
		}
		return NumberLiteral(text), nil
	default: // STRING: numbers and booleans are taken as their text
		if v.Kind() == KindComposite {
			return Literal{}, commerce.Invalid(commerce.Index("classifications", i) + ".value: must be a string")
		}
		return StringLiteral(v.Text()), nil
	}
}
