package ui

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

// drawn is one object as the canvas draws it: its place in the window and
// its order of drawing; owner is the button it belongs to, if any.
type drawn struct {
	o     fyne.CanvasObject
	pos   fyne.Position
	size  fyne.Size
	order int
	owner *touchButton
}

// drawnObjects are the visible objects under root in drawing order, at
// their places in the window.
func drawnObjects(root fyne.CanvasObject) []drawn {
	var out []drawn
	var walk func(o fyne.CanvasObject, at fyne.Position, owner *touchButton)
	walk = func(o fyne.CanvasObject, at fyne.Position, owner *touchButton) {
		if o == nil || !o.Visible() {
			return
		}
		p := at.Add(o.Position())
		out = append(out, drawn{o: o, pos: p, size: o.Size(), order: len(out), owner: owner})
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c, p, owner)
			}
		case *touchButton:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c, p, x)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c, p, owner)
			}
		}
	}
	walk(root, fyne.Position{}, nil)
	return out
}

// inked is a text as drawn: its text's own box (its width is the
// text's, placed by its alignment within the box it was given).
func inked(d drawn) (fyne.Position, fyne.Size) {
	t := d.o.(*canvas.Text)
	m := t.MinSize()
	x := d.pos.X
	switch t.Alignment {
	case fyne.TextAlignCenter:
		x += (d.size.Width - m.Width) / 2
	case fyne.TextAlignTrailing:
		x += d.size.Width - m.Width
	}
	return fyne.NewPos(x, d.pos.Y), m
}

func overlaps(ap fyne.Position, as fyne.Size, bp fyne.Position, bs fyne.Size, slack float32) bool {
	return ap.X+slack < bp.X+bs.Width && bp.X+slack < ap.X+as.Width && ap.Y+slack < bp.Y+bs.Height && bp.Y+slack < ap.Y+as.Height
}

// over composes c over the ground g (both colours; g opaque).
func over(c, g color.Color) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(g).(color.NRGBA)
	a := float64(n.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{R: mix(n.R, b.R), G: mix(n.G, b.G), B: mix(n.B, b.B), A: 0xFF}
}

// largeFaults are what is wrong on the window shown in the large-text
// mode, in words: a text wider than its box or out of the window, two
// texts or a text and a button not its own over each other, a text on a
// picture, a text under 7:1 against its ground.
func largeFaults(f *scrFixture) []string {
	f.flush()
	root := fyne.CanvasObject(f.s.scrBox)
	if len(f.s.ovBox.Objects) > 0 {
		root = f.s.ovBox // a card or window over the screen: it is what is read
	}
	all := drawnObjects(root)
	all = append(all, drawnObjects(f.s.timeBox)...)
	if f.s.toastVisible() {
		all = drawnObjects(f.s.toastBox) // over the screen: read alone
	}
	win := f.w.Canvas().Size()
	var faults []string
	var texts []drawn
	for _, d := range all {
		if t, ok := d.o.(*canvas.Text); ok && t.Text != "" {
			texts = append(texts, d)
		}
	}
	for i, d := range texts {
		t := d.o.(*canvas.Text)
		p, s := inked(d)
		if s.Width > d.size.Width+1 {
			faults = append(faults, fmt.Sprintf("%q is %.0f wide in a box of %.0f", t.Text, s.Width, d.size.Width))
		}
		if p.X < -0.5 || p.Y < -0.5 || p.X+s.Width > win.Width+0.5 || p.Y+s.Height > win.Height+0.5 {
			faults = append(faults, fmt.Sprintf("%q at %v %v is out of the window", t.Text, p, s))
		}
		for _, e := range texts[i+1:] {
			if e.owner != nil && e.owner == d.owner {
				continue // a button's label and caption
			}
			ep, es := inked(e)
			if overlaps(p, s, ep, es, 2) {
				faults = append(faults, fmt.Sprintf("%q and %q are over each other", t.Text, e.o.(*canvas.Text).Text))
			}
		}
		// The ground under the text's middle: what is drawn before it.
		mid := fyne.NewPos(p.X+s.Width/2, p.Y+s.Height/2)
		ground := color.NRGBA{A: 0xFF}
		for _, g := range all[:d.order] {
			if !(mid.X >= g.pos.X && mid.X < g.pos.X+g.size.Width && mid.Y >= g.pos.Y && mid.Y < g.pos.Y+g.size.Height) {
				continue
			}
			switch o := g.o.(type) {
			case *canvas.Rectangle:
				ground = over(o.FillColor, ground)
			case *canvas.Circle:
				ground = over(o.FillColor, ground)
			case *canvas.Image:
				if g.size.Width > 0 && g.size.Height > 0 {
					faults = append(faults, fmt.Sprintf("%q is drawn on a picture", t.Text))
				}
			}
		}
		for _, b := range all {
			bt, ok := b.o.(*touchButton)
			if !ok || bt == d.owner {
				continue
			}
			if overlaps(p, s, b.pos, b.size, 2) {
				faults = append(faults, fmt.Sprintf("%q is over the button %q", t.Text, bt.Text))
			}
		}
		if c := art.Contrast(over(t.Color, ground), ground); c < 7 {
			faults = append(faults, fmt.Sprintf("%q is %.2f:1 against its ground", t.Text, c))
		}
	}
	return faults
}

