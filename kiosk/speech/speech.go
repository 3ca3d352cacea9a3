// Package speech speaks the player's screens aloud through the kiosk's
// audio output (a headphone jack), with espeak-ng and its French and
// English voices, a process per utterance.
//
// Nothing a caller does waits for speech: Say, Queue, Stop and SetVolume
// only change what is to be spoken and return; the speaking goroutine runs
// the program. A new screen interrupts what is being said (Say), a change
// on the same screen follows it (Queue). A missing or failing program is
// said in the log once and changes nothing else: the kiosk plays, takes
// notes and pays the same without its voice.
package speech

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Lang is the language of an utterance.
type Lang string

const (
	French  Lang = "fr"
	English Lang = "en"
)

// voices are espeak-ng's voices for the languages (espeak-ng --voices).
var voices = map[Lang]string{French: "fr-fr", English: "en-gb"}

// Utterance is what is spoken, in which language.
type Utterance struct {
	Lang Lang
	Text string
}

const (
	// DefaultProgram is espeak-ng (Debian's package of that name).
	DefaultProgram = "espeak-ng"
	// DefaultRate is the speed in words per minute: a little slower than
	// espeak-ng's 175, for a voice heard in a shop.
	DefaultRate = 160
	// DefaultVolume is the volume before a player sets theirs, 0 to 100.
	DefaultVolume = 70
	// maxQueued bounds the utterances waiting behind the one spoken: the
	// oldest give way (what changed on a screen a moment ago has changed
	// again since).
	maxQueued = 8
	// synthNice is the synthesiser's niceness: behind the kiosk's own
	// threads (the frames, the money), ahead of nothing else that runs.
	synthNice = 10
)

// Options tune a Speaker. The zero value speaks with espeak-ng on the
// audio output.
type Options struct {
	// Program is the synthesiser (DefaultProgram if empty); it is given
	// espeak-ng's options and the text on its standard input.
	Program string
	// Rate is the speed in words per minute (DefaultRate if 0).
	Rate int
	// Volume is the volume at start, 0 to 100 (DefaultVolume if 0; a
	// player's choice of silence is SetVolume(0)).
	Volume int
	// WAV, if set, is a file each utterance is written to instead of the
	// audio output (a development run without sound, the tests).
	WAV string
	// Spoken, if set, is told of each utterance as it starts: the tests'
	// record of what the kiosk said.
	Spoken func(Utterance)
	// Logf says what failed (nil: nothing is said).
	Logf func(format string, args ...any)
}

// Speaker speaks utterances one at a time on its own goroutine.
type Speaker struct {
	opt Options

	mu      sync.Mutex
	pending []Utterance
	volume  int
	cancel  context.CancelFunc // stops the utterance being spoken; nil: none
	closed  bool
	failed  bool // a failure was said; the next ones are not
	wake    chan struct{}
	done    chan struct{}
}

// New starts a Speaker; Close ends it.
func New(opt Options) *Speaker {
	if opt.Program == "" {
		opt.Program = DefaultProgram
	}
	if opt.Rate <= 0 {
		opt.Rate = DefaultRate
	}
	if opt.Volume <= 0 {
		opt.Volume = DefaultVolume
	}
	s := &Speaker{opt: opt, volume: clampVolume(opt.Volume), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run()
	return s
}

// Say speaks u now: what was being said stops and what waited is dropped
// (a new screen, a new state).
func (s *Speaker) Say(u Utterance) {
	s.mu.Lock()
	s.pending = []Utterance{u}
	s.interruptLocked()
	s.mu.Unlock()
	s.signal()
}

// Queue speaks u after what is being said and what already waits (a
// change on the same screen).
func (s *Speaker) Queue(u Utterance) {
	s.mu.Lock()
	s.pending = append(s.pending, u)
	if len(s.pending) > maxQueued {
		s.pending = s.pending[len(s.pending)-maxQueued:]
	}
	s.mu.Unlock()
	s.signal()
}

// Stop silences the speaker: what is being said stops, nothing waits.
func (s *Speaker) Stop() {
	s.mu.Lock()
	s.pending = nil
	s.interruptLocked()
	s.mu.Unlock()
}

// SetVolume sets the volume, 0 (silent) to 100, for what is said next.
func (s *Speaker) SetVolume(v int) {
	s.mu.Lock()
	s.volume = clampVolume(v)
	s.mu.Unlock()
}

// Volume is the volume, 0 to 100.
func (s *Speaker) Volume() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.volume
}

// Close stops the speaker and waits for its goroutine.
func (s *Speaker) Close() {
	s.mu.Lock()
	s.closed = true
	s.pending = nil
	s.interruptLocked()
	s.mu.Unlock()
	s.signal()
	<-s.done
}

func (s *Speaker) interruptLocked() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

func (s *Speaker) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func clampVolume(v int) int { return min(max(v, 0), 100) }

func (s *Speaker) run() {
	defer close(s.done)
	// The synthesiser is born behind the game: a child starts with the
	// niceness of the thread that forks it, and this goroutine, which
	// forks them all, keeps a thread of its own at synthNice (Linux's
	// niceness is a thread's). The thread is given up with the goroutine.
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), synthNice)
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		if len(s.pending) == 0 {
			s.mu.Unlock()
			<-s.wake
			continue
		}
		u := s.pending[0]
		s.pending = s.pending[1:]
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		volume := s.volume
		s.mu.Unlock()

		err := s.speak(ctx, u, volume)
		s.mu.Lock()
		interrupted := ctx.Err() != nil
		if !interrupted {
			s.cancel = nil
		}
		say := err != nil && !interrupted && !s.failed
		if say {
			s.failed = true
		}
		s.mu.Unlock()
		cancel()
		if say && s.opt.Logf != nil {
			s.opt.Logf("speech: %v (said once; the kiosk goes on without its voice)", err)
		}
	}
}

// speak runs the synthesiser on u until it has said it or ctx ends.
func (s *Speaker) speak(ctx context.Context, u Utterance, volume int) error {
	if s.opt.Spoken != nil {
		s.opt.Spoken(u)
	}
	if volume == 0 || strings.TrimSpace(u.Text) == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, s.opt.Program, s.args(u.Lang, volume)...)
	cmd.Stdin = strings.NewReader(u.Text)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// The synthesiser yields the processor to the game (run): on a
	// kiosk's two cores a sentence synthesised at the game's priority
	// delayed frames; behind it, it still speaks far faster than it is
	// heard.
	err := cmd.Run()
	if err == nil || ctx.Err() != nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && stderr.Len() > 0 {
		return fmt.Errorf("%s: %v: %s", s.opt.Program, err, strings.TrimSpace(stderr.String()))
	}
	return fmt.Errorf("%s: %w", s.opt.Program, err)
}

// args are espeak-ng's options: the voice, the amplitude (0 to 200, its
// default 100 at the volume 50), the speed, the text on standard input,
// and the WAV file if one is given.
func (s *Speaker) args(l Lang, volume int) []string {
	voice, ok := voices[l]
	if !ok {
		voice = voices[French]
	}
	a := []string{"-v", voice, "-a", strconv.Itoa(volume * 2), "-s", strconv.Itoa(s.opt.Rate)}
	if s.opt.WAV != "" {
		a = append(a, "-w", s.opt.WAV)
	}
	return append(a, "--stdin")
}
