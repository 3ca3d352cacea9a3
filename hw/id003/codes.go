package id003

import (
	"fmt"
	"sort"
	"strings"
)

// Line setting of every ID-003 unit: 9600 baud, 8 data bits, even parity, 1 stop bit.
const (
	BaudRate = 9600
	DataBits = 8
	StopBits = 1
)

// Frame layout: SYNC LNG CMD DATA... CRCL CRCH, LNG counting every byte of the frame.
const (
	Sync        byte = 0xFC
	MinFrameLen      = 5   // SYNC LNG CMD CRC CRC
	MaxFrameLen      = 255 // LNG is one byte
	MaxDataLen       = MaxFrameLen - MinFrameLen
)

// Commands from the host.
const (
	CmdStatusRequest byte = 0x11
	CmdAck           byte = 0x50 // the host's ACK of VEND VALID; the unit does not answer it

	// Operation commands; the unit answers ACK (0x50) or INVALID COMMAND (0x4B).
	CmdReset  byte = 0x40
	CmdStack1 byte = 0x41 // VEND VALID once the note passes the stacker's point of no return
	CmdStack2 byte = 0x42 // like Stack1; on some firmware VEND VALID comes later (uncertain)
	CmdReturn byte = 0x43
	CmdHold   byte = 0x44 // keep the note in escrow (restarts the unit's escrow timer)
	CmdWait   byte = 0x45 // uncertain: documented as a hold variant; the simulator treats it as Hold

	// Setting commands; the unit echoes the command and its data.
	CmdSetEnable      byte = 0xC0 // 2 bytes: bit set = denomination inhibited (bit 0 = code 0x61)
	CmdSetSecurity    byte = 0xC1 // 2 bytes: bit set = high security for that denomination
	CmdSetCommMode    byte = 0xC2 // 1 byte: CommPolling, CommInterrupt1 or CommInterrupt2
	CmdSetInhibit     byte = 0xC3 // 1 byte: 0x00 accept notes, 0x01 inhibit the acceptor
	CmdSetDirection   byte = 0xC4 // 1 byte: bit set = insertion direction A/B/C/D refused
	CmdSetOptionalFun byte = 0xC5 // 2 bytes, unit specific

	// Setting status requests; the unit answers the command with the current setting.
	CmdGetEnable      byte = 0x80
	CmdGetSecurity    byte = 0x81
	CmdGetCommMode    byte = 0x82
	CmdGetInhibit     byte = 0x83
	CmdGetDirection   byte = 0x84
	CmdGetOptionalFun byte = 0x85

	CmdGetVersion     byte = 0x88 // answer: 0x88 + ASCII identification
	CmdGetBootVersion byte = 0x89 // answer: 0x89 + ASCII
	CmdGetCurrency    byte = 0x8A // answer: 0x8A + 4-byte blocks {code, country, base, exponent}
)

// Communication modes, the data of SET COMM MODE (0xC2).
const (
	CommPolling    byte = 0x00 // the unit speaks only when asked (the default after power up)
	CommInterrupt1 byte = 0x01 // the unit also sends ENQ whenever its status changes; the host then polls
	CommInterrupt2 byte = 0x02 // the unit sends ENQ only when it needs the host (which statuses: uncertain)
)

// ENQ is the byte by which a unit in an interrupt mode asks to be polled. Units send it in one of
// two forms (ENQForm), and a host must take both.
const ENQ byte = 0x05

// ENQForm is how a unit in an interrupt mode sends its ENQ.
type ENQForm int

const (
	// ENQFramed: a frame of its own, FC 05 05 and its CRC (SYNC, LNG = 5, CMD = ENQ, no data). The
	// field-proven open-source hosts checked parse ENQ only this way, as a reply whose command
	// byte is 05 (they drop any byte before a SYNC): what the units they drive send. The default.
	ENQFramed ENQForm = iota
	// ENQByte: the single byte 05 outside any frame, as some public descriptions of the protocol
	// have it (uncertain: no field-proven host was found that reads it).
	ENQByte
)

func (f ENQForm) String() string {
	switch f {
	case ENQFramed:
		return "framed ENQ (FC 05 05 + CRC)"
	case ENQByte:
		return "single-byte ENQ (05 outside a frame)"
	}
	return fmt.Sprintf("ENQForm(%d)", int(f))
}

// Bytes is the ENQ as a unit sends it in this form.
func (f ENQForm) Bytes() []byte {
	if f == ENQByte {
		return []byte{ENQ}
	}
	return MustEncode(ENQ)
}

