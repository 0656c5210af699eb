package media_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	_ "image/jpeg"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestUploadStripsAndOrients: an upload is stored turned upright by its
// EXIF orientation, without the EXIF block (and the GPS text in it), and
// answered with its record; GET /media/ serves it without a token,
// cacheable for a year, with an ETag that If-None-Match answers 304.
func TestUploadStripsAndOrients(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		src := withEXIF(jpegOf(t, picture(64, 32)), 6) // 64 x 32, to be turned 90 degrees clockwise
		m := s.uploaded(t, src, map[string]string{"alt": "A red and blue fridge"})
		if m.ContentType != "image/jpeg" || m.Width != 32 || m.Height != 64 || m.Alt != "A red and blue fridge" ||
			m.URL != "/media/"+m.ID+".jpg" || len(m.SHA256) != 64 || m.Bytes == 0 {
			t.Fatalf("media %+v", m)
		}
		res, body := s.get(t, m.URL)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("ETag") == "" {
			t.Fatalf("GET %s: %d %v", m.URL, res.StatusCode, res.Header)
		}
		if int64(len(body)) != m.Bytes || bytes.Contains(body, []byte("Exif")) || bytes.Contains(body, []byte(gpsMarker)) {
			t.Errorf("stored image: %d bytes (record says %d), EXIF or GPS left in it", len(body), m.Bytes)
		}
		img, _, err := image.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		// Turned clockwise: the red left half is now the top half.
		if b := img.Bounds(); b.Dx() != 32 || b.Dy() != 64 {
			t.Fatalf("stored %v, want 32 x 64", b)
		}
		if r, _, bl, _ := img.At(16, 5).RGBA(); r < bl {
			t.Errorf("top is not red (r %d, b %d): not turned upright", r, bl)
		}
		res, body = s.get(t, m.URL, "If-None-Match", res.Header.Get("ETag"))
		if res.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("If-None-Match: %d with %d bytes, want 304", res.StatusCode, len(body))
		}
		res, _ = s.get(t, "/media/"+m.ID+".png")
		if res.StatusCode != 404 {
			t.Errorf("another extension: %d, want 404", res.StatusCode)
		}
	})
}

// TestResize: ?w=N answers the image N wide, proportions kept, never
// enlarged; a width not listed is 400; concurrent first requests for one
// size make it once.
func TestResize(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		m := s.uploaded(t, pngOf(t, picture(640, 320)), nil)
		if m.ContentType != "image/png" || !strings.HasSuffix(m.URL, ".png") {
			t.Fatalf("a PNG named photo.jpg: %+v, want image/png (the content decides)", m)
		}
		var wg sync.WaitGroup
		bodies := make([][]byte, 8)
		for i := range bodies {
			wg.Go(func() {
				res, b := s.get(t, m.URL+"?w=200")
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
					t.Errorf("?w=200: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
				}
				bodies[i] = b
			})
		}
		wg.Wait()
		if n := s.App.Media.Resized(); n != 1 {
			t.Errorf("8 concurrent first requests made the size %d times, want once", n)
		}
		for _, b := range bodies[1:] {
			if !bytes.Equal(b, bodies[0]) {
				t.Fatal("concurrent requests got different bytes")
			}
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(bodies[0]))
		if err != nil || cfg.Width != 200 || cfg.Height != 100 {
			t.Errorf("?w=200: %+v %v, want 200 x 100", cfg, err)
		}
		s.get(t, m.URL+"?w=200")
		if n := s.App.Media.Resized(); n != 1 {
			t.Errorf("a stored size was made again (%d)", n)
		}
		res, b := s.get(t, m.URL+"?w=1600")
		if cfg, _, _ := image.DecodeConfig(bytes.NewReader(b)); res.StatusCode != 200 || cfg.Width != 640 {
			t.Errorf("?w=1600 of a 640 wide image: %d, %d wide; want the original", res.StatusCode, cfg.Width)
		}
		res, b = s.get(t, m.URL+"?w=150")
		if res.StatusCode != 400 || !strings.Contains(string(b), "validation_error") {
			t.Errorf("?w=150: %d %s, want 400 validation_error", res.StatusCode, b)
		}
		e1, e2 := etag(s, t, m.URL), etag(s, t, m.URL+"?w=200")
		if e1 == e2 || e1 == "" {
			t.Errorf("ETags of two sizes: %q and %q", e1, e2)
		}
	})
}

