package golden

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func square(c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 100, 100))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func TestDiff(t *testing.T) {
	blue := square(color.NRGBA{0, 0, 200, 255})
	one := square(color.NRGBA{0, 0, 200, 255})
	one.SetNRGBA(7, 9, color.NRGBA{0, 0, 150, 255})
	near := square(color.NRGBA{0, 0, 210, 255})
	moved := image.NewNRGBA(image.Rect(5, 5, 105, 105))
	copy(moved.Pix, blue.Pix)

	assert.Empty(t, Diff(blue, square(color.NRGBA{0, 0, 200, 255}), Exact))
	assert.Empty(t, Diff(blue, moved, Exact), "only the size and the pixels count, not the origin")
	assert.Equal(t, "1 of 10000 pixels differ within (7,9)-(8,10)", Diff(blue, one, Exact))
	assert.Empty(t, Diff(blue, one, Antialiased), "one pixel in 10 000 is anti-aliasing")
	assert.Contains(t, Diff(blue, near, Exact), "10000 of 10000 pixels differ")
	assert.Empty(t, Diff(blue, near, Antialiased), "a channel 10/255 away is anti-aliasing")
	assert.Equal(t, "size (50,100), want (100,100)", Diff(blue, image.NewNRGBA(image.Rect(0, 0, 50, 100)), Exact))
}

// A mismatch writes what was drawn under testdata/failed and fails; a
// missing golden image fails too.
func TestAssertWritesTheFailedImage(t *testing.T) {
	dir := t.TempDir()
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { require.NoError(t, os.Chdir(wd)) })

	require.NoError(t, WritePNG(filepath.Join("testdata", "sq.png"), square(color.NRGBA{0, 0, 200, 255})))
	ft := &fakeT{TB: t}
	Assert(ft, "sq.png", square(color.NRGBA{0, 0, 200, 255}))
	assert.Empty(t, ft.errs)

	Assert(ft, "sq.png", square(color.NRGBA{200, 0, 0, 255}))
	require.Len(t, ft.errs, 1)
	assert.Contains(t, ft.errs[0], "10000 of 10000 pixels differ")
	assert.FileExists(t, filepath.Join("testdata", "failed", "sq.png"))

	Assert(ft, "none.png", square(color.NRGBA{200, 0, 0, 255}))
	require.Len(t, ft.errs, 2)
	assert.True(t, strings.Contains(ft.errs[1], "no golden image"), ft.errs[1])
}

type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
