package id003

import (
	"encoding/hex"
	"fmt"

	"pharaon/hw"
)

// Status errors; each wraps hw.ErrProtocol.
var (
	ErrUnknownStatus = fmt.Errorf("%w: unknown status byte", hw.ErrProtocol)
	ErrStatusData    = fmt.Errorf("%w: status data of the wrong length", hw.ErrProtocol)
)

// Status is the unit's answer to a status request: its own bytes, kept as received for the event
// log, and the state they report.
type Status struct {
	Code  byte   // the status byte, e.g. 0x13 for ESCROW
	Data  []byte // the bytes after it (denomination code, reject reason, failure code)
	State State
}

// ParseStatus reads the answer to a status request. It refuses a status byte it does not know and
// data lengths the state does not take, so that a frame that passed the CRC but makes no sense is
// never acted on. ESCROW takes one or more bytes (barcode tickets carry more; the host returns
// anything that is not a known note); VEND VALID takes zero or one (units differ); REJECTING and
// FAILURE take zero or one.
func ParseStatus(f Frame) (Status, error) {
	st := StateOf(f.Cmd)
	info, ok := states[st]
	if !ok || st == StateInvalidCommand {
		return Status{}, fmt.Errorf("%w: %02X", ErrUnknownStatus, f.Cmd)
	}
	if len(f.Data) < info.minData || len(f.Data) > info.maxData {
		return Status{}, fmt.Errorf("%w: %s with %d bytes", ErrStatusData, st, len(f.Data))
	}
	s := Status{Code: f.Cmd, State: st}
	if len(f.Data) > 0 {
		s.Data = append([]byte(nil), f.Data...)
	}
	return s, nil
}

// Denomination is the escrow code of an ESCROW or VEND VALID status, if it carries one.
func (s Status) Denomination() (byte, bool) {
	if (s.State == StateEscrow || s.State == StateVendValid) && len(s.Data) > 0 {
		return s.Data[0], true
	}
	return 0, false
}

// Reason is the reject reason of a REJECTING status (0 if none was sent).
func (s Status) Reason() RejectReason {
	if s.State == StateRejecting && len(s.Data) > 0 {
		return RejectReason(s.Data[0])
	}
	return 0
}

// Failure is the failure code of a FAILURE status (0 if none was sent).
func (s Status) Failure() FailureCode {
	if s.State == StateFailure && len(s.Data) > 0 {
		return FailureCode(s.Data[0])
	}
	return 0
}

// Same reports whether two statuses carry the same bytes (the event log records changes only).
func (s Status) Same(t Status) bool {
	return s.Code == t.Code && string(s.Data) == string(t.Data)
}

// DeviceCode is the status as the unit sent it, in hex ("13 63"), for the event log.
func (s Status) DeviceCode() string {
	if len(s.Data) == 0 {
		return fmt.Sprintf("%02X", s.Code)
	}
	return fmt.Sprintf("%02X %s", s.Code, hex.EncodeToString(s.Data))
}

func (s Status) String() string {
	switch s.State {
	case StateRejecting:
		return fmt.Sprintf("%s (%s) [%s]", s.State, s.Reason(), s.DeviceCode())
	case StateFailure:
		return fmt.Sprintf("%s (%s) [%s]", s.State, s.Failure(), s.DeviceCode())
	}
	return fmt.Sprintf("%s [%s]", s.State, s.DeviceCode())
}
