package art

import (
	"fmt"
	"os"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// benchCases are the drawings at the sizes of a 1920×1080 screen.
func benchCases(b *testing.B) []benchCase {
	unbatched, err := os.ReadFile("testdata/bench/backdrop-home-unbatched.svg")
	if err != nil {
		b.Fatal(err)
	}
	return []benchCase{
		{"home-unbatched", fyne.NewStaticResource("home-unbatched.svg", unbatched), fyne.NewSize(1920, 1080)},
		{"home", HomeBackdropResource(), fyne.NewSize(1920, 1080)},
		{"playfield", PlayfieldBackdropResource(), fyne.NewSize(1440, 1080)},
		{"frame", CongratulationFrameResource(), fyne.NewSize(1000, 675)},
		{"cartouche", CartoucheResource(), fyne.NewSize(380, 975)},
		{"ghost-mask", GhostMaskResource(), fyne.NewSize(400, 480)},
		{"wordmark", WordmarkResource(), fyne.NewSize(706, 150)},
		{"brick", BrickResource(0), fyne.NewSize(135, 60)},
		{"symbol", SymbolResource(0, true), fyne.NewSize(120, 120)},
	}
}

type benchCase struct {
	name string
	res  fyne.Resource
	size fyne.Size
}

// BenchmarkRasterizeFyne measures what Fyne spends turning a drawing into pixels
// the first time it is shown at a size (it caches the result afterwards), at
// the sizes of a 1920×1080 screen. Fyne's rasteriser sweeps the whole image
// once per SVG element, so big drawings batch their shapes into few
// elements: "home-unbatched" is the home backdrop drawn one element per
// shape, the baseline that batching is measured against; BenchmarkRasterize
// measures the same drawings through Rasterize.
func BenchmarkRasterizeFyne(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				// a fresh name each time, or Fyne serves its cached raster
				res := fyne.NewStaticResource(fmt.Sprintf("bench-%s-%d.svg", c.name, i), c.res.Content())
				img := canvas.NewImageFromResource(res)
				img.Resize(c.size)
				if img.Image == nil {
					b.Fatal("not rendered")
				}
			}
		})
	}
}

// BenchmarkRasterize is Rasterize on the drawings of BenchmarkRasterizeFyne,
// its baseline.
func BenchmarkRasterize(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Rasterize(c.res, int(c.size.Width), int(c.size.Height), canvas.ImageFillStretch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
