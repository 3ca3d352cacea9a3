// Package hw is the kiosk's door to its serial devices: a small Port interface over
// go.bug.st/serial, opened by a stable path, with typed errors the drivers and the kiosk act on,
// and a Reconnector that re-opens a device after an unplug with back-off.
//
// hw imports nothing of the project. It must never interpret the bytes it carries (that is the
// drivers' job, in hw/id003 and hw/escpos) and must never set the modem control lines (DTR/RTS):
// they are not needed by the kiosk's devices and they fail on a pseudo-terminal, which the
// development run and the tests use in place of the real devices.
package hw

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	"go.bug.st/serial"
)

// Port is what a driver needs of a serial line.
//
// A Read that times out returns (0, nil); a Read or Write on a device that went away returns an
// error wrapping ErrIO; any call after Close returns an error wrapping ErrClosed.
type Port interface {
	Read(p []byte) (int, error)
	// Write writes all of p or returns an error.
	Write(p []byte) (int, error)
	// SetReadTimeout bounds how long Read waits for the first byte; 0 makes Read poll.
	SetReadTimeout(d time.Duration) error
	// ResetInputBuffer drops the bytes received but not yet read (stale answers).
	ResetInputBuffer() error
	Close() error
}

// Parity of a serial character.
type Parity int

const (
	NoParity Parity = iota
	EvenParity
	OddParity
)

func (p Parity) String() string {
	switch p {
	case NoParity:
		return "N"
	case EvenParity:
		return "E"
	case OddParity:
		return "O"
	}
	return fmt.Sprintf("Parity(%d)", int(p))
}

// Mode is the line setting of a device, e.g. {9600, 8, EvenParity, 1} for a JCM ID-003 bill
// validator.
type Mode struct {
	BaudRate int
	DataBits int // 5 to 8
	Parity   Parity
	StopBits int // 1 or 2
}

func (m Mode) String() string {
	return fmt.Sprintf("%d %d%s%d", m.BaudRate, m.DataBits, m.Parity, m.StopBits)
}

// Validate reports a mode the serial layer cannot set.
func (m Mode) Validate() error {
	switch {
	case m.BaudRate <= 0:
		return fmt.Errorf("%w: baud rate %d", ErrInvalid, m.BaudRate)
	case m.DataBits < 5 || m.DataBits > 8:
		return fmt.Errorf("%w: %d data bits", ErrInvalid, m.DataBits)
	case m.Parity < NoParity || m.Parity > OddParity:
		return fmt.Errorf("%w: parity %d", ErrInvalid, int(m.Parity))
	case m.StopBits != 1 && m.StopBits != 2:
		return fmt.Errorf("%w: %d stop bits", ErrInvalid, m.StopBits)
	}
	return nil
}

func (m Mode) serial() *serial.Mode {
	sm := &serial.Mode{BaudRate: m.BaudRate, DataBits: m.DataBits, StopBits: serial.OneStopBit}
	if m.StopBits == 2 {
		sm.StopBits = serial.TwoStopBits
	}
	switch m.Parity {
	case EvenParity:
		sm.Parity = serial.EvenParity
	case OddParity:
		sm.Parity = serial.OddParity
	default:
		sm.Parity = serial.NoParity
	}
	// InitialStatusBits stays nil: go.bug.st/serial then leaves DTR/RTS alone, which a pty needs.
	return sm
}

// Open opens a serial device by its stable path (/dev/serial/by-id/..., a udev symlink, or a pty
// path) through go.bug.st/serial, in raw mode with the given line setting. It never sets the modem
// status bits. The returned Port starts with no read timeout; drivers set their own.
func Open(path string, m Mode) (Port, error) {
	if err := m.Validate(); err != nil {
		return nil, &Error{Op: "open", Path: path, Kind: ErrInvalid, Err: err}
	}
	sp, err := serial.Open(path, m.serial())
	if err != nil {
		return nil, &Error{Op: "open", Path: path, Kind: openKind(err), Err: err}
	}
	return &serialPort{path: path, p: sp}, nil
}

// openKind sorts an open failure into the kinds the kiosk acts on: absent (wait for the device),
// busy (someone else holds it; tell the technician), invalid (configuration error).
func openKind(err error) error {
	var pe *serial.PortError
	if errors.As(err, &pe) {
		switch pe.Code() {
		case serial.PortBusy, serial.PermissionDenied:
			return ErrBusy
		case serial.PortNotFound:
			return ErrNotFound
		case serial.InvalidSpeed, serial.InvalidDataBits, serial.InvalidParity,
			serial.InvalidStopBits, serial.InvalidSerialPort:
			return ErrInvalid
		}
		return ErrIO
	}
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENXIO),
		errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.EIO):
		// EIO: a pty slave whose master just closed, i.e. a device mid-unplug.
		return ErrNotFound
	case errors.Is(err, syscall.EBUSY), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return ErrBusy
	}
	return ErrIO
}

// serialPort adapts a go.bug.st/serial port to Port: full writes and typed errors.
type serialPort struct {
	path   string
	p      serial.Port
	closed atomic.Bool
}

func (s *serialPort) Read(b []byte) (int, error) {
	if s.closed.Load() {
		return 0, &Error{Op: "read", Path: s.path, Kind: ErrClosed}
	}
	n, err := s.p.Read(b)
	if err != nil {
		return n, s.ioError("read", err)
	}
	return n, nil
}

func (s *serialPort) Write(b []byte) (int, error) {
	if s.closed.Load() {
		return 0, &Error{Op: "write", Path: s.path, Kind: ErrClosed}
	}
	done := 0
	for done < len(b) {
		n, err := s.p.Write(b[done:])
		done += n
		if err != nil {
			return done, s.ioError("write", err)
		}
		if n == 0 {
			return done, &Error{Op: "write", Path: s.path, Kind: ErrIO, Err: errors.New("zero-length write")}
		}
	}
	return done, nil
}

// ioError: go.bug.st/serial reports a hang-up (the device unplugged under a read) as PortClosed;
// it is a closed port only if we closed it.
func (s *serialPort) ioError(op string, err error) error {
	if s.closed.Load() {
		return &Error{Op: op, Path: s.path, Kind: ErrClosed, Err: err}
	}
	return &Error{Op: op, Path: s.path, Kind: ErrIO, Err: err}
}

func (s *serialPort) SetReadTimeout(d time.Duration) error {
	if s.closed.Load() {
		return &Error{Op: "set read timeout", Path: s.path, Kind: ErrClosed}
	}
	if d < 0 {
		return &Error{Op: "set read timeout", Path: s.path, Kind: ErrInvalid, Err: fmt.Errorf("negative timeout %v", d)}
	}
	if err := s.p.SetReadTimeout(d); err != nil {
		return &Error{Op: "set read timeout", Path: s.path, Kind: ErrInvalid, Err: err}
	}
	return nil
}

func (s *serialPort) ResetInputBuffer() error {
	if s.closed.Load() {
		return &Error{Op: "reset input", Path: s.path, Kind: ErrClosed}
	}
	if err := s.p.ResetInputBuffer(); err != nil {
		return s.ioError("reset input", err)
	}
	return nil
}

// Close releases the device. Closing twice is not an error: after an unplug both the driver's
// read loop and its owner may close.
func (s *serialPort) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.p.Close(); err != nil {
		// The fd is released even when close reports an error (a vanished device).
		return &Error{Op: "close", Path: s.path, Kind: ErrIO, Err: err}
	}
	return nil
}
