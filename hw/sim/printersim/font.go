package printersim

import (
	"image"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// glyph is a character cell of font A as the print head burns it: 12 x 24 dots, one bit per dot
// (bit 11 of a row is the leftmost dot).
type glyph [cellH]uint16

// The printer's ROM font is a bitmap; the simulator makes one from Go Mono (a monospaced font that
// ships with golang.org/x/image and covers every character of the code pages it prints, € included)
// rasterised once at the cell size and cut at half grey, which looks like a thermal print.
var glyphs = struct {
	once  sync.Once
	face  font.Face
	asc   int
	mu    sync.Mutex
	cache map[rune]*glyph
}{cache: map[rune]*glyph{}}

func loadFace() {
	f, err := opentype.Parse(gomono.TTF)
	if err != nil {
		panic("printersim: go mono font: " + err.Error()) // the font is compiled in: cannot happen
	}
	// Go Mono's advance is 0.6 em: 20 px gives the 12-dot cell of font A.
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 20, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic("printersim: go mono face: " + err.Error())
	}
	glyphs.face = face
	m := face.Metrics()
	// Centre the font's height in the cell so accents on capitals and descenders both fit.
	glyphs.asc = (cellH-(m.Ascent+m.Descent).Ceil())/2 + m.Ascent.Ceil()
}

// glyphOf returns the cell of r, or a hollow box for a character the font lacks.
func glyphOf(r rune) *glyph {
	glyphs.once.Do(loadFace)
	glyphs.mu.Lock()
	defer glyphs.mu.Unlock()
	if g, ok := glyphs.cache[r]; ok {
		return g
	}
	g := new(glyph)
	if r == ' ' || r == '\u00A0' {
		glyphs.cache[r] = g
		return g
	}
	if _, ok := glyphs.face.GlyphAdvance(r); !ok {
		for y := 4; y < 20; y++ {
			g[y] = 1<<10 | 1<<2
		}
		g[4], g[19] = 0x7FC, 0x7FC
		glyphs.cache[r] = g
		return g
	}
	dst := image.NewAlpha(image.Rect(0, 0, cellW, cellH))
	d := font.Drawer{Dst: dst, Src: image.Opaque, Face: glyphs.face, Dot: fixed.P(0, glyphs.asc)}
	d.DrawString(string(r))
	for y := range cellH {
		for x := range cellW {
			if dst.AlphaAt(x, y).A >= 0x80 {
				g[y] |= 1 << (cellW - 1 - x)
			}
		}
	}
	glyphs.cache[r] = g
	return g
}
