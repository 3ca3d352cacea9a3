package essp

import (
	"fmt"
	"strings"
)

// Commands a host sends to a note validator (the first data byte of its frame).
const (
	CmdReset              = 0x01
	CmdSetInhibits        = 0x02
	CmdDisplayOn          = 0x03
	CmdDisplayOff         = 0x04
	CmdSetupRequest       = 0x05
	CmdHostProtocol       = 0x06
	CmdPoll               = 0x07
	CmdReject             = 0x08
	CmdDisable            = 0x09
	CmdEnable             = 0x0A
	CmdSerialNumber       = 0x0C
	CmdUnitData           = 0x0D
	CmdChannelValues      = 0x0E
	CmdChannelSecurity    = 0x0F
	CmdSync               = 0x11
	CmdLastRejectCode     = 0x17
	CmdHold               = 0x18
	CmdFirmwareVersion    = 0x20
	CmdDatasetVersion     = 0x21
	CmdSetGenerator       = 0x4A
	CmdSetModulus         = 0x4B
	CmdRequestKeyExchange = 0x4C
	CmdPollWithAck        = 0x56
	CmdEventAck           = 0x57
)

// Generic responses: the first data byte of every answer.
const (
	RespOK            = 0xF0
	RespUnknown       = 0xF2 // command not known
	RespWrongParams   = 0xF3 // wrong number of parameters
	RespOutOfRange    = 0xF4 // parameter out of range
	RespCannotProcess = 0xF5 // command cannot be processed now
	RespSoftwareError = 0xF6
	RespFail          = 0xF8
	RespKeyNotSet     = 0xFA // encryption required or the key was not negotiated
)

// Events of a note validator in a poll's answer, after RespOK. The ones marked "channel" carry one
// data byte, the note's channel (0: not known).
const (
	EvSlaveReset       = 0xF1
	EvReadNote         = 0xEF // channel: 0 while reading, then the note's channel in escrow
	EvCreditNote       = 0xEE // channel: the note passed the point of no return
	EvNoteRejecting    = 0xED
	EvNoteRejected     = 0xEC
	EvNoteStacking     = 0xCC
	EvNoteStacked      = 0xEB
	EvSafeJam          = 0xEA
	EvUnsafeJam        = 0xE9
	EvDisabled         = 0xE8
	EvFraudAttempt     = 0xE6 // channel
	EvStackerFull      = 0xE7
	EvClearedFromFront = 0xE1 // channel: at power-up, a note in the path was given back
	EvClearedToCashBox = 0xE2 // channel: at power-up, a note in the path went into the cash box
	EvCashBoxRemoved   = 0xE3
	EvCashBoxReplaced  = 0xE4
	EvNotePathOpen     = 0xE0
	EvChannelDisable   = 0xB5 // every channel inhibited: the unit takes nothing though enabled
	EvInitialising     = 0xB6
)

var eventNames = map[byte]string{
	EvSlaveReset: "slave reset", EvReadNote: "read note", EvCreditNote: "credit note",
	EvNoteRejecting: "note rejecting", EvNoteRejected: "note rejected", EvNoteStacking: "note stacking",
	EvNoteStacked: "note stacked", EvSafeJam: "safe jam", EvUnsafeJam: "unsafe jam",
	EvDisabled: "disabled", EvFraudAttempt: "fraud attempt", EvStackerFull: "stacker full",
	EvClearedFromFront: "note cleared from front", EvClearedToCashBox: "note cleared into cash box",
	EvCashBoxRemoved: "cash box removed", EvCashBoxReplaced: "cash box replaced",
	EvNotePathOpen: "note path open", EvChannelDisable: "channel disable", EvInitialising: "initialising",
}

// hasChannel: the events followed by one data byte.
func hasChannel(code byte) bool {
	switch code {
	case EvReadNote, EvCreditNote, EvFraudAttempt, EvClearedFromFront, EvClearedToCashBox:
		return true
	}
	return false
}

// NeedsAck reports the events a unit polled with POLL WITH ACK repeats until the host sends EVENT
// ACK: the ones that move money or settle a note (a guess from the public descriptions; see the
// package documentation).
func NeedsAck(code byte) bool {
	switch code {
	case EvCreditNote, EvClearedFromFront, EvClearedToCashBox, EvFraudAttempt:
		return true
	}
	return false
}

