package printersim

import "fmt"

// Paper is the roll's state as the printer's sensors see it.
type Paper int

const (
	PaperOK    Paper = iota
	PaperLow         // the near-end sensor sees the roll getting thin: printing goes on
	PaperEmpty       // the paper-end sensor: printing stops
)

func (p Paper) String() string {
	switch p {
	case PaperOK:
		return "paper ok"
	case PaperLow:
		return "paper near end"
	case PaperEmpty:
		return "paper out"
	}
	return fmt.Sprintf("Paper(%d)", int(p))
}

// Fault is a condition the simulator can be put in, at once or on a Trigger.
type Fault int

const (
	PaperOut      Fault = iota + 1 // the roll runs out: printing stops mid-receipt
	PaperNearEnd                   // the roll gets thin: a warning only
	CoverOpen                      // printing stops
	CutterJam                      // the cutter fails: the receipt stays uncut, printing stops
	Unrecoverable                  // the printer is dead until repaired
	Offline                        // offline without another cause
	Overheat                       // the head is too hot: an auto-recoverable error
	// BufferCleared is not a state: it marks a receipt cut short by the host's DLE DC4 8.
	BufferCleared
)

func (f Fault) String() string {
	switch f {
	case PaperOut:
		return "paper out"
	case PaperNearEnd:
		return "paper near end"
	case CoverOpen:
		return "cover open"
	case CutterJam:
		return "cutter jam"
	case Unrecoverable:
		return "unrecoverable error"
	case Offline:
		return "offline"
	case Overheat:
		return "head overheat"
	case BufferCleared:
		return "buffer cleared"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// State is the printer's sensors and faults.
type State struct {
	Paper         Paper
	CoverOpen     bool
	CutterError   bool
	Unrecoverable bool
	Offline       bool // forced offline (e.g. waiting for the feed button)
	Overheat      bool
}

// Stopped is true when the printer does not print: it keeps what it receives and answers only the
// real-time commands.
func (s State) Stopped() bool {
	return s.Paper == PaperEmpty || s.CoverOpen || s.CutterError || s.Unrecoverable || s.Offline || s.Overheat
}

// cause is the fault that stopped the printer, the most serious first.
func (s State) cause() Fault {
	switch {
	case s.Unrecoverable:
		return Unrecoverable
	case s.CutterError:
		return CutterJam
	case s.CoverOpen:
		return CoverOpen
	case s.Paper == PaperEmpty:
		return PaperOut
	case s.Overheat:
		return Overheat
	}
	return Offline
}

func (s *State) apply(f Fault, on bool) {
	switch f {
	case PaperOut:
		s.Paper = PaperOK
		if on {
			s.Paper = PaperEmpty
		}
	case PaperNearEnd:
		s.Paper = PaperOK
		if on {
			s.Paper = PaperLow
		}
	case CoverOpen:
		s.CoverOpen = on
	case CutterJam:
		s.CutterError = on
	case Unrecoverable:
		s.Unrecoverable = on
	case Offline:
		s.Offline = on
	case Overheat:
		s.Overheat = on
	}
}

// realTime is the answer to DLE EOT n (1 to 4), with the fixed bits 1 and 4 set.
func (s State) realTime(n byte) byte {
	b := byte(0x12)
	switch n {
	case 1:
		if s.Stopped() {
			b |= 0x08 // offline
		}
		if s.CutterError {
			b |= 0x20 // waiting for online recovery (DLE ENQ)
		}
	case 2:
		if s.CoverOpen {
			b |= 0x04
		}
		if s.Paper == PaperEmpty {
			b |= 0x20 // printing stopped by the paper end
		}
		if s.CutterError || s.Unrecoverable || s.Overheat {
			b |= 0x40 // an error occurred
		}
	case 3:
		if s.CutterError {
			b |= 0x08
		}
		if s.Unrecoverable {
			b |= 0x20
		}
		if s.Overheat {
			b |= 0x40
		}
	case 4:
		if s.Paper != PaperOK {
			b |= 0x0C // near-end sensor
		}
		if s.Paper == PaperEmpty {
			b |= 0x60 // paper-end sensor
		}
	}
	return b
}

// autoStatus is the 4-byte Automatic Status Back (GS a): the first byte has bits 0, 1 and 7 clear
// and bit 4 set, the three others bits 4 and 7 clear, so that a host tells them from the answers
// to DLE EOT (bits 1 and 4 set) and GS r (bit 4 clear, after no ASB header).
func (s State) autoStatus() [4]byte {
	b := [4]byte{0x10, 0, 0, 0}
	if s.Stopped() {
		b[0] |= 0x08 // offline
	}
	if s.CoverOpen {
		b[0] |= 0x20
	}
	if s.CutterError {
		b[1] |= 0x08 // autocutter error
	}
	if s.Unrecoverable {
		b[1] |= 0x20
	}
	if s.Overheat {
		b[1] |= 0x40 // auto-recoverable error
	}
	if s.Paper != PaperOK {
		b[2] |= 0x03 // near-end sensor
	}
	if s.Paper == PaperEmpty {
		b[2] |= 0x0C // paper-end sensor
	}
	return b
}

type triggerKind int

const (
	afterLines triggerKind = iota
	atCut
	afterSync
)

// Trigger says when an injected fault happens.
type Trigger struct {
	kind triggerKind
	n    int
}

// AfterLines fires once n more lines have been printed (a barcode or a QR code is one line, its
// human readable text another): "paper out after n lines". n <= 0 fires at once.
func AfterLines(n int) Trigger { return Trigger{kind: afterLines, n: n} }

// AtCut fires when the next cut command is executed, before the cut: with CutterJam the receipt
// stays uncut.
func AtCut() Trigger { return Trigger{kind: atCut} }

// AfterSync fires right after the printer answers the next GS r (the host's "has everything been
// printed?"): the print went through, and the fault is there when the host reads the status next.
func AfterSync() Trigger { return Trigger{kind: afterSync} }

type injection struct {
	Trigger
	fault Fault
}
