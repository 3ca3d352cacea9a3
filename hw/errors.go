package hw

import (
	"errors"
	"fmt"
)

// Error kinds a driver and the kiosk act on with errors.Is. Every error of this package and of the
// drivers built on it wraps exactly one of them.
var (
	// ErrNotFound: the device path is absent (unplugged, not yet enumerated). Retry with back-off.
	ErrNotFound = errors.New("device not found")
	// ErrBusy: the device exists but cannot be opened (permission, another process holds it).
	ErrBusy = errors.New("device busy or not permitted")
	// ErrInvalid: the path is not a serial device or the mode cannot be set. A configuration
	// error: retrying will not help.
	ErrInvalid = errors.New("invalid device or mode")
	// ErrClosed: the port was closed by its owner.
	ErrClosed = errors.New("port closed")
	// ErrIO: a read or write failed, typically the device went away mid-use. Close and re-open.
	ErrIO = errors.New("device i/o failed")
	// ErrTimeout: the device did not answer within the protocol's time.
	ErrTimeout = errors.New("device did not answer")
	// ErrProtocol: the device answered bytes that make no sense for the protocol.
	ErrProtocol = errors.New("device protocol error")
)

// Error is a failed operation on a device: what was done, on which path, its Kind (one of the
// sentinel errors above, matched by errors.Is) and the underlying cause, if any (matched by
// errors.As, e.g. a *serial.PortError).
type Error struct {
	Op   string // "open", "read", "write", ...
	Path string
	Kind error
	Err  error
}

func (e *Error) Error() string {
	s := e.Op
	if e.Path != "" {
		s += " " + e.Path
	}
	s += ": " + e.Kind.Error()
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Kind returns the sentinel kind err wraps (ErrNotFound, ErrIO, ...), or nil when err comes from
// outside hw.
func Kind(err error) error {
	for _, k := range []error{ErrNotFound, ErrBusy, ErrInvalid, ErrClosed, ErrIO, ErrTimeout, ErrProtocol} {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// Errorf builds an *Error of the given kind for drivers: hw.Errorf(hw.ErrProtocol, "read status",
// "bad crc %04x", crc).
func Errorf(kind error, op, format string, args ...any) error {
	return &Error{Op: op, Kind: kind, Err: fmt.Errorf(format, args...)}
}
