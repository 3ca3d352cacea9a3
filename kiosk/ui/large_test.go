package ui

import (
	"fmt"
	"image/color"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
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
	switch {
	case f.s.toastVisible():
		all = drawnObjects(f.s.toastBox) // over the screen: read alone
	case len(f.s.timeBox.Objects) > 0:
		all = drawnObjects(f.s.timeBox) // the same
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
			// A line's box has room above and below its letters: a
			// large font's ascent stands about a third of its size
			// over its capitals.
			if overlaps(p, s, ep, es, 0.15*min(s.Height, es.Height)) {
				faults = append(faults, fmt.Sprintf("%q and %q are over each other", t.Text, e.o.(*canvas.Text).Text))
			}
		}
		// The ground under the text's middle: what is drawn before it.
		mid := fyne.NewPos(p.X+s.Width/2, p.Y+s.Height/2)
		ground := color.NRGBA{A: 0xFF}
		picture := false // a picture under the text, not covered since
		for _, g := range all[:d.order] {
			if !(mid.X >= g.pos.X && mid.X < g.pos.X+g.size.Width && mid.Y >= g.pos.Y && mid.Y < g.pos.Y+g.size.Height) {
				continue
			}
			var fill color.Color
			switch o := g.o.(type) {
			case *canvas.Rectangle:
				fill = o.FillColor
			case *canvas.Circle:
				fill = o.FillColor
			case *canvas.Image:
				picture = picture || g.size.Width > 0 && g.size.Height > 0
			}
			if fill != nil {
				ground = over(fill, ground)
				if _, _, _, a := fill.RGBA(); a == 0xFFFF {
					picture = false
				}
			}
		}
		if picture {
			faults = append(faults, fmt.Sprintf("%q is drawn on a picture", t.Text))
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
	f.runUI(func() { f.s.drawLarge(false) })
	usual := textSizes(f)
	f.runUI(func() { f.s.drawLarge(true) })
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
				require.NoError(t, f.s.opt.Dev.InsertCounterfeit())
				f.waitFor(func() bool { return f.s.toast.ev.Kind == kiosk.NoteReturned && f.s.toastVisible() }, "the note given back")
				largeChecked(t, f, "toast of a note given back")
				f.expireToast()

				f.tap(f.s.tr.T(msgCashOut))
				require.Equal(t, ovCashConfirm, f.s.overlay)
				look("cash-confirm")
				f.tapOnCard(f.s.tr.T(msgCancel))

				f.tap(f.s.tr.Stake(game.Stake100))
				f.tap(f.s.tr.T(msgAuto))
				for i := 0; i < 30; i++ {
					f.frame()
				}
				look("game")
				f.runUI(func() { f.s.showPrizeTable(game.Stake100) })
				require.Equal(t, ovPrizeTable, f.s.overlay)
				look("prize-table")
				f.runUI(f.s.closePrizeTable)
				f.playToEnd(false)
				f.endShown()
				require.Equal(t, ovWin, f.s.overlay)
				look("win")
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
				largeChecked(t, f, "voucher") // its validation number is drawn at random: no golden
				require.True(t, f.s.large.on, "the voucher's card is read in the mode")
				f.tapOnCard(f.s.tr.T(msgDone))
				require.Equal(t, scrHome, f.s.screen)
				assert.False(t, f.s.large.on, "the session over, the mode ends")
				assert.Nil(t, f.button(f.s.tr.T(msgRulesTitle)), "the rules on the home screen again, not behind a button")
			})
		}
	}
}

// The screens that speak to whoever stands at the kiosk in both languages
// (out of service, a hand-pay) in the large-text mode, switched on before
// they came: at both sizes, everything fits at 1.5 times and 7:1.
func TestLargeTextFitsTheBilingualScreens(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1024, Height: 768}, {Width: 1920, Height: 1080}} {
		t.Run(fmt.Sprintf("%vx%v", size.Width, size.Height), func(t *testing.T) {
			f := newScrFixtureSized(t, size, outOfService())
			require.Equal(t, scrOutOfService, f.s.screen)
			f.runUI(func() { f.s.setLarge(true) })
			largeChecked(t, f, "out-of-service")
			f.golden(fmt.Sprintf("large-out-of-service-%vx%v.png", size.Width, size.Height))

			f = newScrFixtureSized(t, size, withHandPay(0))
			f.credit(10 * game.Euro)
			f.tap("Aa")
			f.tap(fr(game.Stake100.Money()))
			f.tap("Auto")
			f.playToEnd(false)
			f.flush()
			require.Equal(t, ovWin, f.s.overlay)
			largeChecked(t, f, "win, paid by the staff")
			f.tap("Accueil")
			require.Equal(t, scrHandPay, f.s.screen)
			largeChecked(t, f, "hand-pay")
			f.golden(fmt.Sprintf("large-handpay-%vx%v.png", size.Width, size.Height))

			m := newFakeMachine(t, 0)
			f = newFakeFixture(t, m)
			f.runUI(func() { f.w.Resize(size) })
			f.tap("Aa")
			m.push(func(s *kiosk.Snapshot) { s.Maintenance, s.Restarting = true, true })
			f.flush()
			require.Equal(t, scrRestart, f.s.screen)
			largeChecked(t, f, "restart")
		})
	}
}

