package play

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/ui/art"
)

func newCartRig(t *testing.T) *Cartouche {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	c := NewCartouche()
	w := test.NewWindow(c)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(300, 700))
	t.Cleanup(w.Close)
	return c
}

// assertCartRow checks what row s shows: the silhouette until found, then the
// colour (Art. 4.2, 4.6), and n pips filled of three.
func assertCartRow(t *testing.T, c *Cartouche, s game.Symbol, n int) {
	t.Helper()
	row := c.rend.rows[s]
	assert.Equal(t, n == 0, row.black.Visible(), "%s in black", s)
	assert.Equal(t, n > 0, row.colour.Visible(), "%s in colour", s)
	for k := range row.pips {
		assert.Equal(t, k < n, row.pips[k][1].Visible(), "%s pip %d filled", s, k)
		assert.Equal(t, k >= n, row.pips[k][0].Visible(), "%s pip %d empty", s, k)
	}
}

func TestCartoucheCounts(t *testing.T) {
	c := newCartRig(t)
	for _, s := range game.Symbols {
		assertCartRow(t, c, s, 0)
	}
	t0 := time.Unix(50, 0)
	c.Land(game.Eye, t0)
	c.Land(game.Eye, t0)
	c.Land(game.Symbol(9), t0) // not a symbol: ignored
	c.Frame(t0)
	assert.Equal(t, game.Counts{game.Eye: 2}, c.Counts())
	assertCartRow(t, c, game.Eye, 2)
	assertCartRow(t, c, game.Bird, 0)
	ring := c.rend.rows[game.Eye].ring
	assert.True(t, ring.Visible(), "a ring pulses as the symbol lands")
	c.Frame(t0.Add(cartLandPulse / 2))
	_, box := c.SymbolBox(game.Eye)
	assert.Greater(t, ring.Size().Width, box.Width, "and grows")
	c.Frame(t0.Add(cartLandPulse))
	assert.False(t, ring.Visible(), "then it is gone")

	c.SetCounts(game.Counts{game.Bird: 3, game.Snake: 1})
	assertCartRow(t, c, game.Bird, 3)
	assertCartRow(t, c, game.Snake, 1)
	assertCartRow(t, c, game.Eye, 0)
	assert.False(t, c.rend.rows[game.Bird].ring.Visible(), "SetCounts does not pulse")
}

// A combination blinks (Art. 4.6): lit and dim by turns of BlinkHalfPeriod,
// on its own row only, until stopped.
func TestCartoucheBlink(t *testing.T) {
	c := newCartRig(t)
	c.SetCounts(game.Counts{game.Cross: 2, game.Head: 1})
	comb, ok := game.CombinationOf(game.Cross, 2)
	require.True(t, ok)
	t0 := time.Unix(80, 0)
	c.Blink(comb, t0)
	got, on := c.Blinking()
	assert.True(t, on)
	assert.Equal(t, comb, got)
	row, other := c.rend.rows[game.Cross], c.rend.rows[game.Head]
	for i, tc := range []struct {
		at  time.Duration
		lit bool
	}{
		{0, true}, {BlinkHalfPeriod - 1, true}, {BlinkHalfPeriod, false},
		{2*BlinkHalfPeriod - 1, false}, {2 * BlinkHalfPeriod, true}, {7 * BlinkHalfPeriod / 2, false},
	} {
		c.Frame(t0.Add(tc.at))
		assert.Equal(t, tc.lit, c.BlinkLit(), "step %d", i)
		assert.Equal(t, tc.lit, row.glow.Visible(), "step %d glow", i)
		if tc.lit {
			assert.Zero(t, row.colour.Translucency)
		} else {
			assert.Equal(t, cartBlinkDim, row.colour.Translucency, "dim half")
		}
		assert.False(t, other.glow.Visible(), "another row does not blink")
		assert.Zero(t, other.colour.Translucency)
	}
	c.StopBlink()
	c.Frame(t0.Add(4 * BlinkHalfPeriod))
	_, on = c.Blinking()
	assert.False(t, on)
	assert.False(t, c.BlinkLit())
	assert.False(t, row.glow.Visible())
	assert.Zero(t, row.colour.Translucency, "back to normal")
}

// Tapping the cartouche asks for the prize table (Art. 4.2).
func TestCartoucheTapped(t *testing.T) {
	c := newCartRig(t)
	test.Tap(c) // no callback: nothing happens
	n := 0
	c.OnTapped = func() { n++ }
	test.Tap(c)
	assert.Equal(t, 1, n)
}

// The six rows stay inside the tablet and in the regulation's order, at
// sizes from the narrowest panel to a tall one.
func TestCartoucheLayout(t *testing.T) {
	c := newCartRig(t)
	for _, size := range []fyne.Size{fyne.NewSize(300, 700), fyne.NewSize(160, 411), fyne.NewSize(600, 900)} {
		c.Resize(size)
		r := c.rend
		prevY := float32(-1)
		for i, s := range game.Symbols {
			pos, box := c.SymbolBox(s)
			assert.Greater(t, pos.Y, prevY, "row %d below the one before", i)
			prevY = pos.Y
			assert.GreaterOrEqual(t, pos.X, r.tabPos.X)
			assert.LessOrEqual(t, pos.Y+box.Height, r.tabPos.Y+r.tabSize.Height)
			assert.InDelta(t, box.Width, box.Height, 0.01, "square")
		}
		assert.InDelta(t, art.CartoucheAspect, r.tabSize.Width/r.tabSize.Height, 0.001)
		assert.LessOrEqual(t, r.tabSize.Width, size.Width+0.01)
		assert.LessOrEqual(t, r.tabSize.Height, size.Height+0.01)
	}
}
