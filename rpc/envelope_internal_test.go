package rpc

import (
	"bytes"
	"net/http/httptest"
	"strconv"
	"testing"
)

// TestWriteRaw: an answer of one raw field (a cart, a product) is written
// in pieces, byte for byte the envelope, with its Content-Length (so not
// in chunks), also through the Recorder of an Idempotency-Key run.
func TestWriteRaw(t *testing.T) {
	rf := RawField{Name: "cart", JSON: []byte(`{"id":"c1","items":[` + string(bytes.Repeat([]byte(`{"q":1},`), 1000)) + `{"q":2}]}`)}
	want, err := envelope(rf)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	rec := &Recorder{ResponseWriter: w}
	writeRaw(rec, rf)
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) || !bytes.Equal(rec.Body.Bytes(), want) {
		t.Fatalf("status %d, body %.80q (recorded %.80q), want 200 and %.80q", w.Code, w.Body.Bytes(), rec.Body.Bytes(), want)
	}
	if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
		t.Errorf("Content-Length %q, want %d", got, len(want))
	}
	if got := w.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
}
