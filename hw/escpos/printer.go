package escpos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pharaon/hw"
)

// Stage says how far a failed print went, which is what the kiosk needs to decide about the credit
// and the voucher record.
type Stage int

const (
	// StageBefore: nothing was sent; no paper voucher exists.
	StageBefore Stage = iota
	// StageDuring: the document was sent (in part or whole) but the printer did not confirm it had
	// processed all of it; a partial voucher may hang out of the printer. The printer's buffers were
	// cleared so that the rest of it cannot print later, when the paper is replaced.
	StageDuring
	// StageAfter: the printer processed the whole document, but the status read right after shows a
	// fault (paper out, cover open...). The voucher may be whole; it is not confirmed.
	StageAfter
)

func (s Stage) String() string {
	switch s {
	case StageBefore:
		return "before printing"
	case StageDuring:
		return "while printing"
	case StageAfter:
		return "after printing"
	}
	return fmt.Sprintf("Stage(%d)", int(s))
}

// PrintError is a print that is not confirmed. Err is one of the printer conditions (ErrPaperOut,
// ErrCoverOpen, ...) or a device error (hw.ErrTimeout, hw.ErrIO, hw.ErrNotFound, hw.ErrProtocol),
// or ErrDoc, or the context's error; errors.Is sees through it.
type PrintError struct {
	Stage  Stage
	Status Status // the status that refused or stopped the print, when one was read
	Err    error
}

func (e *PrintError) Error() string { return fmt.Sprintf("print %s: %v", e.Stage, e.Err) }
func (e *PrintError) Unwrap() error { return e.Err }

// Config holds the printer's timing. Zero fields take the defaults.
type Config struct {
	// StatusTimeout bounds the wait for one DLE EOT answer: a real-time command is answered within
	// milliseconds even mid-print, so silence means an unplugged or powered-off printer.
	StatusTimeout time.Duration // default 500 ms
	// PrintTimeout bounds the wait for the printer to process a whole document.
	PrintTimeout time.Duration // default 15 s
	// PollInterval is how often the status is read while waiting for a print, so that a paper end
	// or an opened cover is reported at once rather than at PrintTimeout.
	PollInterval time.Duration // default 200 ms
}

func (c Config) withDefaults() Config {
	if c.StatusTimeout <= 0 {
		c.StatusTimeout = 500 * time.Millisecond
	}
	if c.PrintTimeout <= 0 {
		c.PrintTimeout = 15 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	return c
}

// readSlice bounds one blocking Read so that a cancelled context is noticed quickly.
const readSlice = 50 * time.Millisecond

// Commands the driver sends besides the document.
var (
	// GS r 1: "transmit paper sensor status". It is not a real-time command: the printer executes it
	// only after everything received before it, and not at all while stopped by a paper end. Its
	// answer after a document is therefore the printer's word that the document went through.
	cmdSync = []byte{gs, 'r', 1}
	// DLE DC4 fn=8: clear the receive and print buffers (real-time, executed even when offline).
	// Answered with 37 25 00.
	cmdClearBuffers = []byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 8}
	// DLE EOT 1 to 4, built once: the kiosk reads the status every few seconds for as long as it
	// runs, and every poll interval while a voucher prints.
	cmdStatus = [4][]byte{{dle, eot, 1}, {dle, eot, 2}, {dle, eot, 3}, {dle, eot, 4}}
)

// Flow control bytes a printer set for XON/XOFF sends when it goes busy and ready again. They are
// not answers: a 4-byte ASB block is even "continuous except for XOFF".
const (
	xon  = 0x11
	xoff = 0x13
)

// isSyncAnswer tells the answer to GS r from the other bytes a printer sends by Epson's
// recognition pattern 0xx0xxxx (bits 4 and 7 clear; the others carry sensors or are undefined and
// may be set). A DLE EOT answer has bit 4 set, and so has the header of an ASB block, after which
// three bytes of the same pattern follow: those are skipped before this test is made (next).
func isSyncAnswer(b byte) bool { return b&0x90 == 0 }

// isASBHeader tells the first byte of an Automatic Status Back block: 0xx1xx00.
func isASBHeader(b byte) bool { return b&0x93 == 0x10 }

// Printer is an ESC/POS receipt printer on a serial line. It opens its device on first use through
// dial and opens it again after the device went away. Its methods may be called from several
// goroutines; they take turns on the line.
type Printer struct {
	mu   sync.Mutex
	dial hw.Dial
	cfg  Config
	port hw.Port
	rbuf [1]byte // readByte's buffer (the line is used under mu only)
}

