package printersim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// The receipt's picture is 1 bit per dot: white paper, black dots.
var monochrome = color.Palette{color.White, color.Black}

const (
	white = 0
	black = 1
	// margins above the first line and below the last, in dots
	topMargin    = 16
	bottomMargin = 24
)

// Image draws the receipt as the print head would: Layout.Width dots wide, one pixel per dot, text in
// a 12 x 24 font A scaled by its magnification, bars and QR modules at their real dot sizes (so the
// picture scans). It is drawn once and kept.
func (r *Receipt) Image() *image.Paletted {
	r.imgOnce.Do(func() { r.img = r.draw() })
	return r.img
}

// PNG encodes Image.
func (r *Receipt) PNG() ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, r.Image()); err != nil {
		return nil, fmt.Errorf("encode receipt %d: %w", r.Seq, err)
	}
	return b.Bytes(), nil
}

type canvas struct {
	img  *image.Paletted
	left int // first dot of the print area
	area int // print area width in dots
	cols int // characters per line
}

func (c *canvas) fill(x, y, w, h int) {
	b := c.img.Bounds()
	for yy := max(y, 0); yy < min(y+h, b.Max.Y); yy++ {
		row := c.img.Pix[yy*c.img.Stride:]
		for xx := max(x, 0); xx < min(x+w, b.Max.X); xx++ {
			row[xx] = black
		}
	}
}

// place returns where a block of width w starts in the print area under alignment a.
func (c *canvas) place(a Align, w int) int {
	switch a {
	case Center:
		return c.left + (c.area-w)/2
	case Right:
		return c.left + c.area - w
	}
	return c.left
}

func lineHeight(l Line) int {
	switch l.Kind {
	case TextLine:
		h := 1
		for _, r := range l.Runs {
			h = max(h, r.Height)
		}
		return h*cellH + lineSpace - cellH
	case BarcodeLine:
		h := l.Barcode.Height + 8
		if l.Barcode.HRIPosition&1 != 0 {
			h += lineSpace
		}
		if l.Barcode.HRIPosition&2 != 0 {
			h += lineSpace
		}
		return h
	case QRLine:
		code, err := l.QR.encode()
		if err != nil {
			return lineSpace
		}
		// The symbol alone: Epson leaves the quiet zone to the host ("the user must secure the
		// quiet zone"), which feeds paper before and after it.
		return code.Size * l.QR.Module
	}
	return lineSpace
}

func (r *Receipt) draw() *image.Paletted {
	height := topMargin + bottomMargin
	for _, l := range r.Lines {
		height += lineHeight(l)
	}
	img := image.NewPaletted(image.Rect(0, 0, r.layout.Width, height), monochrome)
	area := printWidth(r.layout)
	c := &canvas{img: img, left: (r.layout.Width - area) / 2, area: area, cols: r.layout.Columns}
	y := topMargin
	for _, l := range r.Lines {
		switch l.Kind {
		case TextLine:
			c.textLine(l, y)
		case BarcodeLine:
			c.barcode(l, y)
		case QRLine:
			c.qr(l, y)
		}
		y += lineHeight(l)
	}
	// The bottom edge: a clean cut, or a torn edge for a receipt the printer gave up on.
	if r.Complete {
		for x := 0; x < r.layout.Width; x += 8 {
			c.fill(x, height-2, 4, 2)
		}
	} else {
		for x := 0; x < r.layout.Width; x++ {
			d := x % 16
			if d > 8 {
				d = 16 - d
			}
			c.fill(x, height-10+d, 1, 2)
		}
	}
	return img
}

// textLine draws characters on a common baseline: a taller run stands on the same foot as a short one.
func (c *canvas) textLine(l Line, y int) {
	tall, cols := 1, 0
	for _, r := range l.Runs {
		tall = max(tall, r.Height)
		for range r.Text {
			cols += r.Width
		}
	}
	// Text sits on the character grid, padded in whole columns as in the text rendering.
	pad := 0
	if cols < c.cols {
		switch l.Align {
		case Center:
			pad = (c.cols - cols) / 2
		case Right:
			pad = c.cols - cols
		}
	}
	x := c.left + (c.area-c.cols*cellW)/2 + pad*cellW
	for _, r := range l.Runs {
		top := y + (tall-r.Height)*cellH
		for _, ch := range r.Text {
			c.char(glyphOf(ch), x, top, r)
			x += r.Width * cellW
		}
	}
}

func (c *canvas) char(g *glyph, x, y int, r Run) {
	for gy := range cellH {
		row := g[gy]
		if r.Bold {
			row |= row >> 1 // emphasis: each dot burnt twice, one dot apart
		}
		for gx := range cellW {
			if row&(1<<(cellW-1-gx)) != 0 {
				c.fill(x+gx*r.Width, y+gy*r.Height, r.Width, r.Height)
			}
		}
	}
	if r.Underline {
		c.fill(x, y+(cellH-1)*r.Height, cellW*r.Width, r.Height)
	}
}

// text draws plain font A text centred on x0..x0+w.
func (c *canvas) text(s string, x0, w, y int) {
	n := 0
	for range s {
		n++
	}
	x := x0 + (w-n*cellW)/2
	for _, ch := range s {
		c.char(glyphOf(ch), x, y, Run{Width: 1, Height: 1})
		x += cellW
	}
}

func (c *canvas) barcode(l Line, y int) {
	bc := l.Barcode
	var mods []bool
	if bc.Values != nil {
		mods = code128{Values: bc.Values}.modules()
	}
	w := len(mods) * bc.ModuleWidth
	if mods == nil {
		w = min(c.area, max(len(bc.HRI)*11*bc.ModuleWidth, 40))
	}
	x := c.place(l.Align, w)
	if bc.HRIPosition&1 != 0 {
		c.text(bc.HRI, x, w, y)
		y += lineSpace
	}
	if mods == nil {
		// A symbology the simulator does not draw: a hatched box where it would be.
		for yy := 0; yy < bc.Height; yy += 4 {
			c.fill(x, y+yy, w, 1)
		}
	}
	for i, bar := range mods {
		if bar {
			c.fill(x+i*bc.ModuleWidth, y, bc.ModuleWidth, bc.Height)
		}
	}
	y += bc.Height + 4
	if bc.HRIPosition&2 != 0 {
		c.text(bc.HRI, x, w, y)
	}
}

func (c *canvas) qr(l Line, y int) {
	code, err := l.QR.encode()
	if err != nil {
		return
	}
	m := l.QR.Module
	x := c.place(l.Align, code.Size*m) // no quiet zone of its own: see lineHeight
	for j := range code.Size {
		for i := range code.Size {
			if code.Black(i, j) {
				c.fill(x+i*m, y+j*m, m, m)
			}
		}
	}
}
