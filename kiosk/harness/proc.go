package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a headless kiosk process seen from the harness.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout, line by line; closed at its end
	stderr *tailBuffer
	done   chan struct{} // closed once the process is reaped
	err    error         // its exit, once done
}

// errExited: the kiosk process ended while the harness waited for it.
var errExited = errors.New("the kiosk process ended")

func startProc(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, lines: make(chan string, 64), stderr: &tailBuffer{max: 256 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// send writes one command line.
func (p *proc) send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// answer reads lines until the next answer; events are passed to onEvent.
// ok is the JSON of an "ok" answer; an "err" answer is an error. It gives
// up after stall without the process's progress (see patience), or after
// ten times stall however busy the process is.
func (p *proc) answer(stall time.Duration, onEvent func(string)) (string, error) {
	w := p.patience(stall, 10*stall)
	defer w.stop()
	for {
		select {
		case l, open := <-p.lines:
			if !open {
				<-p.done
				return "", fmt.Errorf("%w (%v): %s", errExited, p.err, p.stderr.String())
			}
			kind, rest, _ := strings.Cut(l, " ")
			switch kind {
			case "ok":
				return rest, nil
			case "err":
				return "", &kioskError{rest}
			case "event":
				if onEvent != nil {
					onEvent(rest)
				}
			}
		case <-w.tick.C:
			if why := w.check(); why != "" {
				return "", fmt.Errorf("no answer: %s", why)
			}
		}
	}
}

// call sends a command and waits for its answer.
func (p *proc) call(line string, stall time.Duration) (string, error) {
	if err := p.send(line); err != nil {
		return "", err
	}
	return p.answer(stall, nil)
}

// kill is kill -9, and waits for the process's end.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	for range p.lines {
	}
	<-p.done
}

// quitStall and quitLimit bound a clean stop: the kiosk closing its
// store on a loaded machine (another test suite beside it) can take well
// over a quiet machine's second, and is given time while it works.
const (
	quitStall = 20 * time.Second
	quitLimit = 5 * time.Minute
)

// quit stops the kiosk cleanly (see quitWithin).
func (p *proc) quit() error { return p.quitWithin(quitStall, quitLimit) }

// quitWithin asks the kiosk to stop and waits for its end, reading what
// it still writes (a process blocked on a full pipe never ends). If it
// makes no progress for stall, or has not ended after limit, it is sent
// SIGQUIT, which makes a Go program write its goroutines to stderr and
// end, and then killed; the error holds that stderr.
func (p *proc) quitWithin(stall, limit time.Duration) error {
	_ = p.send("quit")
	_ = p.stdin.Close()
	w := p.patience(stall, limit)
	defer w.stop()
	lines := p.lines
	for {
		select {
		case <-p.done:
			if lines != nil {
				for range lines {
				}
			}
			return nil
		case _, open := <-lines:
			if !open {
				lines = nil
			}
		case <-w.tick.C:
			why := w.check()
			if why == "" {
				continue
			}
			if lines != nil {
				go func() {
					for range lines {
					}
				}()
			}
			_ = p.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
			}
			p.kill()
			return fmt.Errorf("the kiosk did not stop (%s); its stderr: %s", why, p.stderr.String())
		}
	}
}

// waiting is the harness's patience with a kiosk process: the process
// makes progress while its CPU time or its count of read and write calls
// grows, or while one of its threads is runnable (waiting for a CPU) or
// in a disk wait, sampled every 100 ms. Without progress for stall, or
// after limit in all, the harness gives up: a hung kiosk is found in
// stall, a loaded machine only slows it.
type waiting struct {
	pid          int
	stall, limit time.Duration
	tick         *time.Ticker
	start, moved time.Time
	last         uint64
}

func (p *proc) patience(stall, limit time.Duration) *waiting {
	now := time.Now()
	w := &waiting{pid: p.cmd.Process.Pid, stall: stall, limit: limit, tick: time.NewTicker(100 * time.Millisecond), start: now, moved: now}
	w.last, _ = readProgress(w.pid)
	return w
}

func (w *waiting) stop() { w.tick.Stop() }

// check says why to give up, or "" to wait on.
func (w *waiting) check() string {
	now := time.Now()
	work, busy := readProgress(w.pid)
	if work != w.last || busy {
		w.last, w.moved = work, now
	}
	switch {
	case now.Sub(w.moved) >= w.stall:
		return fmt.Sprintf("no progress in %v", w.stall)
	case now.Sub(w.start) >= w.limit:
		return fmt.Sprintf("still working after %v", w.limit)
	}
	return ""
}

// readProgress reads a process's work from /proc: its CPU time in clock
// ticks plus its read and write calls, and whether one of its threads is
// running, runnable or in an uninterruptible wait (R, D). A process gone
// reads as no work and not busy.
func readProgress(pid int) (work uint64, busy bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	// After the command: state, ppid, ... utime (14th field of the line)
	// and stime (15th) are f[11] and f[12].
	if f := statFields(dir + "/stat"); len(f) > 12 {
		u, _ := strconv.ParseUint(f[11], 10, 64)
		s, _ := strconv.ParseUint(f[12], 10, 64)
		work += u + s
	}
	if b, err := os.ReadFile(dir + "/io"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, ": ")
			if k == "syscr" || k == "syscw" {
				n, _ := strconv.ParseUint(v, 10, 64)
				work += n
			}
		}
	}
	tasks, _ := os.ReadDir(dir + "/task")
	for _, t := range tasks {
		if f := statFields(dir + "/task/" + t.Name() + "/stat"); len(f) > 0 && (f[0] == "R" || f[0] == "D") {
			busy = true
		}
	}
	return work, busy
}

// statFields are the fields of a /proc stat file after the command's
// name (which may hold spaces and parentheses): the state first; none if
// it cannot be read.
func statFields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// kioskError is an "err" answer of the kiosk: a refusal or a fault it
// reported, not a failure of the harness.
type kioskError struct{ msg string }

func (e *kioskError) Error() string { return e.msg }

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
