package escpos

import (
	"errors"
	"fmt"
	"strings"

	"pharaon/hw"
)

// The printer conditions that stop a print. Status.Err returns one of them; Print wraps it in a
// *PrintError that says whether anything had been sent.
var (
	ErrPaperOut      = errors.New("paper out")
	ErrCoverOpen     = errors.New("cover open")
	ErrCutter        = errors.New("cutter error")
	ErrUnrecoverable = errors.New("unrecoverable printer error")
	// ErrPaused: an auto-recoverable error (print head too hot): printing resumes by itself.
	ErrPaused  = errors.New("printer paused by an auto-recoverable error")
	ErrOffline = errors.New("printer offline")
)

// Status is the printer's real-time state, from the answers to DLE EOT 1 to 4.
type Status struct {
	// DLE EOT 1, printer status.
	Offline         bool // bit 3
	WaitingRecovery bool // bit 5: waiting for online recovery
	FeedButton      bool // bit 6: the paper feed button is pressed
	// DLE EOT 2, offline cause.
	CoverOpen       bool // bit 2
	FeedingByButton bool // bit 3: paper is being fed by the button
	StoppedPaperEnd bool // bit 5: printing stopped because the paper ran out
	ErrorOccurred   bool // bit 6
	// DLE EOT 3, error cause.
	CutterError     bool // bit 3
	Unrecoverable   bool // bit 5
	AutoRecoverable bool // bit 6 (head temperature; some models also report an open cover here)
	// DLE EOT 4, roll paper sensors.
	PaperNearEnd bool // bits 2-3: near-end sensor sees the roll getting thin (a warning only)
	PaperOut     bool // bits 5-6: paper-end sensor, or printing stopped by a paper end
	// Raw holds the four answers as received.
	Raw [4]byte
}

// A DLE EOT answer always has bit 1 and bit 4 set and bits 0 and 7 clear: that is how a host tells
// it from the other bytes a printer may send (GS r and ESC v answers have bit 4 clear, ASB's first
// byte has bit 1 clear, block data starts with 0x35 or 0x37).
const (
	rtFixedMask  = 0x93
	rtFixedValue = 0x12
)

// isRealTimeAnswer tells a DLE EOT answer by its fixed bits.
func isRealTimeAnswer(b byte) bool { return b&rtFixedMask == rtFixedValue }

// ParseStatus decodes the four answers to DLE EOT 1, 2, 3 and 4, in that order. Bytes that do not
// carry the fixed bits, or a count other than four, are a protocol error (wrapping hw.ErrProtocol):
// a status the kiosk cannot trust is never read as "ready".
func ParseStatus(raw []byte) (Status, error) {
	if len(raw) != 4 {
		return Status{}, hw.Errorf(hw.ErrProtocol, "parse status", "%d status bytes, want 4", len(raw))
	}
	for i, b := range raw {
		if !isRealTimeAnswer(b) {
			return Status{}, hw.Errorf(hw.ErrProtocol, "parse status",
				"answer to DLE EOT %d is %#02x: fixed bits missing", i+1, b)
		}
	}
	p, o, e, s := raw[0], raw[1], raw[2], raw[3]
	st := Status{
		Offline:         p&0x08 != 0,
		WaitingRecovery: p&0x20 != 0,
		FeedButton:      p&0x40 != 0,
		CoverOpen:       o&0x04 != 0,
		FeedingByButton: o&0x08 != 0,
		StoppedPaperEnd: o&0x20 != 0,
		ErrorOccurred:   o&0x40 != 0,
		CutterError:     e&0x08 != 0,
		Unrecoverable:   e&0x20 != 0,
		AutoRecoverable: e&0x40 != 0,
		// Models differ on which of the two bits each sensor sets (Epson sets both, some Citizen
		// models one per sensor): either one counts.
		PaperNearEnd: s&0x0C != 0,
		PaperOut:     s&0x60 != 0 || o&0x20 != 0,
	}
	copy(st.Raw[:], raw)
	return st, nil
}

// Err is the condition that forbids printing, or nil when the printer is ready. A paper near end is
// not one (the roll still holds several vouchers): read PaperNearEnd to warn the staff. The order
// puts first what the staff must act on: a dead printer, a jammed cutter, an open cover, no paper.
func (s Status) Err() error {
	switch {
	case s.Unrecoverable:
		return ErrUnrecoverable
	case s.CutterError:
		return ErrCutter
	case s.CoverOpen:
		return ErrCoverOpen
	case s.PaperOut:
		return ErrPaperOut
	case s.AutoRecoverable:
		return ErrPaused
	case s.Offline, s.ErrorOccurred, s.WaitingRecovery, s.FeedingByButton, s.FeedButton:
		return ErrOffline
	}
	return nil
}

// Ready is true when nothing forbids printing.
func (s Status) Ready() bool { return s.Err() == nil }

func (s Status) String() string {
	var parts []string
	add := func(on bool, name string) {
		if on {
			parts = append(parts, name)
		}
	}
	add(s.Offline, "offline")
	add(s.WaitingRecovery, "waiting recovery")
	add(s.FeedButton, "feed button")
	add(s.CoverOpen, "cover open")
	add(s.FeedingByButton, "feeding")
	add(s.StoppedPaperEnd, "stopped at paper end")
	add(s.ErrorOccurred, "error")
	add(s.CutterError, "cutter error")
	add(s.Unrecoverable, "unrecoverable")
	add(s.AutoRecoverable, "auto-recoverable")
	add(s.PaperNearEnd, "paper near end")
	add(s.PaperOut, "paper out")
	if len(parts) == 0 {
		parts = append(parts, "ready")
	}
	return fmt.Sprintf("%s [% x]", strings.Join(parts, ", "), s.Raw[:])
}