// textSizes are the sizes of the visible texts of the window, by text.
func textSizes(f *scrFixture) map[string]float32 {
	f.flush()
	sizes := map[string]float32{}
	root := fyne.CanvasObject(f.s.scrBox)
	if len(f.s.ovBox.Objects) > 0 {
		root = f.s.ovBox
	}
	for _, d := range append(drawnObjects(root), drawnObjects(f.s.toastBox)...) {
		if t, ok := d.o.(*canvas.Text); ok && t.Text != "" {
			sizes[t.Text] = t.TextSize
		}
	}
	return sizes
}

// largeChecked checks the window shown, in the large-text mode: nothing
// wrong (largeFaults), and every text shown also in the usual mode at
// least largeScale times its usual size, the smallest too.
func largeChecked(t *testing.T, f *scrFixture, name string) {
	t.Helper()
	require.True(t, f.s.large.on)
	for _, fault := range largeFaults(f) {
		t.Errorf("%s at %v: %s", name, f.w.Canvas().Size(), fault)
	}
	large := textSizes(f)
	f.runUI(func() { f.s.v.large = false; f.s.rebuild() })
	usual := textSizes(f)
	f.runUI(func() { f.s.v.large = true; f.s.rebuild() })
	least := func(m map[string]float32) float32 {
		l := float32(math.MaxFloat32)
		for _, s := range m {
			l = min(l, s)
		}
		return l
	}
	same := 0
	for text, size := range large {
		if u, ok := usual[text]; ok {
			same++
			assert.GreaterOrEqual(t, size, u*largeScale-0.01, "%s: %q at %.1f, usually %.1f", name, text, size, u)
		}
	}
	assert.Positive(t, same, "%s: texts found in both modes", name)
	assert.GreaterOrEqual(t, least(large), least(usual)*largeScale-0.01, "%s: the smallest text", name)
}

// The large-text mode on every screen a player reaches, in French and in
// English, at 1024×768 and 1920×1080: every text 1.5 times larger, inside
// its box and the window, over nothing else, at 7:1 at least.
func TestLargeTextFits(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1024, Height: 768}, {Width: 1920, Height: 1080}} {
		for _, en := range []bool{false, true} {
			t.Run(fmt.Sprintf("%vx%v-en=%v", size.Width, size.Height, en), func(t *testing.T) {
				opts := []fixtureOption{withDevices(nil)}
				if en {
					opts = append(opts, inEnglish())
				}
				f := newScrFixtureSized(t, size, opts...)
				look := func(name string) {
					t.Helper()
					largeChecked(t, f, name)
					if !en {
						f.golden(fmt.Sprintf("large-%s-%vx%v.png", name, size.Width, size.Height))
					}
				}
				f.tap("Aa")
				look("home")
				f.tap(f.s.tr.T(msgLimitButton))
				require.Equal(t, ovLimit, f.s.overlay)
				look("limit")
				f.tapOnCard(f.s.tr.T(msgClose))
				f.tap(f.s.tr.T(msgRulesTitle))
				require.Equal(t, ovRules, f.s.overlay)
				look("rules")
				f.tap(f.s.tr.T(msgClose))
				// The development panel is not shown in the mode: the note
				// goes into the simulator's slot.
				require.NoError(t, f.s.opt.Dev.InsertNote(10*game.Euro))
				f.waitFor(func() bool { return f.s.snap.Credit == 10*game.Euro }, "the note credited")
				require.True(t, f.s.toastVisible())
				largeChecked(t, f, "toast")
				f.expireToast()
				look("home-credit")

				f.tap(f.s.tr.T(msgCashOut))
				require.Equal(t, ovCashConfirm, f.s.overlay)
				look("cash-confirm")
				f.tapOnCard(f.s.tr.T(msgCancel))

				f.tap(f.s.tr.Stake(game.Stake100))
				f.tap(f.s.tr.T(msgAuto))
				f.playToEnd(false)
				f.endShown()
				f.tap(f.s.tr.T(msgHome))
				require.Equal(t, scrHome, f.s.screen)
				require.True(t, f.s.large.on, "the mode stays on while the session goes on")
				f.tap(f.s.tr.T(msgHistory))
				require.Equal(t, scrHistory, f.s.screen)
				look("history")

				f.tap(f.s.tr.T(msgBack))
				f.tap(f.s.tr.T(msgCashOut))
				f.tapOnCard(f.s.tr.T(msgPrint))
				f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher printed")
				look("voucher")
				require.True(t, f.s.large.on, "the voucher's card is read in the mode")
				f.tapOnCard(f.s.tr.T(msgDone))
				require.Equal(t, scrHome, f.s.screen)
				assert.False(t, f.s.large.on, "the session over, the mode ends")
				assert.Nil(t, f.button(f.s.tr.T(msgRulesTitle)), "the rules on the home screen again, not behind a button")
			})
		}
	}
}
