package media_test

import (
	"context"
	"image"
	"image/color"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/commercekit/commerce/media"
	mediafs "github.com/commercekit/commerce/media/fs"
	"github.com/commercekit/commerce/rpc"
)

// photo12MP is a 4000 x 3000 JPEG with gradients (a photo's size).
func photo12MP(b testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return jpegOf(b, img)
}

// BenchmarkResize12MP is the first resize of a 12-megapixel JPEG to 800
// px (decode, Catmull-Rom, encode), with the heap's peak above the
// start reported as peak-MB.
func BenchmarkResize12MP(b *testing.B) {
	src := photo12MP(b)
	var peak atomic.Uint64
	stop := watchHeap(&peak)
	b.ResetTimer()
	for b.Loop() {
		if _, err := media.Resize("jpg", src, 800); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stop()
	b.ReportMetric(float64(peak.Load())/1e6, "peak-MB")
}

// BenchmarkResize12MPFourAtOnce asks the service for the 800 px size of
// four 12-megapixel JPEGs at once (first requests: each is made),
// reporting the heap's peak (the process must stay under 200 MB; the
// service decodes at most Config.Workers images at a time).
func BenchmarkResize12MPFourAtOnce(b *testing.B) {
	src := photo12MP(b)
	var peak atomic.Uint64
	for b.Loop() {
		b.StopTimer()
		blobs, records := media.NewMemory(), recordStore{}
		for i := range 4 {
			id := string(rune('a' + i))
			blobs.Put(context.Background(), id+"/original.jpg", src, "image/jpeg")
			records[id] = media.Media{ID: id, Ext: "jpg", Width: 4000, Height: 3000, SHA256: strings.Repeat("0", 64)}
		}
		svc := media.NewService(records, blobs, nil, time.Now, media.Config{})
		stop := watchHeap(&peak)
		b.StartTimer()
		var wg sync.WaitGroup
		for id := range records {
			wg.Go(func() {
				img, err := svc.Open(context.Background(), id, "jpg", 800)
				if err != nil {
					b.Error(err)
					return
				}
				img.Object.Close()
			})
		}
		wg.Wait()
		b.StopTimer()
		stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak.Load())/1e6, "peak-MB")
}

// recordStore is a media.Store of fixed records (reads only).
type recordStore map[string]media.Media

func (s recordStore) Update(context.Context, func(media.Tx) error) error { return nil }
func (s recordStore) Media(_ context.Context, id string) (media.Media, error) {
	if m, ok := s[id]; ok {
		return m, nil
	}
	return media.Media{}, media.NotFound(id)
}
func (s recordStore) List(context.Context, media.Filter) ([]media.Media, int, error) {
	return nil, 0, nil
}

// watchHeap records the largest HeapInuse+StackInuse seen every 5 ms
// until the returned function is called.
func watchHeap(peak *atomic.Uint64) func() {
	runtime.GC()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if v := m.HeapInuse + m.StackInuse; v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// BenchmarkServeStored serves a stored 800 px size through the media
// handler's path (Service.Open on the file store, http.ServeContent)
// and, for comparison, the same file through http.FileServer.
func BenchmarkServeStored(b *testing.B) {
	dir := b.TempDir()
	store, err := mediafs.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	data, err := media.Resize("jpg", photo12MP(b), 800)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	store.Put(ctx, "x/800.jpg", data, "image/jpeg")
	b.Run("media", func(b *testing.B) {
		// The real path: the rpc server's /media/ handler, the service's
		// record cache and the file store.
		records := recordStore{"x": {ID: "x", Ext: "jpg", Width: 4000, Height: 3000, SHA256: strings.Repeat("0", 64)}}
		srv := rpc.NewServer(nil, slog.New(slog.DiscardHandler), func(context.Context) error { return nil })
		rpc.RegisterMedia(srv, media.NewService(records, store, nil, time.Now, media.Config{}))
		serveBench(b, srv, "/media/x.jpg?w=800")
	})
	b.Run("FileServer", func(b *testing.B) {
		serveBench(b, http.FileServer(http.Dir(filepath.Join(dir, "x"))), "/800.jpg")
	})
	_ = os.Remove(filepath.Join(dir, "x", "800.jpg"))
}

func serveBench(b *testing.B, h http.Handler, path string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := srv.Client()
	for b.Loop() {
		res, err := c.Get(srv.URL + path)
		if err != nil || res.StatusCode != 200 {
			b.Fatal(err, res)
		}
		_, _ = drain(res)
	}
}

func drain(res *http.Response) (int64, error) {
	defer res.Body.Close()
	return io.Copy(io.Discard, res.Body)
}
