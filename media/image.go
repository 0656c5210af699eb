package media

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Limits bound what an upload may be, checked from the image's header
// before its pixels are decoded (a small file that decodes to gigabytes,
// a decompression bomb, is refused without decoding it).
type Limits struct {
	// MaxPixels is the largest width x height (50 megapixels when 0).
	MaxPixels int
	// MaxSide is the largest width or height (16384 when 0): an image of
	// 1 x 100000 pixels is no product picture.
	MaxSide int
}

const (
	defaultMaxPixels = 50_000_000
	defaultMaxSide   = 16384
	jpegQuality      = 90
	resizedQuality   = 85
)

// Processed is an upload made safe: the bytes to store and what they are.
type Processed struct {
	Data          []byte
	Ext           string // jpg, png, gif, webp
	Width, Height int
}

// Sniff names the format of an image by its first bytes (jpg, png, gif,
// webp), "" for anything else: the content decides, never a file name.
func Sniff(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "jpg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// decodeConfig reads the dimensions of an image of a format from its
// header.
func decodeConfig(ext string, b []byte) (image.Config, error) {
	r := bytes.NewReader(b)
	switch ext {
	case "jpg":
		return jpeg.DecodeConfig(r)
	case "png":
		return png.DecodeConfig(r)
	case "gif":
		return gif.DecodeConfig(r)
	default:
		return webp.DecodeConfig(r)
	}
}

// decode decodes an image of a format (a GIF's first frame).
func decode(ext string, b []byte) (image.Image, error) {
	r := bytes.NewReader(b)
	switch ext {
	case "jpg":
		return jpeg.Decode(r)
	case "png":
		return png.Decode(r)
	case "gif":
		return gif.Decode(r)
	default:
		return webp.Decode(r)
	}
}

// Check sniffs an image and checks its dimensions against the limits
// without decoding its pixels. Errors: invalid_media.
func (l Limits) Check(b []byte) (ext string, cfg image.Config, err error) {
	ext = Sniff(b)
	if ext == "" {
		return "", cfg, Invalid("not a JPEG, PNG, GIF or WebP image")
	}
	cfg, err = decodeConfig(ext, b)
	if err != nil {
		return "", cfg, Invalid("corrupt " + formatName(ext) + " image")
	}
	maxPixels, maxSide := l.MaxPixels, l.MaxSide
	if maxPixels <= 0 {
		maxPixels = defaultMaxPixels
	}
	if maxSide <= 0 {
		maxSide = defaultMaxSide
	}
	switch {
	case cfg.Width <= 0 || cfg.Height <= 0:
		return "", cfg, Invalid("the image has no pixels")
	case int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels):
		return "", cfg, Invalid(fmt.Sprintf("%d x %d pixels is more than %d megapixels", cfg.Width, cfg.Height, maxPixels/1_000_000))
	case cfg.Width > maxSide || cfg.Height > maxSide:
		return "", cfg, Invalid(fmt.Sprintf("%d x %d pixels: a side is longer than %d pixels", cfg.Width, cfg.Height, maxSide))
	}
	return ext, cfg, nil
}

func formatName(ext string) string {
	switch ext {
	case "jpg":
		return "JPEG"
	case "webp":
		return "WebP"
	}
	return map[string]string{"png": "PNG", "gif": "GIF"}[ext]
}

// Process makes an upload safe to serve: its format sniffed, its size
// checked before decoding, decoded whole (a truncated or corrupt file is
// refused), turned upright by its EXIF orientation (JPEG) and re-encoded,
// which drops every metadata block (EXIF with GPS, XMP, comments). A GIF
// keeps its first frame. A WebP is kept as sent, less its EXIF and XMP
// chunks (there is no WebP encoder in pure Go; browsers show a WebP as
// stored, so its orientation is not applied). Errors: invalid_media.
func (l Limits) Process(b []byte) (Processed, error) {
	ext, _, err := l.Check(b)
	if err != nil {
		return Processed{}, err
	}
	img, err := decode(ext, b)
	if err != nil {
		return Processed{}, Invalid("corrupt or truncated " + formatName(ext) + " image")
	}
	if ext == "webp" {
		out, err := stripWebP(b)
		if err != nil {
			return Processed{}, Invalid("corrupt WebP image: " + err.Error())
		}
		sz := img.Bounds().Size()
		return Processed{Data: out, Ext: ext, Width: sz.X, Height: sz.Y}, nil
	}
	if ext == "jpg" {
		img = orient(img, jpegOrientation(b))
	}
	out, err := encode(ext, img, jpegQuality)
	if err != nil {
		return Processed{}, err
	}
	sz := img.Bounds().Size()
	return Processed{Data: out, Ext: ext, Width: sz.X, Height: sz.Y}, nil
}

// encode writes an image in a format (webp as PNG: see Process).
func encode(ext string, img image.Image, quality int) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch ext {
	case "jpg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
	case "gif":
		err = gif.Encode(&buf, img, nil)
	default:
		err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", ext, err)
	}
	return buf.Bytes(), nil
}

// resizedExt is the format a resized copy of an image of a format is
// encoded in: the same, but PNG for WebP.
func resizedExt(ext string) string {
	if ext == "webp" {
		return "png"
	}
	return ext
}

// Resize scales an image to width w keeping its proportions, with the
// Catmull-Rom filter, and encodes it (resizedExt).
func Resize(ext string, b []byte, w int) ([]byte, error) {
	img, err := decode(ext, b)
	if err != nil {
		return nil, fmt.Errorf("decode the stored %s: %w", ext, err)
	}
	sb := img.Bounds()
	h := max(1, int((int64(sb.Dy())*int64(w)+int64(sb.Dx())/2)/int64(sb.Dx())))
	if k := (sb.Dx() + 2*w - 1) / (2 * w); k >= 2 && sb.Dy()/k >= h {
		// A large reduction: a box filter first, to at most twice the
		// width (see shrink).
		img = shrink(img, k)
		sb = img.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, sb, draw.Src, nil)
	return encode(resizedExt(ext), dst, resizedQuality)
}

// stripWebP removes the EXIF and XMP chunks of a WebP file and their
// flags from its VP8X chunk.
func stripWebP(b []byte) ([]byte, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("too short")
	}
	out := make([]byte, 12, len(b))
	copy(out, b[:12])
	rest := b[12:]
	for len(rest) > 0 {
		if len(rest) < 8 {
			return nil, fmt.Errorf("truncated chunk")
		}
		fourcc := string(rest[:4])
		n := int64(binary.LittleEndian.Uint32(rest[4:8]))
		total := 8 + n + n%2
		if total > int64(len(rest)) {
			if 8+n > int64(len(rest)) {
				return nil, fmt.Errorf("truncated chunk %q", fourcc)
			}
			total = 8 + n // the last chunk's padding byte may be missing
		}
		chunk := rest[:total]
		rest = rest[total:]
		switch fourcc {
		case "EXIF", "XMP ":
			continue
		case "VP8X":
			if n >= 1 {
				chunk = bytes.Clone(chunk)
				chunk[8] &^= 0x08 | 0x04 // EXIF and XMP present
			}
		}
		out = append(out, chunk...)
	}
	binary.LittleEndian.PutUint32(out[4:8], uint32(len(out)-8))
	return out, nil
}