func etag(s *shop, t *testing.T, path string) string {
	res, _ := s.get(t, path)
	return res.Header.Get("ETag")
}

// bomb is a 1-bit PNG of w x h pixels, all black: a few tens of KB that
// decode to w x h bytes.
func bomb(t *testing.T, w, h int) []byte {
	chunk := func(b *bytes.Buffer, typ string, data []byte) {
		binary.Write(b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 1, 0 // 1 bit grey
	chunk(&out, "IHDR", ihdr)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	row := make([]byte, 1+(w+7)/8)
	for range h {
		zw.Write(row)
	}
	zw.Close()
	chunk(&out, "IDAT", z.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

// TestBadFiles: each of the bad files is a clear invalid_media
// (or 413), stores nothing, and the decompression bomb is refused
// without decoding it (memory measured).
func TestBadFiles(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db, func(o *app.Options) { o.MediaMaxBytes = 300_000 })
		good := jpegOf(t, picture(64, 64))
		big := bomb(t, 20000, 20000)
		if len(big) > 100_000 {
			t.Fatalf("the bomb is %d bytes", len(big))
		}
		for _, c := range []struct {
			name, file string
			data       []byte
			status     int
			code       string
		}{
			{"HTML named .png", "x.png", []byte("<!doctype html><html><script>alert(1)</script></html>"), 400, "invalid_media"},
			{"truncated JPEG", "x.jpg", good[:len(good)/2], 400, "invalid_media"},
			{"1 x 100000", "x.png", pngOf(t, image.NewGray(image.Rect(0, 0, 1, 100000))), 400, "invalid_media"},
			{"20000 x 20000 bomb", "x.png", big, 400, "invalid_media"},
			{"empty", "x.jpg", []byte{}, 400, "invalid_media"},
			{"over the byte limit", "x.jpg", append(bytes.Clone(good), make([]byte, 300_000)...), 413, "request_too_large"},
		} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := s.upload(t, s.Admin, c.file, c.data, nil)
			runtime.ReadMemStats(&after)
			r.Expect(t, c.status, c.code)
			if c.code == "invalid_media" && !strings.Contains(string(r.Raw), `"reason"`) {
				t.Errorf("%s: no reason: %s", c.name, r.Raw)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("%s: the refusal allocated %d MB", c.name, alloc>>20)
			}
		}
		if n := s.blobs.Keys(); n != 0 {
			t.Errorf("bad files stored %d objects", n)
		}
		var total int
		json.Unmarshal(s.Get(t, "/catalog/v1/media.list", s.Admin).Must(t).Body["total"], &total)
		if total != 0 {
			t.Errorf("bad files made %d records", total)
		}
		s.upload(t, s.Admin, "x.jpg", good, map[string]string{"productId": "nope"}).Expect(t, 404, "product_not_found")
		s.upload(t, s.Admin, "x.jpg", nil, map[string]string{"alt": "x"}).Expect(t, 400, "validation_error")
		s.upload(t, s.Admin, "x.jpg", good, map[string]string{"colour": "red"}).Expect(t, 400, "validation_error")
		if n := s.blobs.Keys(); n != 0 {
			t.Errorf("refused uploads stored %d objects", n)
		}
	})
}

