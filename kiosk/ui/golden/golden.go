// Package golden compares the pictures the screens' tests draw with the
// golden images kept under each package's testdata/, and rewrites them when a
// person asks for it with the one flag of every such test: -update.
//
// A mismatch never prints pixels: it writes what was drawn to
// testdata/failed/ (ignored by git) and says how many pixels differ and
// where, so that a person can open both pictures and look.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// update is the flag of every golden-image test: go test ./kiosk/ui/... -update
var update = flag.Bool("update", false, "rewrite the golden images under testdata/ instead of comparing with them")

// Updating reports whether this run rewrites the golden images.
func Updating() bool { return *update }

// Tolerance says how far a picture may stray from its golden image and still
// match.
type Tolerance struct {
	// Channel is how far one colour channel of a pixel may move (0–255)
	// before the pixel counts as different.
	Channel int
	// PerTenThousand is how many pixels in 10 000 may differ.
	PerTenThousand int
}

// Exact is the tolerance of pictures drawn by the kiosk's own code on Fyne's
// software canvas: none.
var Exact = Tolerance{}

// Antialiased allows for the anti-aliasing of another CPU: a channel may move
// by 24/255, and one pixel in 10 000 may differ (a symbol redrawn changes
// hundreds).
var Antialiased = Tolerance{Channel: 24, PerTenThousand: 1}

// Assert compares img with testdata/name exactly, or writes it there with
// -update.
func Assert(t testing.TB, name string, img image.Image) {
	t.Helper()
	AssertWithin(t, name, img, Exact)
}

// AssertWithin compares img with testdata/name within tol, or writes it there
// with -update.
func AssertWithin(t testing.TB, name string, img image.Image, tol Tolerance) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := WritePNG(path, img); err != nil {
			t.Fatal(err)
		}
		return
	}
	msg := compare(path, img, tol)
	if msg == "" {
		return
	}
	failed := filepath.Join("testdata", "failed", name)
	if err := WritePNG(failed, img); err != nil {
		t.Fatal(err)
	}
	t.Errorf("golden %s: %s; what was drawn is in %s (if the change is intended, look at it, then run the test with -update)", name, msg, failed)
}

// compare says how img differs from the golden image at path, or "" when it
// matches.
func compare(path string, img image.Image, tol Tolerance) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("no golden image (%v)", err)
	}
	want, err := png.Decode(f)
	f.Close()
	if err != nil {
		return fmt.Sprintf("golden image unreadable (%v)", err)
	}
	return Diff(want, img, tol)
}

// Diff describes how got differs from want beyond tol: the number of pixels
// that differ and the box that holds them, or "" when they match.
func Diff(want, got image.Image, tol Tolerance) string {
	if want.Bounds().Size() != got.Bounds().Size() {
		return fmt.Sprintf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	w, g := NRGBA(want), NRGBA(got)
	if bytes.Equal(w.Pix, g.Pix) {
		return ""
	}
	n, box := 0, image.Rectangle{}
	for y := 0; y < w.Rect.Dy(); y++ {
		for x := 0; x < w.Rect.Dx(); x++ {
			i := y*w.Stride + x*4
			j := y*g.Stride + x*4
			for c := 0; c < 4; c++ {
				d := int(w.Pix[i+c]) - int(g.Pix[j+c])
				if d > tol.Channel || d < -tol.Channel {
					n++
					box = box.Union(image.Rect(x, y, x+1, y+1))
					break
				}
			}
		}
	}
	total := w.Rect.Dx() * w.Rect.Dy()
	if n == 0 || n*10000 <= total*tol.PerTenThousand {
		return ""
	}
	return fmt.Sprintf("%d of %d pixels differ within %v", n, total, box)
}

// NRGBA returns img as an *image.NRGBA whose rectangle starts at (0, 0).
func NRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// WritePNG writes img to path as PNG, making its folder.
func WritePNG(path string, img image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
