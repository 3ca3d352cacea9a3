package id003

import (
	"context"
	"fmt"
	"strings"
	"time"

	"pharaon/hw"
	"pharaon/hw/validator"
)

// Driver is a Host as the kiosk's cash-in sees any bill validator (validator.Driver): the kiosk's
// wallet, the events, the statuses and the snapshot in the words both families share, the unit's
// own bytes kept beside them for the event log. It adds nothing to the money rule: the Host keeps
// it, and the Driver only translates.
type Driver struct {
	h *Host
}

var _ validator.Driver = (*Driver)(nil)

// NewDriver builds a Host that opens its device with dial, calls w for the money and reports every
// event to onEvent (nil: none), in validator's words. cfg.OnEvent is replaced.
func NewDriver(dial hw.Dial, w validator.Wallet, cfg Config, onEvent func(validator.Event)) (*Driver, error) {
	if w == nil {
		return nil, fmt.Errorf("id003: new driver: a wallet is required")
	}
	cfg.OnEvent = nil
	if onEvent != nil {
		cfg.OnEvent = func(e Event) { onEvent(ValidatorEvent(e)) }
	}
	h, err := New(dial, walletAdapter{w}, cfg)
	if err != nil {
		return nil, err
	}
	return &Driver{h: h}, nil
}

// Host is the ID-003 host the driver translates for (its tests, its simulator's checks).
func (d *Driver) Host() *Host { return d.h }

func (d *Driver) Start() error                 { return d.h.Start() }
func (d *Driver) Close() error                 { return d.h.Close() }
func (d *Driver) SetAccepting(on bool)         { d.h.SetAccepting(on) }
func (d *Driver) Reset()                       { d.h.Reset() }
func (d *Driver) Snapshot() validator.Snapshot { return ValidatorSnapshot(d.h.Snapshot()) }

// walletAdapter is the kiosk's validator.Wallet as the Host calls it.
type walletAdapter struct{ w validator.Wallet }

func (a walletAdapter) Escrow(ctx context.Context, n Note) (bool, string, error) {
	return a.w.Escrow(ctx, n)
}

func (a walletAdapter) Stacking(ctx context.Context, n Note) error {
	return a.w.Stacking(ctx, n)
}

func (a walletAdapter) Credit(ctx context.Context, n Note) error {
	return a.w.Credit(ctx, n)
}

// PowerUp tells the kiosk where the note was. The Host calls it only for the two power-up states
// with a note; any other would be a bug of the Host, and an error keeps the unit waiting rather
// than letting it settle a note the kiosk did not decide on.
func (a walletAdapter) PowerUp(ctx context.Context, st State, n Note) error {
	p, ok := PowerUpPlace(st)
	if !ok {
		return fmt.Errorf("id003: power up in state %s: no note's place", st)
	}
	return a.w.PowerUp(ctx, p, n)
}

// PowerUpPlace is where the note of a power-up state with a note is.
func PowerUpPlace(st State) (validator.Place, bool) {
	switch st {
	case StatePowerUpBillInAcceptor:
		return validator.InAcceptor, true
	case StatePowerUpBillInStacker:
		return validator.InStacker, true
	}
	return 0, false
}

// validatorStates maps every state the unit reports; StateInvalidCommand is an answer, never a
// status (ParseStatus refuses it), and maps to StateUnknown.
var validatorStates = map[State]validator.State{
	StateIdle:                  validator.StateIdle,
	StateAccepting:             validator.StateAccepting,
	StateEscrow:                validator.StateEscrow,
	StateStacking:              validator.StateStacking,
	StateVendValid:             validator.StateVendValid,
	StateStacked:               validator.StateStacked,
	StateRejecting:             validator.StateRejecting,
	StateReturning:             validator.StateReturning,
	StateHolding:               validator.StateHolding,
	StateDisabled:              validator.StateDisabled,
	StateInitialize:            validator.StateInitialize,
	StatePowerUp:               validator.StatePowerUp,
	StatePowerUpBillInAcceptor: validator.StatePowerUpBillInAcceptor,
	StatePowerUpBillInStacker:  validator.StatePowerUpBillInStacker,
	StateStackerFull:           validator.StateStackerFull,
	StateStackerOpen:           validator.StateStackerOpen,
	StateJamInAcceptor:         validator.StateJamInAcceptor,
	StateJamInStacker:          validator.StateJamInStacker,
	StatePause:                 validator.StatePause,
	StateCheated:               validator.StateCheated,
	StateFailure:               validator.StateFailure,
	StateCommunicationError:    validator.StateCommunicationError,
}

// ValidatorState is the state in the words both families share (StateUnknown for a state the
// unit never reports as its status).
func ValidatorState(s State) validator.State { return validatorStates[s] }

// ValidatorStatus is the status in the words both families share: its state, the unit's bytes as
// DeviceCode gives them ("17 77"), the reject or failure reason's key for the screens' words
// (RejectReason.Key, so that the words keyed by it still match).
func ValidatorStatus(s Status) validator.Status {
	if s.Code == 0 {
		return validator.Status{}
	}
	out := validator.Status{State: ValidatorState(s.State), Code: s.DeviceCode()}
	if len(s.Data) > 0 {
		switch s.State {
		case StateRejecting:
			out.Reason = s.Reason().Key()
		case StateFailure:
			out.Reason = failureKey(s.Failure())
		}
	}
	return out
}