// TestProductMedias: an upload with productId appends {id, url, alt,
// width, height} to the product's medias; media.list lists a product's
// images and all, newest first, with the total; media.remove refuses
// while a product lists the image (409 media_in_use, the product ids),
// then deletes its files (GET answers 404).
func TestProductMedias(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		loose := s.uploaded(t, jpegOf(t, picture(40, 20)), nil)
		m := s.uploaded(t, jpegOf(t, picture(80, 40)), map[string]string{"productId": s.product, "alt": "Front"})
		var p struct {
			Medias []map[string]any `json:"medias"`
		}
		s.Get(t, "/catalog/v1/product.info?id="+s.product, s.Admin).Must(t).Decode(t, "product", &p)
		if len(p.Medias) != 1 || p.Medias[0]["id"] != m.ID || p.Medias[0]["url"] != m.URL || p.Medias[0]["alt"] != "Front" ||
			p.Medias[0]["width"] != 80.0 || p.Medias[0]["height"] != 40.0 {
			t.Fatalf("product medias %v", p.Medias)
		}
		var list []media.Media
		r := s.Get(t, "/catalog/v1/media.list", s.Admin).Must(t)
		r.Decode(t, "data", &list)
		if len(list) != 2 || list[0].ID != m.ID || list[1].ID != loose.ID || string(r.Body["total"]) != "2" {
			t.Errorf("media.list: %+v total %s, want newest first", list, r.Body["total"])
		}
		r = s.Get(t, "/catalog/v1/media.list?productId="+s.product, s.Admin).Must(t)
		r.Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != m.ID || string(r.Body["total"]) != "1" {
			t.Errorf("media.list of the product: %+v", list)
		}
		r = s.Post(t, "/catalog/v1/media.remove", s.Admin, map[string]any{"id": m.ID}).Expect(t, 409, "media_in_use")
		var ids []string
		json.Unmarshal(r.Data, &ids)
		if !slices.Equal(ids, []string{s.product}) {
			t.Errorf("media_in_use data %s", r.Data)
		}
		if res, _ := s.get(t, m.URL+"?w=100"); res.StatusCode != 200 {
			t.Fatalf("GET after a refused remove: %d", res.StatusCode)
		}
		s.Post(t, "/catalog/v1/product.update?id="+s.product, s.Admin, map[string]any{"medias": []any{}}).Must(t)
		s.Post(t, "/catalog/v1/media.remove", s.Admin, map[string]any{"id": m.ID}).Must(t)
		for _, u := range []string{m.URL, m.URL + "?w=100"} {
			if res, _ := s.get(t, u); res.StatusCode != 404 {
				t.Errorf("GET %s after remove: %d, want 404", u, res.StatusCode)
			}
		}
		s.Post(t, "/catalog/v1/media.remove", s.Admin, map[string]any{"id": m.ID}).Expect(t, 404, "media_not_found")
		if n := s.blobs.Keys(); n != 1 {
			t.Errorf("%d objects left, want the loose image's original", n)
		}
		var evs []struct{ Type string }
		s.Get(t, "/event/v1/event.list?channel=MEDIAS", s.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 3 {
			t.Errorf("MEDIAS events: %+v, want 2 CREATE and a REMOVE", evs)
		}
	})
}

// TestWhoMayCall: uploads, lists and removals need an admin token (403
// for an api token, 401 without one); images are served to anyone.
func TestWhoMayCall(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		m := s.uploaded(t, jpegOf(t, picture(20, 20)), nil)
		s.upload(t, s.API, "x.jpg", jpegOf(t, picture(20, 20)), nil).Expect(t, 403, "forbidden")
		s.upload(t, "", "x.jpg", jpegOf(t, picture(20, 20)), nil).Expect(t, 401, "invalid_token")
		s.Get(t, "/catalog/v1/media.list", s.API).Expect(t, 403, "forbidden")
		s.Post(t, "/catalog/v1/media.remove", s.API, map[string]any{"id": m.ID}).Expect(t, 403, "forbidden")
		s.Post(t, "/catalog/v1/media.remove", "", map[string]any{"id": m.ID}).Expect(t, 401, "invalid_token")
		if n := s.blobs.Keys(); n != 1 {
			t.Errorf("%d objects after refused calls, want 1", n)
		}
		if res, _ := s.get(t, m.URL); res.StatusCode != 200 {
			t.Errorf("GET without a token: %d", res.StatusCode)
		}
		if res, _ := s.get(t, m.URL, "Authorization", "Bearer "+s.API); res.StatusCode != 200 || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET with a token: %d %q", res.StatusCode, res.Header.Get("Cache-Control"))
		}
	})
}
