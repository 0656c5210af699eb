package media_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
)

// shop is a running service keeping its images in memory, with a
// product.
type shop struct {
	*apitest.Server
	blobs   *media.Memory
	product string
}

func newShop(t *testing.T, db *sqldb.DB, opts ...func(*app.Options)) *shop {
	t.Helper()
	blobs := media.NewMemory()
	s := &shop{blobs: blobs}
	s.Server = apitest.New(t, db, append([]func(*app.Options){func(o *app.Options) { o.MediaBlobs = blobs }}, opts...)...)
	var cat, prod struct{ ID string }
	s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	s.Post(t, "/catalog/v1/product.create", s.Admin, map[string]any{"sku": "F1", "status": "ONLINE", "title": "Fridge", "brand": "Acme",
		"categories": []string{cat.ID}, "stockStatus": 0,
		"prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}}).
		Must(t).Decode(t, "product", &prod)
	s.product = prod.ID
	return s
}

// upload posts a multipart form with the file (named name) and fields.
func (s *shop) upload(t *testing.T, token, name string, file []byte, fields map[string]string) apitest.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if file != nil {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(file)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/catalog/v1/media.upload", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := apitest.Response{Status: res.StatusCode, Raw: raw}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("upload: not JSON (%d): %s", res.StatusCode, raw)
	}
	json.Unmarshal(raw, &r.Body)
	return r
}

func (s *shop) uploaded(t *testing.T, file []byte, fields map[string]string) media.Media {
	t.Helper()
	var m media.Media
	s.upload(t, s.Admin, "photo.jpg", file, fields).Must(t).Decode(t, "media", &m)
	return m
}

// get fetches a path without a token.
func (s *shop) get(t *testing.T, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// picture is a w x h image, left half red, right half blue.
func picture(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{200, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 200, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func jpegOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gpsMarker is text in the EXIF block of withEXIF, which a stored image
// must not contain.
const gpsMarker = "GPS 40.4168N 3.7038W"

// withEXIF inserts after a JPEG's SOI an APP1 EXIF block with an
// orientation tag and an ASCII tag holding gpsMarker.
func withEXIF(j []byte, orientation int) []byte {
	var t bytes.Buffer
	t.WriteString("MM\x00\x2A")
	binary.Write(&t, binary.BigEndian, uint32(8))
	binary.Write(&t, binary.BigEndian, uint16(2)) // entries
	// Orientation, SHORT, 1 value.
	binary.Write(&t, binary.BigEndian, []uint16{0x0112, 3})
	binary.Write(&t, binary.BigEndian, uint32(1))
	binary.Write(&t, binary.BigEndian, []uint16{uint16(orientation), 0})
	// ImageDescription, ASCII, at offset 8+2+24+4.
	binary.Write(&t, binary.BigEndian, []uint16{0x010E, 2})
	binary.Write(&t, binary.BigEndian, uint32(len(gpsMarker)+1))
	binary.Write(&t, binary.BigEndian, uint32(8+2+24+4))
	binary.Write(&t, binary.BigEndian, uint32(0)) // next IFD
	t.WriteString(gpsMarker + "\x00")
	seg := append([]byte("Exif\x00\x00"), t.Bytes()...)
	app1 := []byte{0xFF, 0xE1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}
	out := append([]byte{}, j[:2]...)
	out = append(out, app1...)
	out = append(out, seg...)
	return append(out, j[2:]...)
}
