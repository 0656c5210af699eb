package cart

import (
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// TestCloneShares: a clone shares no memory with its cart, whatever field
// holds it. Every field of a cart is filled (pointers set, slices of two
// elements, recursively, unexported fields too), so that a field added
// later and forgotten by clone fails here.
func TestCloneShares(t *testing.T) {
	c := &Cart{}
	fill(reflect.ValueOf(c).Elem(), 0)
	if len(c.Items) == 0 || c.Items[0].Reserves == nil || c.exhausted == nil || c.Payment == nil || c.Payment.Data == nil {
		t.Fatal("fill left fields empty")
	}
	d := c.clone()
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("the clone differs from the cart")
	}
	shared(t, "Cart", reflect.ValueOf(c).Elem(), reflect.ValueOf(d).Elem())

	// nil and empty slices stay as they were.
	e := (&Cart{Items: []*Entry{{Reserves: nil, Discounts: []Discount{}}}}).clone()
	if e.Items[0].Reserves != nil || e.Items[0].Discounts == nil {
		t.Errorf("nil and empty slices changed: reserves %#v discounts %#v", e.Items[0].Reserves, e.Items[0].Discounts)
	}
}

var timeType = reflect.TypeFor[time.Time]()

// settable returns v, made settable when it is an unexported field.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func fill(v reflect.Value, depth int) {
	v = settable(v)
	if v.Type() == timeType {
		v.Set(reflect.ValueOf(time.Unix(1_800_000_000, 0).UTC()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint('1')
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), depth+1)
		}
	}
}

func shared(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	if a.Type() == timeType {
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the pointer", path)
			return
		}
		shared(t, path, a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Cap() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the slice", path)
			return
		}
		for i := range a.Len() {
			shared(t, path+"[]", a.Index(i), b.Index(i))
		}
	case reflect.Map:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the map", path)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			shared(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	}
}
