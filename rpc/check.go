package rpc

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/commercekit/commerce"
)

var checkerType = reflect.TypeFor[commerce.Checker]()

// checkValues calls Check on every value in the decoded arguments dst whose
// type implements commerce.Checker (commerce.Pattern first of all), at any
// depth, and reports every non-empty answer as one validation_error naming
// the field paths ("items[2].pattern: must be ..."). Nil pointers are
// absent and not checked; any other value is, zero values included (a
// Checker's zero value must pass its own check).
func checkValues(dst any) error {
	v := reflect.ValueOf(dst)
	if !v.IsValid() || !mayHoldChecker(v.Type()) {
		return nil
	}
	var p commerce.Problems
	checkValue(v, "", &p)
	return p.Err()
}

var checkerTypes sync.Map // reflect.Type -> bool

// mayHoldChecker reports whether a value of type t can hold a Checker, so
// that arguments without any are not walked at all.
func mayHoldChecker(t reflect.Type) bool {
	if b, ok := checkerTypes.Load(t); ok {
		return b.(bool)
	}
	b := holdsChecker(t, map[reflect.Type]bool{})
	checkerTypes.Store(t, b)
	return b
}

func holdsChecker(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // a recursive type: its other fields decide
	}
	seen[t] = true
	if t.Implements(checkerType) || reflect.PointerTo(t).Implements(checkerType) {
		return true
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsChecker(t.Elem(), seen)
	case reflect.Map:
		return holdsChecker(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsChecker(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

func checkValue(v reflect.Value, path string, p *commerce.Problems) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		checkValue(v.Elem(), path, p)
		return
	}
	if !mayHoldChecker(v.Type()) {
		return
	}
	var c commerce.Checker
	if v.CanAddr() && v.Addr().Type().Implements(checkerType) {
		c = v.Addr().Interface().(commerce.Checker)
	} else if v.Type().Implements(checkerType) && v.CanInterface() {
		c = v.Interface().(commerce.Checker)
	}
	if c != nil {
		if msg := c.Check(); msg != "" {
			p.Add(fieldPath(path), "%s", msg)
		}
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if !mayHoldChecker(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			checkValue(v.Index(i), commerce.Index(path, i), p)
		}
	case reflect.Map:
		if !mayHoldChecker(v.Type().Elem()) {
			return
		}
		type entry struct {
			name string
			key  reflect.Value
		}
		entries := make([]entry, 0, v.Len())
		for _, k := range v.MapKeys() {
			entries = append(entries, entry{fmt.Sprint(k.Interface()), k})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
		for _, en := range entries {
			// Map values are not addressable: a copy is checked.
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(en.key))
			checkValue(e, joinPath(path, en.name), p)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || !mayHoldChecker(sf.Type) {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case sf.Anonymous && name == "":
				checkValue(v.Field(i), path, p) // embedded: its fields are the parent's
				continue
			case name == "":
				name = sf.Name
			}
			checkValue(v.Field(i), joinPath(path, name), p)
		}
	}
}
