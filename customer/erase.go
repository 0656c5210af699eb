package customer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/commercekit/commerce/order"
)

// Eraser rewrites a JSON document without its personal data and reports
// whether it changed it (ErasePersonal).
type Eraser func(doc []byte) ([]byte, bool, error)

// PersonalFields are the fields of a JSON document (an event's payload, a
// stored answer) that hold a person's data, wherever they appear in it:
// the account's email, names and phone, an address's fields but its
// country and state (docs/api.md sections 15 and 29: the same fields as an
// erased order's), and a message's recipient (`to`, MAILS events).
// ErasePersonal replaces their values with "[erased]".
var PersonalFields = map[string]bool{
	"email": true, "firstName": true, "lastName": true, "phone": true,
	"company": true, "address_1": true, "address_2": true, "postCode": true,
	"city": true, "instructions": true, "to": true,
}

// ErasePersonal returns the JSON document doc with the value of every
// field named in PersonalFields, at any depth, replaced by "[erased]"
// (order.Erased), and whether it changed anything. The document keeps its
// shape: the same keys in the same order, the same values elsewhere; a
// field that is null or an empty string stays so (there is nothing to
// erase). A document that is not JSON is an error.
func ErasePersonal(doc []byte) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(doc))
	changed, err := eraseValue(dec, &out, false)
	if err != nil {
		return nil, false, fmt.Errorf("erase personal data: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false, errors.New("erase personal data: more than one JSON value")
	}
	return out.Bytes(), changed, nil
}

// erasedJSON is order.Erased as a JSON string.
var erasedJSON = []byte(`"` + order.Erased + `"`)

// eraseValue copies the next JSON value of dec to out, erased when erase
// is set (it is a personal field's value), and reports whether it changed.
func eraseValue(dec *json.Decoder, out *bytes.Buffer, erase bool) (bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if erase {
			if err := skip(dec); err != nil {
				return false, err
			}
			out.Write(erasedJSON)
			return true, nil
		}
		return eraseContainer(dec, out, t)
	case string:
		if erase && t != "" && t != order.Erased {
			out.Write(erasedJSON)
			return true, nil
		}
		return false, writeJSON(out, t)
	case json.Number:
		if erase {
			out.Write(erasedJSON)
			return true, nil
		}
		out.WriteString(t.String())
	case bool:
		return false, writeJSON(out, t)
	case nil:
		out.WriteString("null")
	}
	return false, nil
}

// eraseContainer copies the object or array opened by open, erasing the
// personal fields in it.
func eraseContainer(dec *json.Decoder, out *bytes.Buffer, open json.Delim) (bool, error) {
	changed := false
	if open == '{' {
		out.WriteByte('{')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			key, err := dec.Token()
			if err != nil {
				return false, err
			}
			k, _ := key.(string)
			if err := writeJSON(out, k); err != nil {
				return false, err
			}
			out.WriteByte(':')
			c, err := eraseValue(dec, out, PersonalFields[k])
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		out.WriteByte('}')
	} else {
		out.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			c, err := eraseValue(dec, out, false)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		out.WriteByte(']')
	}
	_, err := dec.Token() // the closing delimiter
	return changed, err
}

// skip reads the rest of an object or array whose opening delimiter was
// read.
func skip(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// writeJSON writes v encoded as JSON (a string or a Boolean), as
// encoding/json writes it.
func writeJSON(out *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	out.Write(b)
	return nil
}

// eraseRecords erases the personal data the store keeps of the customer
// beyond its account, orders and carts, in the removal's transaction
// (docs/api.md section 29): the payloads of the events about the customer,
// owned by its id or one of its carts' (Event.Owner). (The stored answers
// of idempotent requests need nothing: they are sealed with a key only
// the client holds, and expire after 24 hours.)
func eraseRecords(ctx context.Context, tx Tx, customerID string, cartIDs []string) error {
	_, err := tx.EraseEvents(ctx, append([]string{customerID}, cartIDs...), ErasePersonal)
	return err
}