// IsENQ reports whether a frame is a framed ENQ (FC 05 05 + CRC): no status, no answer, only the
// unit's call to be polled.
func IsENQ(f Frame) bool { return f.Cmd == ENQ && len(f.Data) == 0 }

// Replies that are not statuses.
const (
	RespAck            byte = 0x50
	RespInvalidCommand byte = 0x4B
)

// State is the unit's state as reported by its status byte.
type State int

const (
	StateUnknown State = iota
	StateIdle
	StateAccepting
	StateEscrow
	StateStacking
	StateVendValid
	StateStacked
	StateRejecting
	StateReturning
	StateHolding
	StateDisabled
	StateInitialize
	StatePowerUp
	StatePowerUpBillInAcceptor
	StatePowerUpBillInStacker
	StateStackerFull
	StateStackerOpen
	StateJamInAcceptor
	StateJamInStacker
	StatePause
	StateCheated
	StateFailure
	StateCommunicationError
	StateInvalidCommand
)

// Status bytes the unit sends in answer to a status request.
const (
	StatusIdle                  byte = 0x11 // "enable (idling)"
	StatusAccepting             byte = 0x12
	StatusEscrow                byte = 0x13 // + denomination code
	StatusStacking              byte = 0x14
	StatusVendValid             byte = 0x15 // + denomination code on the units observed; repeated until ACK
	StatusStacked               byte = 0x16
	StatusRejecting             byte = 0x17 // + reject reason
	StatusReturning             byte = 0x18
	StatusHolding               byte = 0x19
	StatusDisabled              byte = 0x1A // "disable (inhibit)"
	StatusInitialize            byte = 0x1B
	StatusPowerUp               byte = 0x40
	StatusPowerUpBillInAcceptor byte = 0x41
	StatusPowerUpBillInStacker  byte = 0x42
	StatusStackerFull           byte = 0x43
	StatusStackerOpen           byte = 0x44
	StatusJamInAcceptor         byte = 0x45
	StatusJamInStacker          byte = 0x46
	StatusPause                 byte = 0x47
	StatusCheated               byte = 0x48
	StatusFailure               byte = 0x49 // + failure code
	StatusCommunicationError    byte = 0x4A // the unit received a frame it could not read (bad CRC)
	StatusInvalidCommand        byte = 0x4B
)

type stateInfo struct {
	code    byte
	name    string // English, for logs; Key is it in snake case
	minData int
	maxData int
}

var states = map[State]stateInfo{
	StateIdle:                  {StatusIdle, "idle", 0, 0},
	StateAccepting:             {StatusAccepting, "accepting", 0, 0},
	StateEscrow:                {StatusEscrow, "escrow", 1, MaxDataLen},
	StateStacking:              {StatusStacking, "stacking", 0, 0},
	StateVendValid:             {StatusVendValid, "vend valid", 0, 1},
	StateStacked:               {StatusStacked, "stacked", 0, 0},
	StateRejecting:             {StatusRejecting, "rejecting", 0, 1},
	StateReturning:             {StatusReturning, "returning", 0, 0},
	StateHolding:               {StatusHolding, "holding", 0, 0},
	StateDisabled:              {StatusDisabled, "disabled", 0, 0},
	StateInitialize:            {StatusInitialize, "initialize", 0, 0},
	StatePowerUp:               {StatusPowerUp, "power up", 0, 0},
	StatePowerUpBillInAcceptor: {StatusPowerUpBillInAcceptor, "power up with bill in acceptor", 0, 0},
	StatePowerUpBillInStacker:  {StatusPowerUpBillInStacker, "power up with bill in stacker", 0, 0},
	StateStackerFull:           {StatusStackerFull, "stacker full", 0, 0},
	StateStackerOpen:           {StatusStackerOpen, "stacker open", 0, 0},
	StateJamInAcceptor:         {StatusJamInAcceptor, "jam in acceptor", 0, 0},
	StateJamInStacker:          {StatusJamInStacker, "jam in stacker", 0, 0},
	StatePause:                 {StatusPause, "pause", 0, 0},
	StateCheated:               {StatusCheated, "cheated", 0, 0},
	StateFailure:               {StatusFailure, "failure", 0, 1},
	StateCommunicationError:    {StatusCommunicationError, "communication error", 0, 0},
	StateInvalidCommand:        {StatusInvalidCommand, "invalid command", 0, 0},
}

var stateByCode = func() map[byte]State {
	m := make(map[byte]State, len(states))
	for s, info := range states {
		m[info.code] = s
	}
	return m
}()

// StateOf returns the state a status byte reports, or StateUnknown.
func StateOf(code byte) State { return stateByCode[code] }

