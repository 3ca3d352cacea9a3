package ui

import (
	"context"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
	"pharaon/store"
)

// fr is an amount as the French screens write it.
func fr(m game.Money) string { return m.French() }

// prize is the amount of a tier at a stake, from the prize table.
func prize(s game.Stake, t game.Tier) game.Money { return game.Table(s).Prizes[t-1].Amount }

func TestScreensJouerWinFlow(t *testing.T) {
	f := newScrFixture(t)
	require.Equal(t, scrHome, f.s.screen)

	f.credit(10 * game.Euro)
	assert.Contains(t, f.texts(), fr(10*game.Euro), "the credit shows on the home screen")
	f.tap(fr(game.Stake100.Money()))
	assert.Contains(t, f.texts(), "Combinaisons gagnantes pour une mise de "+fr(game.Stake100.Money()))
	assert.Contains(t, f.texts(), fr(game.Table(game.Stake100).Prizes[0].Amount), "the rules show the amounts of the stake chosen")
	f.tap("Jouer")

	require.Equal(t, scrGame, f.s.screen)
	g := f.game()
	require.NotNil(t, g)
	assert.Equal(t, game.Stake100, g.Stake())
	assert.Equal(t, breakout.Play, g.World().Mode(), "Jouer plays by hand (Art. 4.4)")
	assert.Equal(t, 9*game.Euro, f.m.Snapshot().Credit, "the stake is debited at Jouer (Art. 4.1)")

	frames := f.playToEnd(true)
	t.Logf("Jouer game over after %d frames", frames)
	require.Equal(t, kiosk.StageDone, g.Stage())
	res := g.Result()
	require.Equal(t, game.Win, res.Outcome.Kind)
	require.False(t, res.Mismatch)
	// The scenario's first 1 € unit is three birds: the window shows the
	// kiosk's credited amount, which is the table's.
	assert.Equal(t, prize(game.Stake100, 1), res.Won)
	assert.Equal(t, ovWin, f.s.overlay)
	texts := f.texts()
	assert.Contains(t, texts, "Félicitations\u00a0!")
	assert.Contains(t, texts, "Vous avez découvert 3 oiseaux")
	assert.Contains(t, texts, fr(res.Won))
	comb, blinking := f.s.gs.Cartouche().Blinking()
	assert.True(t, blinking, "the combination blinks in the cartouche (Art. 4.6)")
	assert.Equal(t, res.Outcome.Combination, comb)
	assert.Equal(t, 9*game.Euro+res.Won, f.m.Snapshot().Credit)

	f.tap("Accueil")
	require.Equal(t, scrHome, f.s.screen)
	assert.Equal(t, kiosk.Home, f.m.Snapshot().State)
	assert.Contains(t, f.texts(), fr(9*game.Euro+res.Won))

	f.tap("Historique")
	require.Equal(t, scrHistory, f.s.screen)
	texts = f.texts()
	i := slices.Index(texts, "30/11/2026 11:00") // 10:00 UTC in the kiosk's zone, Paris
	require.GreaterOrEqual(t, i, 0, "the game is in the history: %q", texts)
	assert.Equal(t, []string{"dernière", fr(game.Stake100.Money()), "Jouer", "3 oiseaux", fr(res.Won)}, texts[i+1:i+6])
	f.tap("Retour")
	assert.Equal(t, scrHome, f.s.screen)
}

func TestScreensAutoFlowLoseThenWin(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	require.Equal(t, scrGame, f.s.screen)
	first := f.game()
	assert.Equal(t, breakout.Auto, first.World().Mode())

	f.playToEnd(false)
	require.Equal(t, game.Lose, first.Result().Outcome.Kind)
	assert.Equal(t, ovLose, f.s.overlay, "a loss ends with the quiet banner")
	assert.NotContains(t, f.texts(), "Félicitations\u00a0!", "no congratulation window for a loss (Art. 4.8)")
	assert.Contains(t, f.texts(), "Pas de gain cette fois.")

	// Rejouer: the same stake, in Auto again; the next unit wins two crosses.
	f.tap("Rejouer " + fr(game.Stake050.Money()))
	second := f.game()
	require.NotSame(t, first, second)
	assert.Equal(t, breakout.Auto, second.World().Mode())
	assert.Equal(t, ovNone, f.s.overlay)
	f.playToEnd(false)
	res := second.Result()
	require.Equal(t, game.Win, res.Outcome.Kind)
	assert.Equal(t, prize(game.Stake050, 8), res.Won)
	assert.Contains(t, f.texts(), "Vous avez découvert 2 croix")
	assert.Contains(t, f.texts(), fr(res.Won))

	f.tap("Accueil")
	f.tap("Historique")
	texts := f.texts()
	// newest first: the win, then the loss
	win := slices.Index(texts, "2 croix")
	lost := slices.Index(texts, "perdante")
	require.True(t, win >= 0 && lost >= 0, "texts: %q", texts)
	assert.Less(t, win, lost, "the last game comes first (Art. 4.1)")
}