// Event is one event of a poll's answer.
type Event struct {
	Code    byte
	Channel byte // for the events that carry one
}

// Name is the event's name in the manufacturer's words.
func (e Event) Name() string {
	if n, ok := eventNames[e.Code]; ok {
		return n
	}
	return fmt.Sprintf("event %02X", e.Code)
}

// Bytes are the event as the unit sends it.
func (e Event) Bytes() []byte {
	if hasChannel(e.Code) {
		return []byte{e.Code, e.Channel}
	}
	return []byte{e.Code}
}

func (e Event) String() string {
	if hasChannel(e.Code) {
		return fmt.Sprintf("%s %d", e.Name(), e.Channel)
	}
	return e.Name()
}

// ErrUnknownEvent: a poll's answer holds an event this package does not know. Its length is then
// unknown, so the rest of the answer cannot be read: the answer is refused whole.
var ErrUnknownEvent = fmt.Errorf("essp: unknown event")

// ParseEvents reads the events of a poll's answer, the generic response byte removed.
func ParseEvents(b []byte) ([]Event, error) {
	var out []Event
	for i := 0; i < len(b); {
		c := b[i]
		if _, ok := eventNames[c]; !ok {
			return nil, fmt.Errorf("%w: %02X at byte %d of % X", ErrUnknownEvent, c, i, b)
		}
		e := Event{Code: c}
		i++
		if hasChannel(c) {
			if i >= len(b) {
				return nil, fmt.Errorf("%w: %s without its channel", ErrFrame, e.Name())
			}
			e.Channel = b[i]
			i++
		}
		out = append(out, e)
	}
	return out, nil
}

// AppendEvents encodes events as a unit sends them after RespOK.
func AppendEvents(dst []byte, evs ...Event) []byte {
	for _, e := range evs {
		dst = append(dst, e.Bytes()...)
	}
	return dst
}

// hexBytes is the unit's own bytes for Status.Code: "EF 02".
func hexBytes(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// respName names a generic response for errors.
func respName(r byte) string {
	switch r {
	case RespOK:
		return "OK"
	case RespUnknown:
		return "command not known"
	case RespWrongParams:
		return "wrong number of parameters"
	case RespOutOfRange:
		return "parameter out of range"
	case RespCannotProcess:
		return "command cannot be processed"
	case RespSoftwareError:
		return "software error"
	case RespFail:
		return "fail"
	case RespKeyNotSet:
		return "key not set"
	}
	return fmt.Sprintf("response %02X", r)
}

// Reject codes, the answer to LAST REJECT CODE, with the public hosts' names.
var rejectNames = map[byte]string{
	0x00: "note accepted", 0x01: "length fail", 0x02: "average fail", 0x03: "coastline fail",
	0x04: "graph fail", 0x05: "buried fail", 0x06: "channel inhibit", 0x07: "second note detected",
	0x08: "reject by host", 0x09: "cross channel detected", 0x0A: "rear sensor error",
	0x0B: "note too long", 0x0C: "disabled by host", 0x0D: "slow mech", 0x0E: "strim attempt",
	0x0F: "fraud channel", 0x10: "no notes detected", 0x11: "peak detect fail",
	0x12: "twisted note reject", 0x13: "escrow time-out", 0x14: "bar code scan fail",
}

// RejectName names a reject code.
func RejectName(code byte) string {
	if n, ok := rejectNames[code]; ok {
		return n
	}
	return fmt.Sprintf("reject code %02X", code)
}

// RejectKey is the reject code's key for the screens' words (validator.Status.Reason), in the
// words the kiosk already holds for the other family where they mean the same: a value it does not
// take, a note not recognised, a note to insert again. "" for the host's own refusals (by the host,
// disabled, escrow time-out): the kiosk knows why.
func RejectKey(code byte) string {
	switch code {
	case 0x06:
		return "inhibited_denomination"
	case 0x01, 0x0B:
		return "length_error"
	case 0x02, 0x03, 0x04, 0x05, 0x09, 0x0F, 0x11, 0x14:
		return "denomination_not_identified"
	case 0x07, 0x0E, 0x10, 0x12:
		return "insertion_error"
	case 0x0A, 0x0D:
		return "transport_error"
	case 0x00, 0x08, 0x0C, 0x13:
		return ""
	}
	return fmt.Sprintf("reject_%02x", code)
}
