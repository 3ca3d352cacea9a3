package printersim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"pharaon/hw/sim"
)

// Printer is a simulated receipt printer on a pseudo-terminal: the host opens Path through hw.Open
// like the real printer's serial port. It embeds its Interpreter, whose methods set the paper and
// fault states, inject faults and read the receipts back.
type Printer struct {
	*Interpreter
	cfg Config

	mu        sync.Mutex
	pty       *sim.PTY
	unplugged bool
	closed    bool
	stop      chan struct{}
	wg        sync.WaitGroup
	received  []byte
}

// maxKept bounds the bytes a long development run keeps in memory; the oldest half is dropped past it.
const maxKept = 8 << 20

// Start powers a simulated printer on a new pseudo-terminal (at cfg.Link when given). When cfg.Dir
// is set, each receipt is written there as NNNN.txt and NNNN.png as it is finished.
func Start(cfg Config) (*Printer, error) {
	cfg = cfg.withDefaults()
	p := &Printer{cfg: cfg}
	p.Interpreter = NewInterpreter(cfg, p.send)
	if cfg.Dir != "" {
		if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("start printer: %w", err)
		}
		p.OnReceipt(p.save)
	}
	if err := p.plug(); err != nil {
		return nil, fmt.Errorf("start printer: %w", err)
	}
	return p, nil
}

// Path is what the host opens: the link, or the current slave device.
func (p *Printer) Path() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pty == nil {
		return p.cfg.Link
	}
	return p.pty.Path
}

func (p *Printer) plug() error {
	t, err := sim.OpenPTY(p.cfg.Link)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.pty, p.unplugged = t, false
	p.stop = make(chan struct{})
	p.mu.Unlock()
	p.wg.Add(1)
	go p.serve(t.Master, p.stop)
	return nil
}

// serve reads the host's bytes until the pty is closed. While no host holds the slave, a read of
// the master fails at once (EIO): wait a little and read again. The master is pollable (hw/sim
// makes it so): closing it wakes a pending Read, so an unplug never waits on the host.
func (p *Printer) serve(conn *os.File, stop chan struct{}) {
	defer p.wg.Done()
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			p.keep(buf[:n])
			_, _ = p.Interpreter.Write(buf[:n])
		}
		if err != nil {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

func (p *Printer) keep(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.received)+len(b) > maxKept {
		p.received = append(p.received[:0], p.received[len(p.received)/2:]...)
	}
	p.received = append(p.received, b...)
}

// send writes the printer's answers to the host. Called with the Interpreter's lock held.
func (p *Printer) send(b []byte) {
	p.mu.Lock()
	t := p.pty
	p.mu.Unlock()
	if t == nil {
		return // unplugged: the answer goes nowhere
	}
	if _, err := t.Master.Write(b); err != nil {
		p.Interpreter.logf("answer % x lost: %v", b, err)
	}
}

func (p *Printer) save(r *Receipt) {
	base := filepath.Join(p.cfg.Dir, fmt.Sprintf("%04d", r.Seq))
	if err := os.WriteFile(base+".txt", []byte(r.Text), 0o644); err != nil {
		p.Interpreter.logf("save receipt: %v", err)
	}
	img, err := r.PNG()
	if err == nil {
		err = os.WriteFile(base+".png", img, 0o644)
	}
	if err != nil {
		p.Interpreter.logf("save receipt: %v", err)
	}
}

// Received returns every byte the printer received (the most recent 8 MiB at most).
func (p *Printer) Received() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.received...)
}

// Unplug pulls the cable: the host's port hangs up (its reads and writes fail) and the path
// vanishes until Replug. The printer keeps its state and its receipts.
func (p *Printer) Unplug() error {
	p.mu.Lock()
	t, stop := p.pty, p.stop
	if t == nil || p.closed {
		p.mu.Unlock()
		return errors.New("unplug printer: not plugged in")
	}
	p.pty, p.unplugged = nil, true
	p.mu.Unlock()
	err := p.pull(t, stop)
	if err != nil {
		return fmt.Errorf("unplug printer: %w", err)
	}
	return nil
}

// Replug plugs the cable back: a new pseudo-terminal at the same link.
func (p *Printer) Replug() error {
	p.mu.Lock()
	if !p.unplugged || p.closed {
		p.mu.Unlock()
		return errors.New("replug printer: not unplugged")
	}
	p.mu.Unlock()
	if err := p.plug(); err != nil {
		return fmt.Errorf("replug printer: %w", err)
	}
	return nil
}

// Close powers the printer off for good.
func (p *Printer) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	t, stop := p.pty, p.stop
	p.pty = nil
	p.mu.Unlock()
	if t == nil {
		return nil
	}
	if err := p.pull(t, stop); err != nil {
		return fmt.Errorf("close printer: %w", err)
	}
	return nil
}

// pull closes the master, which hangs up the host's end and wakes the reader, and waits for it.
func (p *Printer) pull(t *sim.PTY, stop chan struct{}) error {
	close(stop)
	err := t.Close()
	p.wg.Wait()
	return err
}