// A game's ends in the large-text mode: the bonus game's intro, its wall,
// its window and the total won; a losing unit's banner; the reality check
// and the strip that warns of a timeout. At both sizes, in French.
func TestLargeTextFitsTheGamesEnds(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1024, Height: 768}, {Width: 1920, Height: 1080}} {
		t.Run(fmt.Sprintf("%vx%v", size.Width, size.Height), func(t *testing.T) {
			look := func(f *scrFixture, name string) {
				t.Helper()
				largeChecked(t, f, name)
				f.golden(fmt.Sprintf("large-%s-%vx%v.png", name, size.Width, size.Height))
			}
			f := newScrFixtureSized(t, size, withDevices(nil))
			f.cashReady()
			f.insertNote(20 * game.Euro)
			f.tap("Aa")
			f.tap(fr(game.Stake200.Money()))
			f.tap("Jouer")
			g := f.game()
			require.True(t, g.Walls().ViaBonus, "the scenario's first 2 € unit is won through the bonus game")
			for i := 0; i < 15*240 && g.Stage() == kiosk.StageMain; i++ {
				f.steer()
				f.frameAfter(slowFrame)
			}
			sawIntro := false
			for i := 0; i < 60*10 && !f.s.gs.Playfield().World().IsBonus(); i++ {
				if f.s.overlay == ovBonusIntro && !sawIntro {
					sawIntro = true
					largeChecked(t, f, "bonus-intro")
				}
				f.frame()
			}
			require.True(t, sawIntro)
			f.frames(60)
			look(f, "bonus")
			f.playToEnd(true)
			require.Equal(t, ovBonusWin, f.s.overlay)
			largeChecked(t, f, "bonus-win")
			f.tap("Continuer")
			require.Equal(t, ovResult, f.s.overlay)
			look(f, "result")
			f.tap("Accueil")

			// A losing unit: the scenario's 0,50 € units lose.
			f.tap(fr(game.Stake050.Money()))
			f.tap("Auto")
			f.playToEnd(false)
			f.endShown()
			require.Equal(t, ovLose, f.s.overlay)
			look(f, "lose")
			f.tap("Accueil")

			f.tap("Historique")
			f.clock.Advance(f.s.opt.HistoryTimeout - 5*time.Second)
			f.runUI(func() { f.s.Poll(f.clock.Now()) })
			require.NotEmpty(t, f.s.timeBox.Objects, "the strip that warns of the return home")
			look(f, "time-warning")
			f.tap(f.s.tr.T(msgMoreTime))
			f.tap(f.s.tr.T(msgBack))

			f.clock.Advance(30 * time.Minute)
			f.m.Poll()
			f.flush()
			require.Equal(t, ovReality, f.s.overlay, "30 minutes: the reality check")
			largeChecked(t, f, "reality-check")
			require.True(t, f.s.large.on)
		})
	}
}

// The keypad's ring in the mode: white and wider than the usual gold one,
// around the button focused, so that it stands out from the gold rims.
func TestLargeTextFocusRing(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap("Aa")
	f.key(fyne.KeyDown)
	require.Len(t, f.s.focusBox.Objects, 1)
	ring := f.s.focusBox.Objects[0].(*canvas.Rectangle)
	assert.Equal(t, art.ContrastWhite, ring.StrokeColor)
	assert.InDelta(t, focusRingWidth*f.s.v.k*largeScale, ring.StrokeWidth, 0.01)
	f.tap("Aa")
	f.key(fyne.KeyDown)
	ring = f.s.focusBox.Objects[0].(*canvas.Rectangle)
	assert.Equal(t, art.GoldLight, ring.StrokeColor, "the usual ring once the mode is off")
}
