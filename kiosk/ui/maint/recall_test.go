package maint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/store"
)

// The recall and hand-pay views are built from an Env on a real machine
// (kiosk.Office on a copy of a template database) and shown alone in a test
// window at the kiosk's size.

var (
	rclTemplateOnce sync.Once
	rclTemplate     kiosktest.TemplateFiles
	rclTemplateErr  error
)

type rclClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *rclClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *rclClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type rclFix struct {
	t     *testing.T
	clock *rclClock
	st    *store.Store
	m     *kiosk.Machine
	o     *kiosk.Office
	staff *kiosk.Session
	w     fyne.Window
	env   *Env
}

// newRclFix starts a kiosk whose blocks begin with every outcome (a loser,
// every tier won directly, then through the bonus) and a staff session.
// handPayLimit 0 is the default limit.
func newRclFix(t *testing.T, handPayLimit game.Money) *rclFix {
	t.Helper()
	rclTemplateOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pharaon-recall-template-")
		if err != nil {
			rclTemplateErr = err
			return
		}
		defer os.RemoveAll(dir)
		heads := map[game.Stake][]kiosktest.Unit{}
		for _, s := range game.Stakes {
			heads[s] = kiosktest.EveryOutcome()
		}
		rclTemplate, rclTemplateErr = kiosktest.Template(filepath.Join(dir, "pharaon.db"), heads)
	})
	require.NoError(t, rclTemplateErr)
	path, err := kiosktest.CopyTemplate(rclTemplate, t.TempDir())
	require.NoError(t, err)

	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	f := &rclFix{t: t, clock: &rclClock{now: time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)}}
	f.st, err = store.Open(path, store.WithClock(f.clock.Now))
	require.NoError(t, err)
	f.m, err = kiosk.New(f.st, f.clock, kiosk.Config{Dev: true, Keys: kiosktest.Keys, ResultTimeout: time.Hour,
		Cash: kiosk.CashConfig{HandPayLimit: handPayLimit}})
	require.NoError(t, err)
	require.NoError(t, f.m.Start(context.Background()))
	t.Cleanup(func() { _ = f.m.Close(); _ = f.st.Close() })
	acc := kiosk.NewAccess(f.st, f.clock, kiosk.AccessConfig{KDF: kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}})
	setup, err := acc.SetupSession(context.Background())
	require.NoError(t, err)
	require.NoError(t, acc.Setup(context.Background(), setup, "246800", "135700"))
	f.o = kiosk.NewOffice(f.m, acc, time.Hour)
	f.staff, err = f.o.Login(context.Background(), "135700")
	require.NoError(t, err)
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	f.env = &Env{Ctx: context.Background(), Session: f.staff, Tr: Tr{Lang: ui.French},
		Now: f.clock.Now, Loc: paris, Go: func(g func()) { g() }, Do: func(g func()) { g() }}
	return f
}

// play sells a unit of stake and plays it to its end, a minute later than
// the last; in Jouer the paddle follows the ball now and then.
func (f *rclFix) play(s game.Stake, mode breakout.Mode) *kiosk.Game {
	f.t.Helper()
	f.clock.Advance(time.Minute)
	return playUnit(f.t, f.st, f.m, s, mode)
}

// playUnit sells a unit of stake on m and plays it to its end; in Jouer
// the paddle follows the ball now and then.
func playUnit(t testing.TB, st *store.Store, m *kiosk.Machine, s game.Stake, mode breakout.Mode) *kiosk.Game {
	t.Helper()
	_, err := st.TestModeMovement(context.Background(), s.Money(), "", "test credit")
	require.NoError(t, err)
	var g *kiosk.Game
	require.Eventually(t, func() bool {
		g, err = m.Play(context.Background(), s, mode)
		return err == nil
	}, 5*time.Second, 5*time.Millisecond, "play: the machine reads the test credit back")
	for i := 0; g.Stage() != kiosk.StageDone; i++ {
		require.Less(t, i, 4*60*breakout.TicksPerSecond)
		require.NoError(t, g.Err())
		if !g.Settled() {
			g.Wait()
			continue
		}
		in := breakout.Input{}
		if mode == breakout.Play && i%3 == 0 {
			b := g.World().Ball()
			in = breakout.Input{Steer: true, PaddleX: b.X + int32(i%200) - 100, Launch: b.Phase == breakout.OnPaddle && i%7 == 0}
		}
		g.Step(in)
	}
	m.EndResult()
	return g
}

