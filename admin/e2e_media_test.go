package admin_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/media/s3"
	"github.com/commercekit/commerce/testkit/testdb"
)

// jpegFile writes a w x h JPEG of one colour to a file of the test.
func jpegFile(t *testing.T, name string, w, h int, c color.RGBA) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type productMedia struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Alt    string `json:"alt"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// TestAdminProductImages: on the product page staff upload two images (a
// file that is no image shows the error box), see them, move the second
// first, edit an alt text and remove an image (confirmed); the product's
// medias through the API follow each step, and the image is served at a
// width in the browser.
func TestAdminProductImages(t *testing.T) {
	chromium(t)
	t.Run("memory", func(t *testing.T) { adminProductImages(t) })
	// The same on the S3 store (a real S3-compatible server: .ci/run
	// starts gofakes3 and sets COMMERCE_TEST_S3).
	t.Run("s3", func(t *testing.T) {
		raw := os.Getenv("COMMERCE_TEST_S3")
		if raw == "" {
			t.Skip("COMMERCE_TEST_S3 is not set: no S3-compatible server to test against")
		}
		base, query, _ := strings.Cut(raw, "?")
		store, err := s3.New(strings.TrimRight(base, "/") + "/admin" + time.Now().Format("150405.000000000") + "?" + query)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.EnsureBucket(t.Context()); err != nil {
			t.Fatal(err)
		}
		adminProductImages(t, func(o *app.Options) { o.MediaBlobs = store })
	})
}

func adminProductImages(t *testing.T, opts ...func(*app.Options)) {
	e := newEnv(t, testdb.SQLite(t), opts...)
	var cat, prod struct{ ID string }
	e.Post(t, "/catalog/v1/category.create", e.Admin, map[string]any{"title": "Fridges", "slug": "fridges", "parent": "ROOT"}).
		Must(t).Decode(t, "category", &cat)
	e.Post(t, "/catalog/v1/product.create", e.Admin, map[string]any{"sku": "FR-9", "status": "ONLINE", "title": "Fridge", "stockStatus": 0,
		"categories": []string{cat.ID}, "prices": []map[string]any{{"amount": json.Number("100.00"), "currency": "USD"}}}).
		Must(t).Decode(t, "product", &prod)
	medias := func() []productMedia {
		var p struct{ Medias []productMedia }
		e.Get(t, "/catalog/v1/product.info?id="+prod.ID, e.Admin).Must(t).Decode(t, "product", &p)
		return p.Medias
	}

	u := newUI(t, e.URL)
	u.open("/admin/")
	u.fill("#email", staffEmail, "#password", staffPassword)
	u.submit(`form button[type=submit]`)
	u.run(chromedp.WaitVisible(css("#active-carts")))

	u.open("/admin/products/" + prod.ID)
	u.expect("#images", "No images yet.")
	notImage := filepath.Join(t.TempDir(), "page.png")
	os.WriteFile(notImage, []byte("<!doctype html><p>not an image</p>"), 0o644)
	u.run(chromedp.SetUploadFiles(css("#file"), []string{notImage}))
	u.submit("#upload-media")
	u.expect("#media-upload", "This file cannot be used as an image")
	u.screenshot("product-image-error")
	if m := medias(); len(m) != 0 {
		t.Fatalf("a refused file was added: %+v", m)
	}

	u.run(chromedp.SetUploadFiles(css("#file"), []string{jpegFile(t, "red.jpg", 640, 320, color.RGBA{200, 0, 0, 255})}))
	u.fill("#alt", "Red fridge")
	u.submit("#upload-media")
	u.expect(".notice", "Saved")
	u.run(chromedp.SetUploadFiles(css("#file"), []string{jpegFile(t, "blue.jpg", 300, 600, color.RGBA{0, 0, 200, 255})}))
	u.submit("#upload-media")
	u.expect("#images table", "640 × 320")
	u.expect("#images table", "300 × 600")
	u.run(chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('#images img')].every(i => i.complete && i.naturalWidth === 200)`))
	u.screenshot("product-images")
	m := medias()
	if len(m) != 2 || m[0].Alt != "Red fridge" || m[0].Width != 640 || m[1].Height != 600 {
		t.Fatalf("medias after two uploads: %+v", m)
	}
	red, blue := m[0].ID, m[1].ID

	// The blue one first, then its alt text.
	u.submit(`button[value="down:0"]`)
	if m := medias(); len(m) != 2 || m[0].ID != blue || m[1].ID != red {
		t.Fatalf("after moving the first down: %+v", m)
	}
	u.fill("#ma0", "Blue fridge")
	u.submit("#save-medias")
	if m := medias(); m[0].Alt != "Blue fridge" || m[1].Alt != "Red fridge" {
		t.Fatalf("after editing the alt text: %+v", m)
	}

	// Remove the red one, confirmed in the dialog.
	u.run(chromedp.Evaluate[chromedp.Void](`document.querySelector('main').setAttribute('data-stale', '')`),
		chromedp.Click(css(`button[form="media-remove-1"]`)), chromedp.WaitVisible(css("#confirm-dialog")), chromedp.Click(css("#confirm-yes")))
	u.waitAnswer()
	m = medias()
	if len(m) != 1 || m[0].ID != blue {
		t.Fatalf("after removing the red image: %+v", m)
	}
	if res := e.Get(t, "/catalog/v1/media.list", e.Admin).Must(t); bytes.Contains(res.Raw, []byte(red)) {
		t.Errorf("the removed image is still listed: %s", res.Raw)
	}

	// The storefront's view: the image at 400 px wide.
	u.run(chromedp.Navigate(e.URL+m[0].URL+"?w=400"), chromedp.WaitVisible(css("img")))
	u.run(chromedp.Poll[chromedp.Void](`document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth > 0`))
	if w := get(u, chromedp.Evaluate[int](`document.images[0].naturalWidth`)); w != 300 {
		t.Errorf("?w=400 of a 300 px wide image shows %d px, want 300 (never enlarged)", w)
	}
	u.run(chromedp.Navigate(e.URL+m[0].URL+"?w=200"), chromedp.WaitVisible(css("img")))
	u.run(chromedp.Poll[chromedp.Void](`document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth === 200`))
}

// uploadImage uploads a small JPEG for the product through the API
// (media.upload), as a test fixture.
func (e *env) uploadImage(t *testing.T, productID string) {
	t.Helper()
	data, err := os.ReadFile(jpegFile(t, "fixture.jpg", 40, 20, color.RGBA{10, 120, 10, 255}))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("productId", productID)
	fw, _ := mw.CreateFormFile("file", "fixture.jpg")
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/catalog/v1/media.upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+e.Admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("media.upload: %d", res.StatusCode)
	}
}
