package printersim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

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
	conn      *os.File // the master, pollable: closing it wakes the reader
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
	conn, err := pollable(t.Master)
	if err != nil {
		_ = t.Close()
		return err
	}
	p.mu.Lock()
	p.pty, p.conn, p.unplugged = t, conn, false
	p.stop = make(chan struct{})
	p.mu.Unlock()
	p.wg.Add(1)
	go p.serve(conn, p.stop)
	return nil
}

// pollable returns a second descriptor of the pty master in non-blocking mode, which the Go
// runtime's poller waits on. creack/pty leaves the master in blocking mode (it calls Fd), and a
// Read blocked in the kernel keeps the descriptor open past Close: the host would never see the
// cable pulled while it holds the port. Closing this descriptor wakes the Read at once.
func pollable(m *os.File) (*os.File, error) {
	fd, err := unix.Dup(int(m.Fd()))
	if err != nil {
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), m.Name()), nil
}

// serve reads the host's bytes until the pty is closed. While no host holds the slave, a read of
// the master fails at once (EIO): wait a little and read again.
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
	conn := p.conn
	p.mu.Unlock()
	if conn == nil {
		return // unplugged: the answer goes nowhere
	}
	if _, err := conn.Write(b); err != nil {
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
	t, conn, stop := p.pty, p.conn, p.stop
	if t == nil || p.closed {
		p.mu.Unlock()
		return errors.New("unplug printer: not plugged in")
	}
	p.pty, p.conn, p.unplugged = nil, nil, true
	p.mu.Unlock()
	err := p.pull(t, conn, stop)
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
	t, conn, stop := p.pty, p.conn, p.stop
	p.pty, p.conn = nil, nil
	p.mu.Unlock()
	if t == nil {
		return nil
	}
	if err := p.pull(t, conn, stop); err != nil {
		return fmt.Errorf("close printer: %w", err)
	}
	return nil
}

// pull stops the reader and closes both descriptors of the master: the host's end hangs up.
func (p *Printer) pull(t *sim.PTY, conn *os.File, stop chan struct{}) error {
	close(stop)
	err := conn.Close()
	p.wg.Wait()
	return errors.Join(err, t.Close())
}
