package maint

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/touch"
	"pharaon/store"
)

// fsPlayer is the player's screens (kiosk/ui) of a kiosk just opened by
// its first start, in the window, driven as a player does: notes in the
// simulated validator, taps on the buttons. The machine's goroutines hand
// their work to a queue the test runs on its own goroutine, as the Fyne
// loop would; the game's frames run on a clock the test moves.
type fsPlayer struct {
	k   *fsKiosk
	s   *ui.Screens
	w   fyne.Window
	mu  sync.Mutex
	fs  []func()
	now time.Time
}

func (k *fsKiosk) player(w fyne.Window) *fsPlayer {
	p := &fsPlayer{k: k, w: w, now: time.Now()}
	p.s = ui.New(ui.Kiosk(k.m), ui.Options{Lang: ui.French, Now: p.clock, AttractAfter: -1, Do: p.queue})
	w.SetContent(p.s.Content())
	p.s.Start()
	k.t.Cleanup(p.s.Stop)
	return p
}

func (p *fsPlayer) clock() time.Time { return p.now }

func (p *fsPlayer) queue(f func()) {
	p.mu.Lock()
	p.fs = append(p.fs, f)
	p.mu.Unlock()
}

// flush runs what the machine handed the screens.
func (p *fsPlayer) flush() {
	for {
		p.mu.Lock()
		fs := p.fs
		p.fs = nil
		p.mu.Unlock()
		if len(fs) == 0 {
			return
		}
		for _, f := range fs {
			f()
		}
	}
}

// until runs what the machine hands the screens until cond holds.
func (p *fsPlayer) until(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for p.flush(); !cond(); p.flush() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; screen: %q", what, p.texts())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (p *fsPlayer) texts() []string {
	var out []string
	shWalk(p.s.Content(), func(o fyne.CanvasObject) {
		if t, ok := o.(*canvas.Text); ok && t.Text != "" && o.Visible() {
			out = append(out, t.Text)
		}
	})
	return out
}

// button is the visible, enabled button showing label, or nil.
func (p *fsPlayer) button(label string) *touch.Button {
	var found *touch.Button
	shWalk(p.s.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*touch.Button); ok && found == nil && b.Text == label && b.Visible() && !b.Disabled() {
			found = b
		}
	})
	return found
}

// tap taps the button showing label once it shows.
func (p *fsPlayer) tap(t *testing.T, label string) {
	t.Helper()
	p.until(t, func() bool { return p.button(label) != nil }, "the button "+label)
	test.Tap(p.button(label))
	p.flush()
}

// sell inserts a note, plays one game at stake in Auto and cashes the
// credit out, each by a tap on the player's screens, and waits for the
// voucher's card.
func (p *fsPlayer) sell(t *testing.T, note game.Money, stake game.Stake) {
	t.Helper()
	p.until(t, func() bool { return p.k.m.Snapshot().Cash.CanCashIn }, "the validator enabled")
	p.until(t, func() bool { return p.k.dev.InsertNote(note) == nil }, "the note taken")
	p.until(t, func() bool { return containsText(p.texts(), note.French()) }, "the credit on the home screen")
	p.tap(t, stake.Money().French())
	p.tap(t, "Auto")
	gs := p.s.GameScreen()
	// Frames are counted as drawn: until the game runs (the screens start
	// it once the kiosk has the stake), the loop waits, however long a
	// loaded machine takes to get there; the wall bound is only for a hang.
	frames, hang := 0, time.Now().Add(5*time.Minute)
	for !gs.Over() {
		require.Less(t, frames, 20000, "the game ends")
		require.True(t, time.Now().Before(hang), "the game ends: still not over after 5 minutes; screen %q", p.texts())
		if g := p.k.m.Current(); g != nil {
			g.Wait() // the kiosk's commit of what the last frame did
		}
		p.flush()
		if gs.Running() {
			p.now = p.now.Add(time.Second / 60)
			gs.Frame(p.now)
			frames++
		} else {
			time.Sleep(time.Millisecond)
		}
	}
	p.tap(t, "Accueil")
	credit := p.k.m.Snapshot().Credit
	require.Positive(t, credit)
	p.tap(t, "Encaisser")
	p.tap(t, "Imprimer")
	p.until(t, func() bool { return containsText(p.texts(), "Prenez votre bon") }, "the voucher's card")
	require.Equal(t, game.Money(0), p.k.m.Snapshot().Credit, "the credit paid out on the voucher")
	v, err := p.k.m.LastVoucher(t.Context())
	require.NoError(t, err)
	require.Equal(t, credit, v.Amount, "the voucher pays the whole credit")
	require.Equal(t, store.VoucherPrinted, v.State)
}

func containsText(texts []string, s string) bool {
	return slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, s) })
}