// failureKey is the failure's code for the screens and the log ("stack_motor_failure";
// "failure_a9" for a code not named).
func failureKey(f FailureCode) string {
	if n, ok := failureNames[f]; ok {
		return strings.ReplaceAll(n, " ", "_")
	}
	return fmt.Sprintf("failure_%02x", byte(f))
}

var validatorEvents = map[EventKind]validator.EventKind{
	EventConnected:     validator.EventConnected,
	EventDisconnected:  validator.EventDisconnected,
	EventState:         validator.EventState,
	EventConfigured:    validator.EventConfigured,
	EventConfigError:   validator.EventConfigError,
	EventEscrow:        validator.EventEscrow,
	EventCredited:      validator.EventCredited,
	EventCreditFailed:  validator.EventCreditFailed,
	EventAckRepeated:   validator.EventAckRepeated,
	EventNoteReturned:  validator.EventNoteReturned,
	EventLineError:     validator.EventLineError,
	EventAnomaly:       validator.EventAnomaly,
	EventNoteUncertain: validator.EventNoteUncertain,
	EventCalled:        validator.EventCalled,
}

// ValidatorEvent is the event in the words both families share.
func ValidatorEvent(e Event) validator.Event {
	k, ok := validatorEvents[e.Kind]
	if !ok {
		// Never from this package's Host; kept visible rather than dropped.
		k = validator.EventAnomaly
		e.Detail = strings.TrimPrefix(e.Detail+fmt.Sprintf(" (ID-003 event %d)", int(e.Kind)), " ")
	}
	return validator.Event{Time: e.Time, Kind: k, Status: ValidatorStatus(e.Status), Note: e.Note,
		Accepted: e.Accepted, Err: e.Err, Detail: e.Detail}
}

// ValidatorSnapshot is the snapshot in the words both families share. ID-003 gives neither the
// unit's model nor its serial number as such: the version string (GET VERSION) is all it says of
// itself, and is kept whole.
func ValidatorSnapshot(s Snapshot) validator.Snapshot {
	return validator.Snapshot{
		Identity:  identity(s.Version),
		Connected: s.Connected, Status: ValidatorStatus(s.Status), Accepting: s.Accepting,
		ConfigError: s.ConfigError, Polls: s.Polls, Retries: s.Retries,
	}
}

func identity(version string) validator.Identity {
	return validator.Identity{Family: validator.FamilyID003, Version: version}
}

// Probe is the boot self-test's look at a unit on an open port (set to Mode): one STATUS REQUEST,
// then GET VERSION for what the unit says it is. Neither changes anything in the unit: a note it
// holds stays for its host's first poll. Each answer is awaited cfg.ReplyTimeout (250 ms by
// default), within ctx's deadline. The status must come; a unit that does not say its version is
// reported with none.
func Probe(ctx context.Context, port hw.Port, cfg Config) (validator.Identity, validator.Status, error) {
	reply := cfg.ReplyTimeout
	if reply <= 0 {
		reply = 250 * time.Millisecond
	}
	f, err := probeAsk(ctx, port, CmdStatusRequest, reply)
	if err != nil {
		return validator.Identity{}, validator.Status{}, err
	}
	st, err := ParseStatus(f)
	if err != nil {
		return validator.Identity{}, validator.Status{}, err
	}
	id := identity("")
	if v, err := probeAsk(ctx, port, CmdGetVersion, reply); err == nil && v.Cmd == CmdGetVersion {
		id.Version = strings.TrimSpace(string(v.Data))
	}
	return id, ValidatorStatus(st), nil
}

// probeAsk sends one command and reads its answer (within reply, and ctx's deadline).
func probeAsk(ctx context.Context, port hw.Port, cmd byte, reply time.Duration) (Frame, error) {
	if err := ctx.Err(); err != nil {
		return Frame{}, err
	}
	if d, ok := ctx.Deadline(); ok {
		reply = min(reply, max(time.Until(d), time.Millisecond))
	}
	if err := port.SetReadTimeout(reply); err != nil {
		return Frame{}, err
	}
	if err := port.ResetInputBuffer(); err != nil {
		return Frame{}, err
	}
	frame, err := Encode(cmd)
	if err != nil {
		return Frame{}, err
	}
	if _, err := port.Write(frame); err != nil {
		return Frame{}, err
	}
	var dec Decoder
	buf := make([]byte, 64)
	for total := 0; ; {
		n, err := port.Read(buf)
		if err != nil {
			return Frame{}, err
		}
		if n == 0 {
			if total > 0 {
				return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a valid frame within %v", total, reply)
			}
			return Frame{}, hw.Errorf(hw.ErrTimeout, "read", "no answer within %v", reply)
		}
		total += n
		dec.Feed(buf[:n])
		if f, ok := dec.Next(); ok {
			if f.Cmd == StatusCommunicationError {
				// The unit did not understand the request: the caller asks again.
				return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "the unit reported COMMUNICATION ERROR")
			}
			return f, nil
		}
		if total > maxNoise {
			return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a frame", total)
		}
	}
}