func TestScreensLosingUnitShowsNoWindow(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	f.tap("Jouer")
	// Every frame of the game and of its end: never the frame of a window.
	for i := 0; i < 15*240 && !f.s.gs.Over(); i++ {
		f.steer()
		f.frameAfter(slowFrame)
		require.NotContains(t, []overlay{ovWin, ovBonusWin, ovResult, ovBonusIntro}, f.s.overlay)
	}
	require.True(t, f.s.gs.Over())
	f.endShown()
	assert.Equal(t, game.Lose, f.game().Result().Outcome.Kind)
	assert.Equal(t, game.Money(0), f.game().Result().Won)
	assert.Equal(t, ovLose, f.s.overlay)
	assert.False(t, f.hasFrameDrawing(), "no congratulation frame on screen")
	_, blinking := f.s.gs.Cartouche().Blinking()
	assert.False(t, blinking, "nothing blinks for a loss")
	f.golden("screen-lose.png")
}

func TestScreensBonusFlow(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake200.Money()))
	f.tap("Jouer")
	g := f.game()
	require.True(t, g.Walls().ViaBonus, "the scenario's first 2 € unit is won through the bonus game")

	// The main wall: three snakes, the bonus intro, then the bonus wall.
	sawIntro := false
	for i := 0; i < 15*240 && g.Stage() == kiosk.StageMain; i++ {
		f.steer()
		f.frameAfter(slowFrame)
	}
	require.Equal(t, kiosk.StageBonus, g.Stage())
	for i := 0; i < 60*10 && !f.s.gs.Playfield().World().IsBonus(); i++ {
		if f.s.overlay == ovBonusIntro && !sawIntro {
			sawIntro = true
			assert.Contains(t, f.texts(), "Jeu Bonus\u00a0!")
			f.golden("screen-bonus-intro.png")
		}
		f.frame()
	}
	require.True(t, sawIntro, "three snakes announce the bonus game")
	assert.Equal(t, ovNone, f.s.overlay, "the intro gives way to the bonus wall")
	assert.Equal(t, kiosk.Bonus, f.m.Snapshot().State)
	assert.True(t, f.s.gs.Playfield().World().IsBonus(), "the bonus wall is on screen (Art. 4.7)")
	f.frames(60)
	f.golden("screen-bonus.png")

	f.playToEnd(true)
	res := g.Result()
	require.Equal(t, game.Bonus, res.Outcome.Kind)
	assert.Equal(t, 2, g.World().RedHits(), "the red brick was hit twice")
	assert.Equal(t, prize(game.Stake200, 4), res.Won)
	assert.Equal(t, g.Walls().BonusAmount, res.Won)
	assert.Equal(t, ovBonusWin, f.s.overlay, "the bonus game's own window (Art. 4.7)")
	assert.Contains(t, f.texts(), "Jeu Bonus\u00a0: félicitations\u00a0!")
	assert.Contains(t, f.texts(), fr(g.Walls().BonusAmount))

	f.tap("Continuer")
	assert.Equal(t, ovResult, f.s.overlay, "then the total won (Art. 4.8)")
	assert.Contains(t, f.texts(), "montant total de votre gain")
	assert.Contains(t, f.texts(), fr(res.Won))
	f.golden("screen-result.png")

	f.tap("Rejouer " + fr(game.Stake200.Money()))
	require.NotSame(t, g, f.game())
	assert.Equal(t, game.Stake200, f.game().Stake())
}

// frames runs n frames of the game screen.
func (f *scrFixture) frames(n int) {
	for i := 0; i < n; i++ {
		f.frame()
	}
}

// hasFrameDrawing reports whether a congratulation frame is on screen.
func (f *scrFixture) hasFrameDrawing() bool {
	return len(f.s.ovBox.Objects) > 0 && f.s.overlay != ovLose && f.s.overlay != ovPrizeTable
}

