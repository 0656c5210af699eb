package media

import (
	"image"
	"image/color"
	"image/draw"
)

// shrink averages k x k blocks of an image into one pixel (a box filter),
// for a large reduction before the Catmull-Rom pass: that pass then works
// on an image at most twice the target's width, which bounds its time and
// its temporary buffer (8 float64 per target pixel per source row). The
// common decoded forms are read directly; others are drawn into RGBA
// first.
func shrink(src image.Image, k int) *image.RGBA {
	b := src.Bounds()
	dw, dh := b.Dx()/k, b.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	var at func(x, y int) (r, g, bl, a uint32)
	switch s := src.(type) {
	case *image.YCbCr:
		at = func(x, y int) (uint32, uint32, uint32, uint32) {
			yi, ci := s.YOffset(x, y), s.COffset(x, y)
			r, g, bl := color.YCbCrToRGB(s.Y[yi], s.Cb[ci], s.Cr[ci])
			return uint32(r), uint32(g), uint32(bl), 255
		}
	case *image.Gray:
		at = func(x, y int) (uint32, uint32, uint32, uint32) {
			v := uint32(s.Pix[s.PixOffset(x, y)])
			return v, v, v, 255
		}
	case *image.RGBA:
		at = func(x, y int) (uint32, uint32, uint32, uint32) {
			i := s.PixOffset(x, y)
			return uint32(s.Pix[i]), uint32(s.Pix[i+1]), uint32(s.Pix[i+2]), uint32(s.Pix[i+3])
		}
	default:
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), src, b.Min, draw.Src)
		return shrink(rgba, k)
	}
	n := uint32(k * k)
	for dy := range dh {
		for dx := range dw {
			var sr, sg, sb, sa uint32
			for y := b.Min.Y + dy*k; y < b.Min.Y+dy*k+k; y++ {
				for x := b.Min.X + dx*k; x < b.Min.X+dx*k+k; x++ {
					r, g, bl, a := at(x, y)
					sr, sg, sb, sa = sr+r, sg+g, sb+bl, sa+a
				}
			}
			i := dst.PixOffset(dx, dy)
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = uint8(sr/n), uint8(sg/n), uint8(sb/n), uint8(sa/n)
		}
	}
	return dst
}
