package ui

import (
	"image"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
)

// homeCover is the image showing the home backdrop on the screen shown, if
// any.
func homeCover(f *scrFixture) *canvas.Image {
	var found *canvas.Image
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case *canvas.Image:
			if c, ok := f.s.covers[art.HomeBackdropResource().Name()]; ok && c.img == o {
				found = o
			}
		}
	}
	for _, o := range f.s.scrBox.Objects {
		walk(o)
	}
	return found
}

// The home backdrop is one image, however often the home screen is built
// again (one texture, not one per build), and its pixels are let go of
// while a game shows; back home, it shows them again.
func TestHomeBackdropSharedAndRestedInPlay(t *testing.T) {
	m := newFakeMachine(t, 10*game.Euro)
	m.layouts = []reveal.Walls{fakeLayout(t, game.Stake100, game.TierLose, false)}
	f := newFakeFixture(t, m)
	first := homeCover(f)
	require.NotNil(t, first, "the home screen shows its backdrop")
	require.NotNil(t, first.Image)
	pixels := first.Image

	f.tap(fr(game.Stake100.Money())) // the home screen is built again
	assert.Same(t, first, homeCover(f), "the same image")

	f.tap("Auto")
	require.Equal(t, scrGame, f.s.screen)
	assert.Nil(t, first.Image, "no pixels kept for the home backdrop during the game")

	f.playToEnd(false)
	f.flush()
	m.push(func(s *kiosk.Snapshot) {
		s.State = kiosk.Result
		s.Game = kiosk.GameSnapshot{ID: m.current.(*fakeGame).id, Stake: game.Stake100, Stage: kiosk.StageDone, Settled: true,
			Result: kiosk.GameResult{Outcome: game.Outcome{Kind: game.Lose}}}
	})
	f.flush()
	f.tap("Accueil")
	require.Equal(t, scrHome, f.s.screen)
	back := homeCover(f)
	assert.Same(t, first, back)
	require.NotNil(t, back.Image, "back home, the backdrop shows")
	assert.Equal(t, pixels.Bounds(), back.Image.Bounds())
	assert.Equal(t, pixels.(*image.RGBA).Pix, back.Image.(*image.RGBA).Pix, "the same pixels, unpacked")
}
