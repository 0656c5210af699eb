package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"testing"
)

func encoded(t *testing.T, f func(*bytes.Buffer, image.Image) error) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 30, 20))
	for y := range 20 {
		for x := range 30 {
			img.Set(x, y, color.RGBA{uint8(x * 8), uint8(y * 12), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := f(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestProcessFormats: each format is sniffed from its content and kept
// in it, with its size.
func TestProcessFormats(t *testing.T) {
	pngData := encoded(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) })
	for _, c := range []struct {
		name, ext string
		data      []byte
	}{
		{"jpeg", "jpg", encoded(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) })},
		{"png", "png", pngData},
		{"gif", "gif", encoded(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) })},
	} {
		p, err := Limits{}.Process(c.data)
		if err != nil || p.Ext != c.ext || p.Width != 30 || p.Height != 20 || Sniff(p.Data) != c.ext {
			t.Errorf("%s: %+v %v", c.name, p, err)
		}
	}
}

// TestStripWebP: the EXIF and XMP chunks of a WebP go, with their VP8X
// flags, and the RIFF size follows; other chunks stay as they were.
func TestStripWebP(t *testing.T) {
	chunk := func(fourcc string, data []byte) []byte {
		c := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
		c = append(c, data...)
		if len(data)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	var body []byte
	body = append(body, chunk("VP8X", []byte{0x08 | 0x04 | 0x10, 0, 0, 0, 9, 0, 0, 9, 0, 0})...)
	body = append(body, chunk("VP8L", []byte{1, 2, 3})...)
	body = append(body, chunk("EXIF", []byte("GPS 40N 3W"))...)
	body = append(body, chunk("XMP ", []byte("<x:xmpmeta/>"))...)
	file := append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(body)))...), "WEBP"...)
	file = append(file, body...)
	out, err := stripWebP(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("EXIF")) || bytes.Contains(out, []byte("GPS")) || bytes.Contains(out, []byte("xmpmeta")) {
		t.Errorf("metadata left: %q", out)
	}
	if out[20] != 0x10 {
		t.Errorf("VP8X flags %#x, want only alpha (0x10)", out[20])
	}
	if n := binary.LittleEndian.Uint32(out[4:8]); int(n) != len(out)-8 || !bytes.Contains(out, chunk("VP8L", []byte{1, 2, 3})) {
		t.Errorf("RIFF size %d for %d bytes, or the image chunk changed", n, len(out))
	}
	if _, err := stripWebP(file[:len(file)-30]); err == nil {
		t.Error("a truncated WebP: no error")
	}
}

// TestProcessNeverPanics: mutated and truncated images are refused or
// accepted, never a panic.
func TestProcessNeverPanics(t *testing.T) {
	seeds := [][]byte{
		encoded(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }),
		encoded(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }),
		encoded(t, func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) }),
		append([]byte("RIFF\x20\x00\x00\x00WEBPVP8X"), make([]byte, 30)...),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 600 {
		b := bytes.Clone(seeds[i%len(seeds)])
		for range 1 + r.IntN(6) {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		if r.IntN(3) == 0 {
			b = b[:r.IntN(len(b))]
		}
		if p, err := (Limits{}).Process(b); err == nil && (p.Width <= 0 || len(p.Data) == 0) {
			t.Errorf("accepted with nothing to store: %+v", p)
		}
		_ = jpegOrientation(b)
	}
}
