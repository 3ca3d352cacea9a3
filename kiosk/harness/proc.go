package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
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
	p := &proc{cmd: cmd, lines: make(chan string, 64), stderr: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
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
// ok is the JSON of an "ok" answer; an "err" answer is an error.
func (p *proc) answer(timeout time.Duration, onEvent func(string)) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
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
		case <-t.C:
			return "", fmt.Errorf("no answer in %v", timeout)
		}
	}
}

// call sends a command and waits for its answer.
func (p *proc) call(line string, timeout time.Duration) (string, error) {
	if err := p.send(line); err != nil {
		return "", err
	}
	return p.answer(timeout, nil)
}

// kill is kill -9, and waits for the process's end.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	for range p.lines {
	}
	<-p.done
}

// quit stops the kiosk cleanly (kill -9 if it does not stop in time).
func (p *proc) quit() error {
	_ = p.send("quit")
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.kill()
		return fmt.Errorf("the kiosk did not stop: %s", p.stderr.String())
	}
	for range p.lines {
	}
	return nil
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
