package art

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// The screens' text is drawn in the theme's own font, named on every text
// (canvas.Text.FontSource), not looked up through the theme. A text with
// no font of its own makes Fyne build, for each of its styles, a chain of
// fonts to fall back on: the theme's font, the 4 MB colour emoji font
// bundled with Fyne, and a system font for the language, each parsed and
// kept for the life of the process (about 10 MB in play for the regular
// and bold styles). A text with its font is shaped with that one font,
// parsed once. Every character the screens show is in it (the catalogue
// test checks the words and the amounts): nothing is lost by not falling
// back.

// TextFont is the font the screens draw text in, for style: the theme's.
func TextFont(style fyne.TextStyle) fyne.Resource { return kioskTheme{}.Font(style) }

// Typeset gives t the font of its style (TextFont), and returns it: call
// it once the style is set.
func Typeset(t *canvas.Text) *canvas.Text {
	t.FontSource = TextFont(t.TextStyle)
	return t
}

// MeasureText is fyne.MeasureText for text drawn in TextFont(style).
func MeasureText(s string, size float32, style fyne.TextStyle) fyne.Size {
	t := canvas.Text{Text: s, TextSize: size, TextStyle: style, FontSource: TextFont(style)}
	return t.MinSize()
}