// New returns a printer that reaches its device through dial, e.g.
// func() (hw.Port, error) { return hw.Open("/dev/serial/by-id/...", hw.Mode{38400, 8, hw.NoParity, 1}) }.
func New(dial hw.Dial, cfg Config) *Printer {
	return &Printer{dial: dial, cfg: cfg.withDefaults()}
}

// Close releases the device. A later call opens it again.
func (p *Printer) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.port == nil {
		return nil
	}
	err := p.port.Close()
	p.port = nil
	return err
}

func (p *Printer) open() (hw.Port, error) {
	if p.port != nil {
		return p.port, nil
	}
	port, err := p.dial()
	if err != nil {
		return nil, fmt.Errorf("open printer: %w", err)
	}
	p.port = port
	return port, nil
}

// drop forgets a port that failed in a way that re-opening may cure (unplugged, hung up).
func (p *Printer) drop(err error) {
	if p.port != nil && (errors.Is(err, hw.ErrIO) || errors.Is(err, hw.ErrClosed)) {
		_ = p.port.Close()
		p.port = nil
	}
}

// Status reads the printer's real-time status (DLE EOT 1 to 4). No answer within the status
// timeout is an error wrapping hw.ErrTimeout; an answer without the fixed bits, hw.ErrProtocol.
func (p *Printer) Status(ctx context.Context) (Status, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, st, err := p.readStatus(ctx)
	if err != nil {
		return Status{}, fmt.Errorf("printer status: %w", err)
	}
	return st, nil
}

// readStatus opens the device if it is not open, drops stale answers and reads the status. A
// device that failed is dropped, to be opened again next time.
func (p *Printer) readStatus(ctx context.Context) (hw.Port, Status, error) {
	port, err := p.open()
	if err != nil {
		return nil, Status{}, err
	}
	if err := port.ResetInputBuffer(); err != nil {
		p.drop(err)
		return nil, Status{}, err
	}
	st, _, err := p.query(ctx, port, false)
	if err != nil {
		p.drop(err)
		return nil, Status{}, err
	}
	return port, st, nil
}