// show puts o alone in a test window at the kiosk's size.
func (f *rclFix) show(o fyne.CanvasObject) {
	f.w = test.NewWindow(o)
	f.w.SetPadded(false)
	f.w.Resize(fyne.NewSize(1280, 800))
	f.t.Cleanup(f.w.Close)
}

// rclButtons are the buttons under o labelled label, in order.
func rclButtons(o fyne.CanvasObject, label string) []*widget.Button {
	var out []*widget.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Button:
			if x.Text == label {
				out = append(out, x)
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(x.Content)
		}
	}
	walk(o)
	return out
}

// rclTap taps the one button labelled label.
func (f *rclFix) tap(o fyne.CanvasObject, label string) {
	f.t.Helper()
	bs := rclButtons(o, label)
	require.Len(f.t, bs, 1, "one button %q", label)
	test.Tap(bs[0])
}

func rclTexts(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *canvas.Text:
			b.WriteString(x.Text + "\n")
		case *widget.Button:
			b.WriteString(x.Text + "\n")
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		}
		if w, ok := o.(fyne.Widget); ok {
			if _, isBtn := o.(*widget.Button); !isBtn {
				if _, isLbl := o.(*widget.Label); !isLbl {
					r := test.WidgetRenderer(w)
					for _, c := range r.Objects() {
						walk(c)
					}
				}
			}
		}
	}
	walk(o)
	return b.String()
}

// The recall lists the last 10 games with the credit around each, the
// stake, the game unit, the outcome, the amount and the time in the kiosk's
// zone; older ones page by page; a game unit is found by its number.
func TestRecallListsTheLastTen(t *testing.T) {
	f := newRclFix(t, kiosk.PayoutLimitBound)
	for i := 0; i < 12; i++ {
		f.play(game.Stakes[i%len(game.Stakes)], breakout.Auto)
	}
	v := newRecallView(f.env, f.o)
	f.show(v.root)
	require.Len(t, v.shown, 10, "the last 10 games")
	assert.EqualValues(t, 12, v.shown[0].ID, "newest first")
	all := rclTexts(v.list)
	assert.Contains(t, all, "30/11/2026 10:42:00", "the time in the kiosk's zone (Europe/Paris)")
	assert.Contains(t, all, "7/3/000003", "the game unit: emission/block/index")
	assert.Contains(t, all, "3 scarabées")
	assert.Contains(t, all, "2\u00a0000\u00a0€")
	settle(f.w)
	golden.Assert(t, "recall-list.png", f.w.Canvas().Capture())

	f.tap(v.root, "Plus anciennes")
	require.Len(t, v.shown, 2)
	assert.EqualValues(t, 2, v.shown[0].ID)

	test.Type(v.unit, "7/2/3")
	f.tap(v.root, "Chercher l’unité")
	require.Len(t, v.shown, 1)
	assert.Equal(t, uint32(3), v.shown[0].Unit)
	assert.Equal(t, uint32(2), v.shown[0].Number)
	v.unit.SetText("")
	test.Type(v.unit, "7/2/300")
	f.tap(v.root, "Chercher l’unité")
	assert.Equal(t, "Cette unité de jeu n’a pas été jouée sur cette borne.", v.note.Text)
	v.unit.SetText("")
	test.Type(v.unit, "sept")
	f.tap(v.root, "Chercher l’unité")
	assert.Contains(t, v.note.Text, "Unité de jeu illisible")

	test.Type(v.date, "30/11/2026")
	f.tap(v.root, "Chercher la date")
	assert.Len(t, v.shown, 12, "the day's games")
	v.date.SetText("")
	test.Type(v.date, "29/11/2026")
	f.tap(v.root, "Chercher la date")
	assert.Empty(t, v.shown)
	assert.Equal(t, "Aucune partie.", v.note.Text)
}

