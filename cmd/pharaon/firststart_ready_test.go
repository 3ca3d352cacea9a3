package main

import (
	"bytes"
	"context"
	"log"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// A kiosk cut from its power during the first start's guided sequence
// starts again on the sequence's screen, and tells systemd it is up there
// as it does on the setup's: without READY=1 systemd stops it at
// TimeoutStartSec and starts it again, for good, and the technician never
// gets to finish the sequence.
func TestFirstStartScreensTellTheyAreUp(t *testing.T) {
	ctx := context.Background()
	cfg, p := openFreshKiosk(t)
	test.NewTempApp(t).Settings().SetTheme(art.Theme())
	var up []string
	show := func(p *parts) {
		p.bo.onFirstStart = func(what string) { up = append(up, what) }
		w := test.NewTempWindow(t, widget.NewLabel(""))
		showScreens(w, cfg, ui.Kiosk(p.m), ui.Options{}, p.bo, log.New(&bytes.Buffer{}, "", 0))
	}
	show(p)
	assert.Equal(t, []string{"setup screen"}, up, "a new kiosk: the setup")

	require.NoError(t, p.m.BeginFirstStart(ctx))
	setup, err := p.bo.access.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, p.bo.access.Setup(ctx, setup, "246800", "135700"))
	require.NoError(t, p.Close())
	p, err = openKiosk(ctx, cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	require.True(t, p.bo.firstStart)
	up = nil
	show(p)
	assert.Equal(t, []string{"guided sequence"}, up, "after a power cut: the sequence, up as well")
}