func TestScreensPrizeTable(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Auto")
	f.frames(90)
	tick := f.game().World().Tick()
	f.s.gs.Cartouche().Tapped(nil)
	require.Equal(t, ovPrizeTable, f.s.overlay, "tapping the cartouche shows the prize table (Art. 4.2)")
	texts := f.texts()
	assert.Contains(t, texts, "Tableau des gains\u00a0: mise de "+fr(game.Stake100.Money()))
	for _, p := range game.Table(game.Stake100).Prizes {
		assert.Contains(t, texts, fr(p.Amount), "tier %d", p.Tier)
	}
	assert.Contains(t, texts, "Jeu Bonus")
	f.golden("screen-prize-table.png")

	// The game waits while the table is open.
	f.frames(30)
	assert.Equal(t, tick, f.game().World().Tick(), "no tick while the prize table is open")
	f.tap("Fermer")
	assert.Equal(t, ovNone, f.s.overlay)
	f.frames(30)
	assert.Greater(t, f.game().World().Tick(), tick, "the game goes on")

	// Left open, it closes by itself.
	f.s.gs.Cartouche().Tapped(nil)
	require.Equal(t, ovPrizeTable, f.s.overlay)
	f.clock.Advance(DefaultOverlayTimeout)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, ovNone, f.s.overlay)
}

func TestScreensCongratulationsLook(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Jouer")
	for i := 0; i < 15*10; i++ {
		f.steer()
		f.frameAfter(slowFrame)
	}
	f.frames(2)
	f.golden("screen-game.png")
	f.playToEnd(true)
	require.Equal(t, ovWin, f.s.overlay)
	// the cartouche in its lit half of the blink
	for !f.s.gs.Cartouche().BlinkLit() {
		f.frame()
	}
	f.golden("screen-congratulations.png")
}

func TestScreensHomeAndHistoryLook(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(20 * game.Euro)
	f.golden("screen-home.png")
	// three games: a 1 € win, a 1 € loss, a 0,50 € loss
	for _, st := range []game.Stake{game.Stake100, game.Stake100, game.Stake050} {
		f.tap(fr(st.Money()))
		f.tap("Auto")
		f.playToEnd(false)
		f.clock.Advance(3 * time.Minute)
		f.tap("Accueil")
	}
	f.tap("Historique")
	f.golden("screen-history.png")
}

func TestScreensDevPanelOnlyInDevelopment(t *testing.T) {
	t.Run("development", func(t *testing.T) {
		f := newScrFixture(t, withDevices(nil))
		assert.Contains(t, f.texts(), "DÉVELOPPEMENT  ·  simulateurs\u00a0: billets et pannes")
		for _, a := range devsim.Notes {
			assert.NotNil(t, f.button(fr(a)), "a button inserts a note of %s", fr(a))
		}
		assert.NotNil(t, f.button("Faux"), "a button inserts a counterfeit")
		assert.NotNil(t, f.button("Pannes"), "a button opens the faults")
		visible(f.s.Content(), func(o fyne.CanvasObject) {
			if b, ok := o.(*touchButton); ok {
				assert.NotContains(t, b.Text, "+", "no button adds credit of its own")
			}
		})
	})
	t.Run("production", func(t *testing.T) {
		// The simulators given, but the machine is not a development
		// build: no panel.
		f := newScrFixture(t, withDevices(nil), production())
		require.False(t, f.m.Snapshot().Dev)
		for _, s := range f.texts() {
			assert.NotContains(t, s, "DÉVELOPPEMENT")
		}
		for _, a := range devsim.Notes {
			assert.Nil(t, f.button(fr(a)), "no dev button %s in production", fr(a))
		}
		assert.Nil(t, f.button("Pannes"))
		assert.True(t, f.button("Jouer").Disabled(), "no credit, no game")
		assert.Contains(t, f.texts(), "Insérez un billet pour jouer")
	})
}

func TestScreensLanguageToggle(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap("EN")
	assert.Equal(t, English, f.s.Lang())
	texts := f.texts()
	assert.Contains(t, texts, "How to play")
	assert.Contains(t, texts, "€10", "amounts in English form")
	assert.NotNil(t, f.button("Play"))
	f.tap("€1")
	f.tap("Play")
	assert.Contains(t, f.texts(), "STAKE", "the game screen speaks English too")
	f.playToEnd(false)
	assert.Contains(t, f.texts(), "Congratulations!")
	assert.Contains(t, f.texts(), "You uncovered 3 birds")
	f.tap("Home")
	f.tap("FR")
	assert.Contains(t, f.texts(), "Règle du jeu")
	assert.Contains(t, f.texts(), fr(9*game.Euro+prize(game.Stake100, 1)))
}

func TestScreensStartsInEnglish(t *testing.T) {
	f := newScrFixture(t, inEnglish())
	assert.Contains(t, f.texts(), "Choose your stake")
}

