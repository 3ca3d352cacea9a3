// Package hwtest holds a fake serial port for testing the code that drives a device: a
// record/playback port that plays a recorded conversation and fails on an unexpected or missing
// exchange (as periph's conntest.Playback does). Device packages add their own helpers on top
// (hw/id003/id003test encodes ID-003 frames for it).
//
// Nothing here may be used outside tests.
package hwtest

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"pharaon/hw"
)

// Exchange is one expected write and the bytes the device answers to it (nil: silence).
type Exchange struct {
	Write []byte
	Read  []byte
}

// Playback is a hw.Port that plays a recorded conversation: each Write must be the next expected
// one, and the answer is then readable. A Read with nothing to give returns (0, nil), a timeout.
// A Write that differs fails with hw.ErrIO (so a driver drops the line) and is recorded; Err
// reports it, and also expected exchanges that never happened. After the last exchange the line
// is unplugged: writes fail with hw.ErrIO (a polling driver always writes on) and are counted in
// Extra, not as an error.
type Playback struct {
	mu      sync.Mutex
	ops     []Exchange
	pos     int
	pending []byte
	err     error
	closed  bool
	extra   int
	done    chan struct{}
}

// Extra counts the writes after the last exchange.
func (p *Playback) Extra() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.extra
}

// NewPlayback returns a port that expects exactly ops.
func NewPlayback(ops ...Exchange) *Playback {
	return &Playback{ops: ops, done: make(chan struct{})}
}

// Done is closed once every exchange happened or the conversation went wrong.
func (p *Playback) Done() <-chan struct{} { return p.done }

func (p *Playback) finish() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

func (p *Playback) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, &hw.Error{Op: "read", Kind: hw.ErrClosed}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	return n, nil
}

func (p *Playback) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, &hw.Error{Op: "write", Kind: hw.ErrClosed}
	}
	if p.err != nil {
		return 0, &hw.Error{Op: "write", Kind: hw.ErrIO, Err: p.err}
	}
	if p.pos >= len(p.ops) {
		p.extra++
		return 0, &hw.Error{Op: "write", Kind: hw.ErrIO, Err: errors.New("playback ended")}
	}
	want := p.ops[p.pos]
	if string(want.Write) != string(b) {
		p.err = fmt.Errorf("exchange %d: wrote % X, want % X", p.pos, b, want.Write)
		p.finish()
		return 0, &hw.Error{Op: "write", Kind: hw.ErrIO, Err: p.err}
	}
	p.pos++
	p.pending = append(p.pending, want.Read...)
	if p.pos == len(p.ops) {
		p.finish()
	}
	return len(b), nil
}

func (p *Playback) SetReadTimeout(time.Duration) error { return nil }

func (p *Playback) ResetInputBuffer() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = nil
	return nil
}

func (p *Playback) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.finish()
	return nil
}

// Err is the first mismatch, or the exchanges left over, or nil when the conversation happened
// exactly as recorded.
func (p *Playback) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.pos < len(p.ops) {
		return fmt.Errorf("%d of %d exchanges left over, next wants % X", len(p.ops)-p.pos, len(p.ops), p.ops[p.pos].Write)
	}
	return nil
}
