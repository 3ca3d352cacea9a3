// Command pharaon-scenebench shows the kiosk's game screen playing Auto
// games one after the other, fullscreen at 1280×800, so that its cost can be
// measured beside a bare Fyne brick-breaker scene, the peer kept outside this
// repository, by the same measuring script (bench.sh beside this file,
// docs/performance.md). With -scene attract it shows instead the screens of
// an idle kiosk, which fall into the attract loop after a second.
// It prints "FIRST_FRAME <unix_ns>" once, at its first frame, and, once a
// second, a line starting "fps <n>" followed by the time spent per frame
// (play.FrameStats).
//
// It plays demo walls (play.DemoGame): no stake, no ticket, no record. It
// never touches the kiosk's database or devices.
//
// Exit status: 0 when the window is closed, 1 on failure, 2 on misuse.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, new(*usageError)):
		fmt.Fprintln(os.Stderr, "pharaon-scenebench:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "pharaon-scenebench:", err)
		os.Exit(1)
	}
}

// usageError is a misuse of the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// config is what the command line asks for.
type config struct {
	width, height int
	fullscreen    bool
	fps           bool
	stake         game.Stake
	seed          uint64
	mode          breakout.Mode
	credit        game.Money
	cpuProfile    string
	duration      time.Duration
	pause         time.Duration
	bonusDelay    time.Duration
	fullBackdrop  bool
	scene         string // sceneGame or sceneAttract
}

// The scenes the bench can show.
const (
	sceneGame    = "game"    // the game screen playing the playlist
	sceneAttract = "attract" // the screens of an idle kiosk: home, then the attract loop
)

// parse reads the command line.
func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("pharaon-scenebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := config{}
	fs.IntVar(&c.width, "w", 1280, "window width (canvas units)")
	fs.IntVar(&c.height, "h", 800, "window height (canvas units)")
	fs.BoolVar(&c.fullscreen, "fs", true, "fullscreen")
	fs.BoolVar(&c.fps, "fps", true, "log frames per second and the time spent per frame, once a second")
	stake := fs.String("stake", "2", "stake of the walls played: 0,50, 1 or 2")
	fs.Uint64Var(&c.seed, "seed", 1, "first reveal seed; each game takes the next")
	mode := fs.String("mode", "auto", "auto (the system plays) or play (Jouer: the ball waits for a tap)")
	credit := fs.String("credit", "20", "credit shown")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.DurationVar(&c.pause, "pause", 1500*time.Millisecond, "pause between the end of a game and the next (0: none, the screen always busy)")
	fs.DurationVar(&c.bonusDelay, "bonusdelay", 0, "how long the cleared main wall stays before the bonus wall (0: the kiosk's, play.DefaultBonusDelay)")
	fs.BoolVar(&c.fullBackdrop, "fullbackdrop", true, "draw the playfield's whole backdrop at any size, as the kiosk does at 1280×800 and with backdrop = full (play.Screen.SetFullBackdropMaxPixels; false: as the kiosk at 1920×1080, ui.Options.PlainPlayfield)")
	fs.StringVar(&c.scene, "scene", sceneGame, "game (the game screen playing the playlist) or attract (the idle kiosk's attract loop)")
	fs.DurationVar(&c.duration, "for", 0, "quit after this long (0: when the window is closed or on SIGINT/SIGTERM)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return c, &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if c.duration < 0 || c.pause < 0 || c.bonusDelay < 0 {
		return c, &usageError{"-for, -pause, -bonusdelay: a duration cannot be negative"}
	}
	if c.width < 320 || c.height < 240 || c.width > 8192 || c.height > 8192 {
		return c, &usageError{fmt.Sprintf("window %d×%d out of range", c.width, c.height)}
	}
	if c.scene != sceneGame && c.scene != sceneAttract {
		return c, &usageError{fmt.Sprintf("scene %q: want game or attract", c.scene)}
	}
	s, err := game.ParseStake(*stake)
	if err != nil {
		return c, &usageError{err.Error()}
	}
	c.stake = s
	switch strings.ToLower(*mode) {
	case "auto":
		c.mode = breakout.Auto
	case "play", "jouer":
		c.mode = breakout.Play
	default:
		return c, &usageError{fmt.Sprintf("mode %q: want auto or play", *mode)}
	}
	m, err := game.ParseMoney(*credit)
	if err != nil || m < 0 {
		return c, &usageError{fmt.Sprintf("credit %q: not an amount", *credit)}
	}
	c.credit = m
	return c, nil
}

func run(args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	return show(c, stdout)
}