func TestScreensResumeGameAfterRestart(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Auto")
	f.frames(120)
	id := f.game().ID()
	// The kiosk stops mid-game (its saver keeps the recording) and starts
	// again on the same database.
	f.s.Stop()
	require.NoError(t, f.m.Close())
	require.NoError(t, f.st.Close())

	st, err := storeOpen(f)
	require.NoError(t, err)
	m, err := kiosk.New(st, f.clock, kiosk.Config{Dev: true, Keys: scrTestKeys, PollEvery: -1, ResultTimeout: time.Hour,
		Cash: kiosk.CashConfig{HandPayLimit: kiosk.PayoutLimitBound}})
	require.NoError(t, err)
	require.NoError(t, m.Start(context.Background()))
	t.Cleanup(func() { _ = m.Close(); _ = st.Close() })
	require.NotNil(t, m.Current(), "the play is resumed")

	s := New(Kiosk(m), f.opt)
	s.do = f.ui.do
	f.s, f.m, f.st = s, m, st
	f.w.SetContent(s.Content())
	f.w.Resize(windowSize)
	s.Start()
	require.Equal(t, scrGame, s.screen, "a resumed game is shown at start")
	assert.Equal(t, id, s.game.ID())
	f.playToEnd(false)
	assert.Equal(t, ovWin, s.overlay)
	assert.Contains(t, f.texts(), fr(prize(game.Stake100, 1)))
}

func TestScreensResultTimesOutHome(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	require.Equal(t, scrGame, f.s.screen)
	f.clock.Advance(time.Hour)
	f.m.Poll() // the machine's own timer, called here on the test's goroutine
	f.flush()
	assert.Equal(t, scrHome, f.s.screen, "an untouched result returns home")
}

func TestScreensAttractWhenIdle(t *testing.T) {
	f := newScrFixture(t)
	f.clock.Advance(44 * time.Second)
	f.s.Poll(f.clock.Now())
	require.Equal(t, scrHome, f.s.screen)
	f.clock.Advance(time.Second)
	f.s.Poll(f.clock.Now())
	require.Equal(t, scrAttract, f.s.screen, "idle home without credit: the attract loop")
	a := f.s.attract
	require.NotNil(t, a)
	w := a.field.World()
	for i := 0; i < 15*20; i++ {
		f.clock.Advance(slowFrame)
		a.frame(f.clock.Now())
	}
	assert.NotSame(t, w, a.field.World(), "the loop breaks one wall after the other")
	assert.Contains(t, f.texts(), "Touchez l’écran pour jouer")
	f.golden("screen-attract.png")
	f.tapCatcher()
	assert.Equal(t, scrHome, f.s.screen, "a touch ends the attract loop")
	assert.Nil(t, f.s.attract)

	// With credit on the kiosk, no attract loop: a player is there.
	f.credit(5 * game.Euro)
	f.clock.Advance(time.Hour)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, scrHome, f.s.screen)
}

// tapCatcher taps the screen where nothing but the catcher of an attract
// loop or an overlay is.
func (f *scrFixture) tapCatcher() {
	f.t.Helper()
	var c *tapCatcher
	visible(f.s.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*tapCatcher); ok {
			c = x
		}
	})
	require.NotNil(f.t, c, "nothing to tap on screen")
	test.Tap(c)
}

// storeOpen opens the fixture's database again, as a restarted kiosk does.
func storeOpen(f *scrFixture) (*store.Store, error) {
	return store.Open(f.path, store.WithClock(f.clock.Now))
}

// The drawings of the windows a game may end with are rasterised while the
// kiosk waits at home (warmWindows), at the size the game's field will
// have, so that the frame showing a window only places them and the game
// screen has nothing left to warm. A canvas size no other test uses: the
// cache is the process's.
func TestScreensWarmTheWindowsDrawings(t *testing.T) {
	f := newScrFixtureSized(t, fyne.NewSize(1111, 777))
	warm := func() bool {
		v := f.s.fieldView()
		side := func(d float32) (int, int) { return play.Pixels(v.sz(d, d), 1) }
		w, h := play.Pixels(v.sz(frameW, frameH), 1)
		if !play.Cached(art.CongratulationFrameResource(), w, h, canvas.ImageFillStretch) {
			return false
		}
		for _, sym := range game.Symbols {
			sw, sh := side(winSymbolSide)
			if !play.Cached(art.SymbolResource(sym, true), sw, sh, canvas.ImageFillContain) {
				return false
			}
		}
		bw, bh := side(bonusSymbolSide)
		return play.Cached(art.SymbolResource(game.Snake, true), bw, bh, canvas.ImageFillContain)
	}
	require.Eventually(t, warm, 30*time.Second, 10*time.Millisecond, "the windows' drawings rasterised at home")
	k := f.s.warmedK
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Jouer")
	assert.Equal(t, k, f.s.warmedK, "the field has the size the home screen foresaw: nothing more to warm")
	assert.True(t, warm())
}