// Print prints doc and returns the status read after it. It returns nil only when the printer was
// ready, processed every byte of the document (its answer to GS r, sent after the document,
// arrived) and was still free of faults right after. Flow control (XON, XOFF), Automatic Status Back
// blocks and status bytes nobody asked for may come among the answers: they are skipped, never taken
// for a confirmation nor made a protocol error. Any other outcome is a *PrintError whose Stage
// says whether anything was sent. A paper near end does not fail a print: check the returned
// Status.PaperNearEnd to warn the staff.
func (p *Printer) Print(ctx context.Context, doc *Doc) (Status, error) {
	data, err := doc.Bytes()
	if err != nil {
		return Status{}, &PrintError{Stage: StageBefore, Err: err}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	port, st, err := p.readStatus(ctx)
	if err != nil {
		return Status{}, &PrintError{Stage: StageBefore, Err: err}
	}
	if cond := st.Err(); cond != nil {
		return st, &PrintError{Stage: StageBefore, Status: st, Err: cond}
	}

	out := make([]byte, 0, len(data)+len(cmdSync))
	out = append(append(out, data...), cmdSync...)
	if _, err := port.Write(out); err != nil {
		p.abort(port, err)
		return st, &PrintError{Stage: StageDuring, Err: err}
	}
	if st, err := p.awaitSync(ctx, port); err != nil {
		p.abort(port, err)
		return st, &PrintError{Stage: StageDuring, Status: st, Err: err}
	}

	st, _, err = p.query(ctx, port, false)
	if err != nil {
		p.drop(err)
		return Status{}, &PrintError{Stage: StageAfter, Err: err}
	}
	if cond := st.Err(); cond != nil {
		return st, &PrintError{Stage: StageAfter, Status: st, Err: cond}
	}
	return st, nil
}

// awaitSync waits for the answer to GS r. While it does not come, it reads the real-time status
// every poll interval: a printer stopped by a paper end or an open cover will never answer GS r, and
// the kiosk must know at once. It returns the last status read.
func (p *Printer) awaitSync(ctx context.Context, port hw.Port) (Status, error) {
	var st Status
	deadline := time.Now().Add(p.cfg.PrintTimeout)
	for {
		wait := time.Now().Add(p.cfg.PollInterval)
		if wait.After(deadline) {
			wait = deadline
		}
		b, ok, err := p.next(ctx, port, wait)
		if err != nil {
			return st, err
		}
		if ok {
			switch {
			case isSyncAnswer(b):
				return st, nil
			case isRealTimeAnswer(b):
				// A status nobody asked for now: the answer to a real-time sequence that reached
				// the printer some other way. It says nothing about this document; wait on.
				if !time.Now().Before(deadline) {
					return st, hw.Errorf(hw.ErrTimeout, "await print", "printer did not finish within %v", p.cfg.PrintTimeout)
				}
				continue
			}
			return st, hw.Errorf(hw.ErrProtocol, "await print", "unexpected byte %#02x", b)
		}
		var synced bool
		st, synced, err = p.query(ctx, port, true)
		if err != nil {
			return st, err
		}
		if cond := st.Err(); cond != nil {
			return st, cond
		}
		if synced {
			return st, nil
		}
		if !time.Now().Before(deadline) {
			return st, hw.Errorf(hw.ErrTimeout, "await print", "printer did not finish within %v", p.cfg.PrintTimeout)
		}
	}
}

// abort ends a print that went wrong after sending: the printer's buffers are cleared (best effort)
// so that the unprinted rest of the voucher does not come out when the fault is cleared, and the
// port is dropped if it is gone.
func (p *Printer) abort(port hw.Port, cause error) {
	if errors.Is(cause, hw.ErrIO) || errors.Is(cause, hw.ErrClosed) {
		p.drop(cause)
		return
	}
	if _, err := port.Write(cmdClearBuffers); err != nil {
		p.drop(err)
		return
	}
	// The answer (37 25 00) is read and discarded; the next exchange resets the input anyway.
	deadline := time.Now().Add(p.cfg.StatusTimeout)
	for got := 0; got < 3; {
		b, ok, err := p.readByte(context.Background(), port, deadline)
		if err != nil {
			p.drop(err)
			return
		}
		if !ok {
			return
		}
		if b != xon && b != xoff {
			got++
		}
	}
}

// query sends DLE EOT 1 to 4, one at a time, and parses the answers. When sync is true an answer to
// GS r may arrive among them; it is reported and not mistaken for a status byte. XON, XOFF and ASB
// blocks are skipped (next). A status byte nobody asked for cannot be told from the answer to the
// request in flight; none comes now that no document carries a real-time sequence (realTimeAt),
// and a printer answers those at reception, long before the first poll.
func (p *Printer) query(ctx context.Context, port hw.Port, sync bool) (Status, bool, error) {
	var raw [4]byte
	synced := false
	for i := range raw {
		n := byte(i + 1)
		if _, err := port.Write(cmdStatus[i]); err != nil {
			return Status{}, synced, err
		}
		deadline := time.Now().Add(p.cfg.StatusTimeout)
		for {
			b, ok, err := p.next(ctx, port, deadline)
			if err != nil {
				return Status{}, synced, err
			}
			if !ok {
				return Status{}, synced, hw.Errorf(hw.ErrTimeout, "read status", "no answer to DLE EOT %d within %v", n, p.cfg.StatusTimeout)
			}
			if sync && !synced && isSyncAnswer(b) {
				synced = true
				continue
			}
			if !isRealTimeAnswer(b) {
				return Status{}, synced, hw.Errorf(hw.ErrProtocol, "read status", "answer to DLE EOT %d is %#02x: fixed bits missing", n, b)
			}
			raw[i] = b
			break
		}
	}
	st, err := ParseStatus(raw[:])
	return st, synced, err
}

// next reads the next byte that may answer a request, before deadline: XON and XOFF are skipped,
// and so is an Automatic Status Back block (its header and three bytes, XON and XOFF apart), which
// a printer left with ASB enabled sends unasked whenever its state changes. ok is false when
// nothing else came.
func (p *Printer) next(ctx context.Context, port hw.Port, deadline time.Time) (byte, bool, error) {
	asb := 0 // bytes of an ASB block still to skip
	for {
		b, ok, err := p.readByte(ctx, port, deadline)
		if err != nil || !ok {
			return 0, false, err
		}
		switch {
		case b == xon || b == xoff:
		case asb > 0:
			asb--
		case isASBHeader(b):
			asb = 3
		default:
			return b, true, nil
		}
	}
}

// readByte reads one byte before deadline. ok is false when none came.
func (p *Printer) readByte(ctx context.Context, port hw.Port, deadline time.Time) (byte, bool, error) {
	b := p.rbuf[:]
	for {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return 0, false, nil
		}
		if left > readSlice {
			left = readSlice
		}
		if err := port.SetReadTimeout(left); err != nil {
			return 0, false, err
		}
		n, err := port.Read(b)
		if err != nil {
			return 0, false, err
		}
		if n == 1 {
			return b[0], true, nil
		}
	}
}
