package printersim

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/oned"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/escpos"
)

func printed(t *testing.T, doc []byte) *Receipt {
	t.Helper()
	in, _ := newInterp(Config{})
	in.Write(doc)
	rs := in.Receipts()
	require.Len(t, rs, 1)
	return rs[0]
}

func decodePNG(t *testing.T, r *Receipt) image.Image {
	t.Helper()
	b, err := r.PNG()
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

func TestPNGIsAMonochrome80mmReceipt(t *testing.T) {
	r := printed(t, sampleBytes(t))
	img := decodePNG(t, r)
	b := img.Bounds()
	assert.Equal(t, 576, b.Dx(), "80 mm at 203 dpi")
	assert.Greater(t, b.Dy(), 600)
	assert.Less(t, b.Dy(), 1400)
	pal, ok := img.(*image.Paletted)
	require.True(t, ok, "1-bit palette image, got %T", img)
	assert.Len(t, pal.Palette, 2)
	// Nothing is drawn outside the 72 mm print area (32 dots each side), the cut line apart.
	for y := b.Min.Y; y < b.Max.Y-12; y++ {
		for _, x := range []int{0, 31, 544, 575} {
			require.Equal(t, uint8(0), pal.ColorIndexAt(x, y), "dot at %d,%d", x, y)
		}
	}
	// The title is drawn double size: it is 48 dots tall where an ordinary line is 24.
	rows := inkRows(pal)
	require.NotEmpty(t, rows)
	assert.Greater(t, rows[0].h, 24, "first block of ink is the double-height title")
}

type span struct{ y, h int }

// inkRows returns the vertical runs of rows that hold at least one black dot.
func inkRows(img *image.Paletted) []span {
	var out []span
	b := img.Bounds()
	in := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		ink := false
		for x := b.Min.X; x < b.Max.X && !ink; x++ {
			ink = img.ColorIndexAt(x, y) == 1
		}
		switch {
		case ink && !in:
			out = append(out, span{y: y, h: 1})
		case ink && in:
			out[len(out)-1].h++
		}
		in = ink
	}
	return out
}

// readCode128 decodes the first row of img that holds a Code 128 symbol, reading the bar and space
// widths along the row, as a laser scanner does. It returns the text and the row.
func readCode128(img image.Image) (string, int, error) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		var runs []int
		dark := false
		for x := b.Min.X; x < b.Max.X; x++ {
			r, _, _, _ := img.At(x, y).RGBA()
			d := r < 0x8000
			switch {
			case len(runs) == 0 && !d:
				continue // leading quiet zone
			case len(runs) == 0 || d != dark:
				runs = append(runs, 1)
			default:
				runs[len(runs)-1]++
			}
			dark = d
		}
		if !dark && len(runs) > 0 {
			runs = runs[:len(runs)-1] // trailing quiet zone
		}
		if len(runs) < 6+6+7 {
			continue
		}
		if s, err := decodeRuns(runs); err == nil {
			return s, y, nil
		}
	}
	return "", 0, errors.New("no Code 128 symbol found")
}

func decodeRuns(runs []int) (string, error) {
	// The start character is 11 modules: it gives the module width.
	sum := 0
	for _, w := range runs[:6] {
		sum += w
	}
	if sum%11 != 0 {
		return "", errors.New("start character is not 11 modules")
	}
	mod := sum / 11
	patterns := map[string]int{}
	for v, p := range code128Widths {
		patterns[p] = v
	}
	var values []int
	for i := 0; i < len(runs); {
		n := 6
		if len(runs)-i == 7 {
			n = 7 // the stop character
		}
		if len(runs)-i < n {
			return "", errors.New("truncated symbol")
		}
		var p strings.Builder
		for _, w := range runs[i : i+n] {
			if w%mod != 0 || w/mod < 1 || w/mod > 4 {
				return "", fmt.Errorf("run of %d dots with a %d-dot module", w, mod)
			}
			p.WriteByte(byte('0' + w/mod))
		}
		v, ok := patterns[p.String()]
		if !ok {
			return "", fmt.Errorf("no symbol character %s", p.String())
		}
		values = append(values, v)
		i += n
	}
	if len(values) < 3 || values[0] < c128StartA || values[len(values)-1] != c128Stop {
		return "", errors.New("no start or stop character")
	}
	data := values[1 : len(values)-2]
	check := values[0]
	for i, v := range data {
		check += (i + 1) * v
	}
	if check%103 != values[len(values)-2] {
		return "", errors.New("bad check character")
	}
	var out strings.Builder
	set := values[0] - c128StartA
	for _, v := range data {
		switch {
		case v == c128CodeC && set != 2:
			set = 2
		case v == c128CodeB && set != 1:
			set = 1
		case v == c128CodeA && set != 0:
			set = 0
		case set == 2:
			fmt.Fprintf(&out, "%02d", v)
		case set == 1:
			out.WriteByte(byte(v + 32))
		default:
			out.WriteByte(byte(v + 32))
		}
	}
	return out.String(), nil
}

