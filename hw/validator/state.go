package validator

import (
	"fmt"
	"strings"
)

// State is the unit's state in the words both families share. A family's own states are mapped
// onto these by its driver; the unit's own bytes travel beside, in Status.Code.
type State int

const (
	StateUnknown    State = iota
	StateIdle             // enabled, waiting for a note
	StateAccepting        // reading a note
	StateEscrow           // a note held, waiting for the host's decision
	StateStacking         // moving the note to the cash box
	StateVendValid        // the note is past the point of no return: the credit point
	StateStacked          // the note is in the cash box
	StateRejecting        // giving a note back that it did not take (Status.Reason says why)
	StateReturning        // giving back a note the host refused
	StateHolding          // keeping the note in escrow at the host's request
	StateDisabled         // inhibited by the host
	StateInitialize       // starting, after a reset
	StatePowerUp          // power came back; the unit waits for the host
	StatePowerUpBillInAcceptor
	StatePowerUpBillInStacker
	StateStackerFull
	StateStackerOpen
	StateJamInAcceptor
	StateJamInStacker
	StatePause // a second note pushed while one is being taken
	StateCheated
	StateFailure
	StateCommunicationError // the unit could not read the host's last frame
)

var stateNames = map[State]string{
	StateIdle: "idle", StateAccepting: "accepting", StateEscrow: "escrow", StateStacking: "stacking",
	StateVendValid: "vend valid", StateStacked: "stacked", StateRejecting: "rejecting",
	StateReturning: "returning", StateHolding: "holding", StateDisabled: "disabled",
	StateInitialize: "initialize", StatePowerUp: "power up",
	StatePowerUpBillInAcceptor: "power up with bill in acceptor",
	StatePowerUpBillInStacker:  "power up with bill in stacker",
	StateStackerFull:           "stacker full", StateStackerOpen: "stacker open",
	StateJamInAcceptor: "jam in acceptor", StateJamInStacker: "jam in stacker", StatePause: "pause",
	StateCheated: "cheated", StateFailure: "failure", StateCommunicationError: "communication error",
}

func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	if s == StateUnknown {
		return "unknown"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Key is the state's code for the screens, which hold its words ("jam_in_acceptor"; "unknown" for
// StateUnknown).
func (s State) Key() string {
	if n, ok := stateNames[s]; ok {
		return strings.ReplaceAll(n, " ", "_")
	}
	return "unknown"
}

// States lists every known state, in their order.
func States() []State {
	out := make([]State, 0, len(stateNames))
	for s := StateIdle; s <= StateCommunicationError; s++ {
		out = append(out, s)
	}
	return out
}

// Fault reports whether the state keeps the unit from taking notes until something is done
// (staff, a reset, the cash box put back).
func (s State) Fault() bool {
	switch s {
	case StateStackerFull, StateStackerOpen, StateJamInAcceptor, StateJamInStacker,
		StateCheated, StateFailure, StatePause:
		return true
	}
	return false
}

// PowerUp reports the three power-up states, after which the unit waits for the host.
func (s State) PowerUp() bool {
	return s == StatePowerUp || s == StatePowerUpBillInAcceptor || s == StatePowerUpBillInStacker
}

// AtRest reports the states with no note in the unit's path and nothing pending: idle or disabled.
func (s State) AtRest() bool { return s == StateIdle || s == StateDisabled }

// Status is the unit's latest status: its state in shared words, and the unit's own bytes for the
// event log.
type Status struct {
	State State
	// Code is the status as the unit sent it, in hex ("13 63" for an ID-003 ESCROW of code 0x63,
	// "EF 02" for an SSP read note on channel 2).
	Code string
	// Reason is, for StateRejecting, the reason's key for the screens' words ("inhibited_denomination");
	// for StateFailure, the failure's; "" when the unit gave none.
	Reason string
	// Text is the unit's own name for the status when it says more than State ("unsafe jam"); "" if not.
	Text string
}

// DeviceCode is the status as the unit sent it (Code), for the event log.
func (s Status) DeviceCode() string { return s.Code }

func (s Status) String() string {
	out := s.State.String()
	if s.Text != "" && s.Text != out {
		out += " (" + s.Text + ")"
	}
	if s.Reason != "" {
		out += " (" + strings.ReplaceAll(s.Reason, "_", " ") + ")"
	}
	if s.Code != "" {
		out += " [" + s.Code + "]"
	}
	return out
}
