package art

import (
	"image/color"
	"math"

	"pharaon/game"
)

// The palette of the tomb-wall night (DESIGN.md §8): lapis and indigo ground,
// gold and sand for frames and text, terracotta and turquoise accents. The
// drawings under svg/ use these values; the screens use them for everything
// they draw themselves (text, rectangles, effects) so both match.
//
// They are variables only because Go has no constant structs: never assign
// to them.
var (
	// Night is the deepest ground: the edges of the backdrops, shadows behind
	// windows.
	Night = color.NRGBA{R: 0x0A, G: 0x12, B: 0x33, A: 0xFF}
	// Lapis is the background of every screen.
	Lapis = color.NRGBA{R: 0x12, G: 0x22, B: 0x57, A: 0xFF}
	// LapisLight is panels, secondary buttons and the inlays of the art.
	LapisLight = color.NRGBA{R: 0x1E, G: 0x3A, B: 0x8A, A: 0xFF}
	// LapisGlow is a highlight on lapis (the glint of an inlay, a hover).
	LapisGlow = color.NRGBA{R: 0x3C, G: 0x64, B: 0xC8, A: 0xFF}

	// Gold is frames, rims, the ball and numbers that matter.
	Gold = color.NRGBA{R: 0xD9, G: 0xA9, B: 0x3A, A: 0xFF}
	// GoldLight is emphasised text on lapis (amounts, titles).
	GoldLight = color.NRGBA{R: 0xF4, G: 0xD6, B: 0x7C, A: 0xFF}
	// GoldDark is the shaded side of gold, input borders, separators.
	GoldDark = color.NRGBA{R: 0x8A, G: 0x63, B: 0x18, A: 0xFF}

	// Sand is body text on lapis.
	Sand = color.NRGBA{R: 0xE9, G: 0xD3, B: 0xA4, A: 0xFF}
	// Limestone is the pale stone of the cartouche tablet and the plaques:
	// the ground of the black silhouettes.
	Limestone = color.NRGBA{R: 0xF3, G: 0xE6, B: 0xC6, A: 0xFF}
	// Ink is the warm black of the outlines, and text drawn on gold or
	// limestone.
	Ink = color.NRGBA{R: 0x1C, G: 0x12, B: 0x06, A: 0xFF}

	// Terracotta is the primary action (Jouer, confirm).
	Terracotta = color.NRGBA{R: 0xA8, G: 0x44, B: 0x1F, A: 0xFF}
	// TerracottaDark is a pressed primary button.
	TerracottaDark = color.NRGBA{R: 0x7A, G: 0x2F, B: 0x14, A: 0xFF}
	// Turquoise is focus and the accent of the art.
	Turquoise = color.NRGBA{R: 0x26, G: 0xB3, B: 0xA6, A: 0xFF}
	// TurquoiseLight is links and the glow of a winning combination.
	TurquoiseLight = color.NRGBA{R: 0x6F, G: 0xDD, B: 0xD2, A: 0xFF}

	// Carnelian is the red of the bonus brick (Art. 4.7) and of the sun disc.
	Carnelian = color.NRGBA{R: 0xB3, G: 0x24, B: 0x1C, A: 0xFF}
	// Alert is an error or a fault on lapis (a lighter carnelian, to be read).
	Alert = color.NRGBA{R: 0xF0, G: 0x6A, B: 0x55, A: 0xFF}
	// Malachite is success (a win credited, a device ready).
	Malachite = color.NRGBA{R: 0x3C, G: 0xC4, B: 0x7A, A: 0xFF}

	// GhostWhite is the pale blue-white of the ghost mask (Art. 4.4), for
	// effects drawn around it.
	GhostWhite = color.NRGBA{R: 0xE8, G: 0xF1, B: 0xF4, A: 0xFF}
)

// Stone colours (Art. 4.5), the dominant colour of each gem: for the timer
// bar of a running spell and for particles.
var (
	StonePink  = color.NRGBA{R: 0xE0, G: 0x50, B: 0x8F, A: 0xFF}
	StoneGreen = color.NRGBA{R: 0x22, G: 0xA8, B: 0x62, A: 0xFF}
	StoneBlue  = color.NRGBA{R: 0x2F, G: 0x6F, B: 0xE0, A: 0xFF}
)

// StoneColor is the dominant colour of a spell stone; Lapis for an invalid one.
func StoneColor(s game.Stone) color.NRGBA {
	switch s {
	case game.Pink:
		return StonePink
	case game.Green:
		return StoneGreen
	case game.Blue:
		return StoneBlue
	}
	return Lapis
}

// The inks of the large-text, high-contrast mode (kiosk/ui/large.go), each
// at least 7:1 against Night and against the high-contrast buttons' fills
// (WCAG 2 AAA for text): the palette's inks brightened, their hues kept.
var (
	ContrastWhite     = color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF}
	ContrastGold      = color.NRGBA{R: 0xFF, G: 0xE1, B: 0x69, A: 0xFF}
	ContrastAlert     = color.NRGBA{R: 0xFF, G: 0xA8, B: 0x99, A: 0xFF}
	ContrastTurquoise = color.NRGBA{R: 0x8F, G: 0xF5, B: 0xEC, A: 0xFF}
	ContrastMalachite = color.NRGBA{R: 0x8C, G: 0xF0, B: 0xB4, A: 0xFF}
	ContrastGrey      = color.NRGBA{R: 0xC8, G: 0xCC, B: 0xD8, A: 0xFF}
)

// HighContrast is the high-contrast mode's ink for a text drawn in c on the
// night ground: white for the sands, a bright gold for the golds, lighter
// alert, turquoise and malachite; c itself when it has no counterpart (Ink,
// drawn on gold).
func HighContrast(c color.Color) color.Color {
	n, ok := c.(color.NRGBA)
	if !ok {
		return c
	}
	switch n {
	case Sand, Limestone, GhostWhite:
		return ContrastWhite
	case Gold, GoldLight, GoldDark:
		return ContrastGold
	case Alert, Carnelian:
		return ContrastAlert
	case Turquoise, TurquoiseLight:
		return ContrastTurquoise
	case Malachite:
		return ContrastMalachite
	}
	return c
}

// Luminance is c's relative luminance (WCAG 2), 0 for black, 1 for white.
func Luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(n.R) + 0.7152*lin(n.G) + 0.0722*lin(n.B)
}

// Contrast is the contrast ratio of two opaque colours (WCAG 2), 1 to 21.
func Contrast(a, b color.Color) float64 {
	la, lb := Luminance(a), Luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}
