package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
)

// The start-up screen shows every step of the start, each marked as the
// start reports it: done, under way or waiting; a step ended stays ended,
// and a step the screen does not know changes nothing.
func TestStartupShowsBootProgress(t *testing.T) {
	for _, c := range []struct {
		lang Lang
		img  string
	}{{French, "screen-startup.png"}, {English, "screen-startup-en.png"}} {
		a := test.NewTempApp(t)
		a.Settings().SetTheme(art.Theme())
		s := NewStartup(c.lang)
		w := test.NewWindow(s.Content())
		w.SetPadded(false)
		w.Resize(fyne.NewSize(designW, designH))
		for i := range kiosk.NumBootSteps {
			assert.Equal(t, stepWaiting, s.state[i])
		}
		s.Step(kiosk.BootOpen, false)
		s.Step(kiosk.BootOpen, true)
		s.Step(kiosk.BootStore, false)
		s.Step(kiosk.BootBlocks, false)
		s.Step(kiosk.BootBlocks, true)
		s.Step(kiosk.BootBlocks, false) // late: it stays done
		s.Step(kiosk.BootStep(kiosk.NumBootSteps), true)
		want := [kiosk.NumBootSteps]stepState{stepDone, stepRunning, stepDone, stepWaiting, stepWaiting, stepWaiting, stepWaiting}
		assert.Equal(t, want, s.state)
		assert.Equal(t, art.GoldLight, s.dots[kiosk.BootOpen].FillColor, "done: gold")
		assert.Equal(t, art.Turquoise, s.dots[kiosk.BootStore].FillColor, "under way: turquoise")
		golden.Assert(t, c.img, w.Canvas().Capture())
		w.Close()
	}
}