// A recorded game replays on the real game widget from its recorded inputs
// under the RAPPEL banner, and ends on the original's final state: the same
// symbols in the cartouche, the same amount, the same recording; no credit,
// ledger row or meter moves.
func TestRecallReplayEndsAsTheOriginal(t *testing.T) {
	f := newRclFix(t, kiosk.PayoutLimitBound)
	for i := 0; i < 9; i++ {
		f.play(game.Stake100, breakout.Auto) // to the 1 € units won through the bonus
	}
	jouer := f.play(game.Stake050, breakout.Play)
	bonus := f.play(game.Stake100, breakout.Play)
	require.True(t, bonus.Play().ViaBonus)

	credit, err := f.st.Credit(context.Background())
	require.NoError(t, err)
	meters, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	last, err := f.st.Entries(context.Background(), 1, 0)
	require.NoError(t, err)

	v := newRecallView(f.env, f.o)
	f.show(v.root)
	for _, id := range []int64{jouer.ID(), bonus.ID()} {
		var rec store.Recalled
		for _, r := range v.shown {
			if r.ID == id {
				rec = r
			}
		}
		require.Equal(t, id, rec.ID)
		var idx int
		for i, r := range v.shown {
			if r.ID == id {
				idx = i
			}
		}
		test.Tap(rclButtons(v.root, "Revoir")[idx]) // the row's own button
		rv := v.replay
		require.NotNil(t, rv)
		assert.Equal(t, "RAPPEL — partie n°\u00a0"+strconv.FormatInt(id, 10)+" du "+f.env.Tr.Time(rec.At, f.env.Loc)+" — aucun mouvement d’argent", rv.banner.Text)
		for i := 0; !rv.ended; i++ {
			require.Less(t, i, 20000, "the replay of play %d ends", id)
			f.clock.Advance(time.Second / 15)
			rv.gs.Frame(rv.clock.Now())
		}
		res := rv.r.Result()
		assert.False(t, res.Mismatch)
		assert.Equal(t, rec.Prize, res.Won, "the same amount")
		assert.Equal(t, rec.Revealed, rv.gs.Cartouche().Counts(), "the cartouche shows the same symbols")
		assert.Equal(t, rec.CreditAfter, rv.gs.Credit(), "the credit as it was after the game")
		assert.Equal(t, "Fin du rappel\u00a0: gain "+f.env.Tr.Money(rec.Prize)+", identique à la partie enregistrée.", rv.end.Text)
		stored, err := f.st.Play(context.Background(), id)
		require.NoError(t, err)
		// The same final state: the replayed wall records exactly what
		// the play kept for it, to its last tick.
		got := rv.r.World().AppendRecording(nil)
		assert.True(t, bytes.Contains(stored.Recording, got), "play %d: the replayed wall's recording is the stored one", id)
		if id != bonus.ID() {
			assert.Zero(t, rv.r.World().Standing(), "every brick down")
		}
		if id == bonus.ID() {
			assert.Equal(t, 2, rv.r.World().RedHits(), "the red brick hit twice (Art. 4.7)")
			settle(f.w)
			golden.Assert(t, "recall-replay-end.png", f.w.Canvas().Capture())
		}
		f.tap(v.root, "Retour à la liste")
		require.Nil(t, v.replay, "back to the list")
	}
	after, err := f.st.Credit(context.Background())
	require.NoError(t, err)
	assert.Equal(t, credit, after, "no credit moved")
	m2, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, meters, m2, "no meter moved")
	l2, err := f.st.Entries(context.Background(), 1, 0)
	require.NoError(t, err)
	assert.Equal(t, last, l2, "no ledger row")
}

func rclItoa(n int64) string { return strconv.FormatInt(n, 10) }