func TestBarcodeInThePNGDecodes(t *testing.T) {
	tests := []struct{ name, data string }{
		{"validation number", sampleNumber},
		{"odd digit count", "12345"},
		{"text", "PHARAON-0007"},
		{"pair 16 then 04 goes in set B", "042916040118274639"},
		{"pairs 16 20 and 16 05", "16200016051620"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustBytes(t, escpos.NewDoc().Init().Line("Bon").Align(escpos.Center).Barcode128(tt.data).Cut())
			img := decodePNG(t, printed(t, doc))
			got, _, err := readCode128(img)
			require.NoError(t, err)
			assert.Equal(t, tt.data, got)

			// And an independent reader (a port of ZXing) agrees.
			bmp, err := gozxing.NewBinaryBitmapFromImage(img)
			require.NoError(t, err)
			res, err := oned.NewCode128Reader().Decode(bmp, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.data, res.GetText())
		})
	}
}

func TestQRCodeInThePNGDecodes(t *testing.T) {
	r := printed(t, sampleBytes(t))
	img := decodePNG(t, r)
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err)
	assert.Equal(t, sampleNumber, res.GetText())
	// The symbol sits in the centre of the paper: its finder patterns lie left and right of the middle.
	pts := res.GetResultPoints()
	require.GreaterOrEqual(t, len(pts), 3)
	minX, maxX := 576.0, 0.0
	for _, p := range pts[:3] {
		minX, maxX = min(minX, p.GetX()), max(maxX, p.GetX())
	}
	assert.Less(t, minX, 288.0)
	assert.Greater(t, maxX, 288.0)
}

func TestIncompleteReceiptHasATornEdge(t *testing.T) {
	in, _ := newInterp(Config{})
	in.Inject(AfterLines(2), PaperOut)
	in.Write(sampleBytes(t))
	torn := in.Receipts()[0].Image()
	whole := printed(t, sampleBytes(t)).Image()
	assert.Less(t, torn.Bounds().Dy(), whole.Bounds().Dy())
	// A cut is a dashed straight line on the last rows; a tear zigzags over ten rows.
	bottom := func(img *image.Paletted) int {
		rows := inkRows(img)
		return rows[len(rows)-1].h
	}
	assert.LessOrEqual(t, bottom(whole), 2)
	assert.Greater(t, bottom(torn), 5)
}

func TestMissingGlyphIsABox(t *testing.T) {
	g := glyphOf('\u4e00') // not in Go Mono
	assert.Equal(t, uint16(0x7FC), g[4])
	e := glyphOf('€')
	ink := 0
	for _, row := range e {
		for ; row != 0; row &= row - 1 {
			ink++
		}
	}
	assert.Greater(t, ink, 20, "the euro sign is drawn")
}

// qrBox returns where the receipt's first QR symbol is drawn, in dots, and its module.
func qrBox(t *testing.T, r *Receipt) (image.Rectangle, int) {
	t.Helper()
	y := topMargin
	for _, l := range r.Lines {
		if l.Kind == QRLine {
			code, err := l.QR.encode()
			require.NoError(t, err)
			side := code.Size * l.QR.Module
			area := printWidth(r.layout)
			c := &canvas{left: (r.layout.Width - area) / 2, area: area}
			x := c.place(l.Align, side)
			return image.Rect(x, y, x+side, y+side), l.QR.Module
		}
		y += lineHeight(l)
	}
	t.Fatal("no QR code")
	return image.Rectangle{}, 0
}

// The printer prints the QR symbol alone; the document secures its quiet zone, 4 modules of white
// on every side, whatever comes before and after it, so that it scans.
func TestQRCodeHasItsQuietZone(t *testing.T) {
	const n = sampleNumber
	tests := []struct {
		name string
		doc  *escpos.Doc
	}{
		{"the sample voucher", sampleVoucher()},
		{"after text, before text", escpos.NewDoc().Init().Line("avant").QR(n).Line("après").Cut()},
		{"after a barcode and a feed, as the kiosk lays it out", escpos.NewDoc().Init().Align(escpos.Center).
			Barcode128(n).Feed(1).QR(n).Line("Valable jusqu'au 12/06/2026").Cut()},
		{"left aligned, big text around", escpos.NewDoc().Init().Size(8, 8).Line("XX").Size(1, 1).QR(n).Size(8, 8).Line("YY").Cut()},
		{"at the top, cut right after", escpos.NewDoc().Init().QR(n).Cut()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := printed(t, mustBytes(t, tt.doc))
			img := r.Image()
			box, m := qrBox(t, r)
			zone := image.Rect(box.Min.X-4*m, box.Min.Y-4*m, box.Max.X+4*m, box.Max.Y+4*m)
			require.True(t, zone.In(img.Bounds()), "zone %v outside the paper %v", zone, img.Bounds())
			for y := zone.Min.Y; y < zone.Max.Y; y++ {
				for x := zone.Min.X; x < zone.Max.X; x++ {
					if (image.Point{x, y}).In(box) {
						continue
					}
					require.Equal(t, uint8(0), img.ColorIndexAt(x, y), "ink at %d,%d in the quiet zone of %v", x, y, box)
				}
			}
			bmp, err := gozxing.NewBinaryBitmapFromImage(img)
			require.NoError(t, err)
			res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
			require.NoError(t, err)
			assert.Equal(t, n, res.GetText())
		})
	}
}
