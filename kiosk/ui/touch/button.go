// Package touch is the kiosk's button: sized for a finger, with the kiosk's
// look. The screens (kiosk/ui) and the game widget (kiosk/ui/play) share it.
package touch

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk/ui/art"
)

// Kind is how a button looks: what it does for the player.
type Kind uint8

const (
	Primary   Kind = iota // Jouer, Rejouer: terracotta
	Secondary             // Auto, Historique, Accueil: lapis with a gold rim
	Choice                // a stake not chosen: lapis with a gold rim
	Chosen                // the stake chosen: gold, ink text
	Quiet                 // a small action (language, dev credit)
)

// Button is a button sized for a finger (at least 60 px, DESIGN.md §8)
// with the kiosk's look: a rounded tablet, one line of large text and an
// optional caption below it. Its text size is set by the screen that builds
// it, in canvas pixels, so it scales with the screen.
type Button struct {
	widget.BaseWidget

	Text     string
	Caption  string // a second, smaller line ("indisponible")
	TextSize float32
	// CaptionSize is the caption's text size (0: 0.55 × TextSize).
	CaptionSize float32
	Kind        Kind
	Radius      float32
	OnTapped    func()
	// HighContrast draws it in the large-text mode's colours: opaque
	// fills, and text at least 7:1 against them (art.HighContrast).
	HighContrast bool
	// WrapCaption breaks a caption wider than the button into two lines
	// at a space, rather than letting it run past the edges.
	WrapCaption bool

	disabled bool
	pressed  bool
}

// MinTouch is the smallest touch target, DESIGN.md §8.
const MinTouch float32 = 60

// DefaultRadius is a button's corner radius until the screen scales it.
const DefaultRadius float32 = 12

// NewButton is a button of kind showing text at size (canvas pixels) that
// runs tapped when touched.
func NewButton(text string, kind Kind, size float32, tapped func()) *Button {
	b := &Button{Text: text, Kind: kind, TextSize: size, OnTapped: tapped, Radius: DefaultRadius}
	b.ExtendBaseWidget(b)
	return b
}

// Disable greys the button out; a tap does nothing.
func (b *Button) Disable() {
	if !b.disabled {
		b.disabled = true
		b.Refresh()
	}
}

// Enable makes it tappable again.
func (b *Button) Enable() {
	if b.disabled {
		b.disabled = false
		b.Refresh()
	}
}

