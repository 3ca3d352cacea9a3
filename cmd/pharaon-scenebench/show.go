package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
)

// show opens the window and plays games until it is closed.
func show(c config, stdout io.Writer) error {
	list := &playlist{stake: c.stake, mode: c.mode, seed: c.seed}
	first, err := list.next()
	if err != nil {
		return err
	}

	a := app.NewWithID("fr.pharaon.scenebench")
	a.Settings().SetTheme(art.Theme())
	w := a.NewWindow("Pharaon scene bench")
	g := play.NewScreen(time.Now)
	g.SetWords(ui.PlayWords(ui.French))
	g.SetCredit(c.credit)
	g.BonusDelay = c.bonusDelay
	if c.fullBackdrop {
		g.SetFullBackdropMaxPixels(play.FullBackdropAlways)
	}
	if c.fps {
		g.OnFrameStats = func(s play.FrameStats) { fmt.Fprintln(stdout, s) }
	}
	g.OnEnd = func() {
		// the next game starts from a timer's goroutine: through fyne.Do
		time.AfterFunc(c.pause, func() {
			fyne.Do(func() {
				d, err := list.next()
				if err != nil {
					fmt.Fprintln(os.Stderr, "pharaon-scenebench:", err)
					a.Quit()
					return
				}
				g.Play(d)
			})
		})
	}

	var screens *ui.Screens
	if c.scene == sceneAttract {
		opt := ui.Options{AttractAfter: time.Second}
		if c.fps {
			opt.OnFrameStats = func(s play.FrameStats) { fmt.Fprintln(stdout, s) }
		}
		screens = ui.New(idleMachine{}, opt)
		w.SetContent(screens.Content())
	} else {
		w.SetContent(g)
	}
	w.SetPadded(false)
	w.Resize(fyne.NewSize(float32(c.width), float32(c.height)))
	w.SetFixedSize(true)
	if c.fullscreen {
		w.SetFullScreen(true)
	}

	// FIRST_FRAME is the time of the first frame the animations tick, as
	// the peer scene prints it.
	var mark *fyne.Animation
	mark = &fyne.Animation{
		Duration: time.Millisecond,
		Tick: func(float32) {
			if mark != nil {
				fmt.Fprintf(stdout, "FIRST_FRAME %d\n", time.Now().UnixNano())
				mark = nil
			}
		},
	}
	a.Lifecycle().SetOnStarted(func() {
		mark.Start()
		if screens != nil {
			screens.Start()
			return
		}
		g.Play(first)
	})
	w.SetOnClosed(a.Quit)

	// SIGINT, SIGTERM or -for end the run cleanly (the CPU profile is
	// written): the quit goes to the Fyne goroutine through fyne.Do.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.duration)
		defer cancel()
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			fyne.Do(a.Quit)
		case <-ended:
		}
	}()
	w.ShowAndRun()
	close(ended)
	return nil
}