// Code is the status byte of the state (0 for StateUnknown).
func (s State) Code() byte { return states[s].code }

func (s State) String() string {
	if info, ok := states[s]; ok {
		return info.name
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Key is the state's code for the screens, which hold its words
// ("jam_in_acceptor"; "unknown" for StateUnknown).
func (s State) Key() string {
	if info, ok := states[s]; ok {
		return strings.ReplaceAll(info.name, " ", "_")
	}
	return "unknown"
}

// States lists every state the unit reports, in the order of their status
// bytes.
func States() []State {
	out := make([]State, 0, len(states))
	for s := range states {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return states[out[i]].code < states[out[j]].code })
	return out
}

// Fault reports whether the state keeps the unit from taking notes until something is done
// (staff, a reset, the stacker put back).
func (s State) Fault() bool {
	switch s {
	case StateStackerFull, StateStackerOpen, StateJamInAcceptor, StateJamInStacker,
		StateCheated, StateFailure, StatePause:
		return true
	}
	return false
}

// PowerUp reports the three power-up states, after which the unit waits for a RESET.
func (s State) PowerUp() bool {
	return s == StatePowerUp || s == StatePowerUpBillInAcceptor || s == StatePowerUpBillInStacker
}

// RejectReason is the byte after REJECTING (0x17).
type RejectReason byte

// Reject reasons. The names follow the public host implementations checked; 0x7A and 0x7F are
// not named by any of them (uncertain) and print as their code.
const (
	RejectInsertion       RejectReason = 0x71 // note inserted askew or pulled back
	RejectMagnetic        RejectReason = 0x72
	RejectRemainingInHead RejectReason = 0x73 // a sensor saw something at the wrong moment
	RejectCompensation    RejectReason = 0x74 // data amplitude / multiplying factor error
	RejectTransport       RejectReason = 0x75 // conveying (feed) error
	RejectIdentification  RejectReason = 0x76 // denomination could not be assessed
	RejectPhotoPattern    RejectReason = 0x77
	RejectPhotoLevel      RejectReason = 0x78
	RejectInhibited       RejectReason = 0x79 // inhibited denomination (or escrow timeout, observed)
	RejectOperation       RejectReason = 0x7B
	RejectReturnAction    RejectReason = 0x7C // returned from the transport (e.g. second note)
	RejectLength          RejectReason = 0x7D
	RejectColorPattern    RejectReason = 0x7E
)

var rejectNames = map[RejectReason]string{
	RejectInsertion:       "insertion error",
	RejectMagnetic:        "magnetic pattern error",
	RejectRemainingInHead: "bill remaining in head",
	RejectCompensation:    "compensation error",
	RejectTransport:       "transport error",
	RejectIdentification:  "denomination not identified",
	RejectPhotoPattern:    "photo pattern error",
	RejectPhotoLevel:      "photo level error",
	RejectInhibited:       "inhibited denomination",
	RejectOperation:       "operation error",
	RejectReturnAction:    "returned from transport",
	RejectLength:          "length error",
	RejectColorPattern:    "color pattern error",
}

func (r RejectReason) String() string {
	if n, ok := rejectNames[r]; ok {
		return n
	}
	return fmt.Sprintf("reject reason 0x%02X", byte(r))
}

// Key is the reason's code for the screens, which hold its words
// ("photo_pattern_error"; "reject_7a" for a reason not named).
func (r RejectReason) Key() string {
	if n, ok := rejectNames[r]; ok {
		return strings.ReplaceAll(n, " ", "_")
	}
	return fmt.Sprintf("reject_%02x", byte(r))
}

// RejectReasons lists the named reject reasons, in the order of their
// bytes.
func RejectReasons() []RejectReason {
	out := make([]RejectReason, 0, len(rejectNames))
	for r := range rejectNames {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// FailureCode is the byte after FAILURE (0x49).
type FailureCode byte

var failureNames = map[FailureCode]string{
	0xA2: "stack motor failure",
	0xA5: "transport motor speed failure",
	0xA6: "transport motor failure",
	0xA7: "aligning motor failure",
	0xAB: "cash box not ready",
	0xAC: "optical sensor failure",
	0xAD: "magnetic sensor failure",
	0xAF: "validator head removed",
	0xB0: "boot ROM failure",
	0xB1: "external ROM failure",
	0xB2: "ROM failure",
	0xB3: "external ROM writing failure",
}

func (f FailureCode) String() string {
	if n, ok := failureNames[f]; ok {
		return n
	}
	return fmt.Sprintf("failure 0x%02X", byte(f))
}