// SetEnabled enables or disables the button.
func (b *Button) SetEnabled(on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// Disabled reports whether the button is disabled.
func (b *Button) Disabled() bool { return b.disabled }

// Tapped runs OnTapped unless the button is disabled.
func (b *Button) Tapped(*fyne.PointEvent) {
	if b.disabled || b.OnTapped == nil {
		return
	}
	b.OnTapped()
}

// MouseDown shows the press (a touchscreen reports a touch as a mouse press).
func (b *Button) MouseDown(*desktop.MouseEvent) {
	if !b.disabled {
		b.pressed = true
		b.Refresh()
	}
}

// MouseUp ends the press.
func (b *Button) MouseUp(*desktop.MouseEvent) {
	if b.pressed {
		b.pressed = false
		b.Refresh()
	}
}

func (b *Button) captionSize() float32 {
	if b.CaptionSize > 0 {
		return b.CaptionSize
	}
	return b.TextSize * 0.55
}

// FitCaption sets the caption and makes its text small enough to fit the
// button's width (down to 0.4 × TextSize): a device's message can be long.
func (b *Button) FitCaption(caption string) {
	b.Caption = caption
	size := b.TextSize * 0.55
	room := b.Size().Width - b.TextSize*0.6
	for size > b.TextSize*0.4 && art.MeasureText(caption, size, fyne.TextStyle{}).Width > room {
		size -= 0.5
	}
	b.CaptionSize = size
	b.Refresh()
}

func (b *Button) CreateRenderer() fyne.WidgetRenderer {
	r := &buttonRenderer{b: b, bg: canvas.NewRectangle(color.Transparent),
		label: canvas.NewText("", art.Sand), caption: canvas.NewText("", art.Sand), caption2: canvas.NewText("", art.Sand)}
	r.label.Alignment = fyne.TextAlignCenter
	r.label.TextStyle.Bold = true
	r.caption.Alignment = fyne.TextAlignCenter
	r.caption2.Alignment = fyne.TextAlignCenter
	art.Typeset(r.label)
	art.Typeset(r.caption)
	art.Typeset(r.caption2)
	r.objects = []fyne.CanvasObject{r.bg, r.label, r.caption, r.caption2}
	r.Refresh()
	return r
}

type buttonRenderer struct {
	b        *Button
	bg       *canvas.Rectangle
	label    *canvas.Text
	caption  *canvas.Text
	caption2 *canvas.Text // the caption's second line (WrapCaption)
	objects  []fyne.CanvasObject
}

func (r *buttonRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *buttonRenderer) Destroy()                     {}

func (r *buttonRenderer) MinSize() fyne.Size {
	ls := art.MeasureText(r.b.Text, r.b.TextSize, r.label.TextStyle)
	return fyne.NewSize(ls.Width+r.b.TextSize, max(ls.Height+r.b.TextSize/2, MinTouch))
}

func (r *buttonRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	ls := r.label.MinSize()
	if r.b.Caption == "" {
		r.label.Move(fyne.NewPos(0, (size.Height-ls.Height)/2))
		r.label.Resize(fyne.NewSize(size.Width, ls.Height))
		return
	}
	// The caption's lines for this width: a resize alone may change them.
	if first, second := r.b.captionLines(size.Width); first != r.caption.Text || second != r.caption2.Text {
		r.caption.Text, r.caption2.Text = first, second
		r.caption2.Hidden = second == ""
		r.caption.Refresh()
		r.caption2.Refresh()
	}
	cs := r.caption.MinSize()
	h2 := float32(0)
	if !r.caption2.Hidden {
		h2 = r.caption2.MinSize().Height
	}
	top := (size.Height - ls.Height - cs.Height - h2) / 2
	r.label.Move(fyne.NewPos(0, top))
	r.label.Resize(fyne.NewSize(size.Width, ls.Height))
	r.caption.Move(fyne.NewPos(0, top+ls.Height))
	r.caption.Resize(fyne.NewSize(size.Width, cs.Height))
	r.caption2.Move(fyne.NewPos(0, top+ls.Height+cs.Height))
	r.caption2.Resize(fyne.NewSize(size.Width, h2))
}

// captionLines are the caption's lines: one, or two when WrapCaption and
// it is wider than the button's room (broken at the last space that lets
// the first line fit).
func (b *Button) captionLines(width float32) (string, string) {
	c := b.Caption
	room := width - b.TextSize*0.6
	style := fyne.TextStyle{}
	if !b.WrapCaption || room <= 0 || art.MeasureText(c, b.captionSize(), style).Width <= room {
		return c, ""
	}
	for i := len(c) - 1; i > 0; i-- {
		if c[i] == ' ' && art.MeasureText(c[:i], b.captionSize(), style).Width <= room {
			return c[:i], c[i+1:]
		}
	}
	return c, ""
}

// colours of a button: fill, rim, text.
func (r *buttonRenderer) colours() (fill, rim, fg color.Color) {
	if r.b.HighContrast {
		return r.contrastColours()
	}
	b := r.b
	switch {
	case b.disabled:
		return color.NRGBA{R: 0x1A, G: 0x27, B: 0x55, A: 0xE0}, color.NRGBA{R: 0x4A, G: 0x4E, B: 0x66, A: 0xFF},
			color.NRGBA{R: 0x8A, G: 0x8F, B: 0xA6, A: 0xFF}
	case b.Kind == Primary:
		if b.pressed {
			return art.TerracottaDark, art.Gold, art.Limestone
		}
		return art.Terracotta, art.Gold, art.Limestone
	case b.Kind == Chosen:
		return art.Gold, art.GoldLight, art.Ink
	case b.Kind == Quiet:
		if b.pressed {
			return art.LapisGlow, art.GoldDark, art.Sand
		}
		return color.NRGBA{R: art.LapisLight.R, G: art.LapisLight.G, B: art.LapisLight.B, A: 0xC0}, art.GoldDark, art.Sand
	}
	if b.pressed {
		return art.LapisGlow, art.Gold, art.GoldLight
	}
	return art.LapisLight, art.Gold, art.GoldLight
}

// contrastColours are colours() in the high-contrast mode: every fill
// opaque, the terracotta darker and the texts brighter, so that each text
// is at least 7:1 against its fill (touch_test.go measures them).
func (r *buttonRenderer) contrastColours() (fill, rim, fg color.Color) {
	b := r.b
	switch {
	case b.disabled:
		return color.NRGBA{R: 0x1A, G: 0x27, B: 0x55, A: 0xFF}, art.ContrastGrey, art.ContrastGrey
	case b.Kind == Primary:
		return art.TerracottaDark, art.ContrastGold, art.ContrastWhite
	case b.Kind == Chosen:
		return art.Gold, art.ContrastWhite, art.Ink
	case b.Kind == Quiet:
		if b.pressed {
			return art.Lapis, art.ContrastGold, art.ContrastWhite
		}
		return art.LapisLight, art.ContrastGold, art.ContrastWhite
	}
	if b.pressed {
		return art.Lapis, art.ContrastGold, art.ContrastGold
	}
	return art.LapisLight, art.ContrastGold, art.ContrastGold
}

func (r *buttonRenderer) Refresh() {
	b := r.b
	fill, rim, fg := r.colours()
	r.bg.FillColor, r.bg.StrokeColor = fill, rim
	r.bg.StrokeWidth = max(2, b.TextSize/12)
	r.bg.CornerRadius = b.Radius
	r.label.Text, r.label.Color, r.label.TextSize = b.Text, fg, b.TextSize
	first, second := b.captionLines(b.Size().Width)
	r.caption.Text, r.caption.Color, r.caption.TextSize = first, fg, b.captionSize()
	r.caption.Hidden = b.Caption == ""
	r.caption2.Text, r.caption2.Color, r.caption2.TextSize = second, fg, b.captionSize()
	r.caption2.Hidden = second == ""
	r.Layout(b.Size())
	r.bg.Refresh()
	r.label.Refresh()
	r.caption.Refresh()
	r.caption2.Refresh()
}

var (
	_ fyne.Tappable     = (*Button)(nil)
	_ desktop.Mouseable = (*Button)(nil)
)
