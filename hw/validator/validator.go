// Package validator is the bill validator as the kiosk's cash-in sees it, whatever the unit's
// family: JCM's ID-003 (hw/id003) or Innovative Technology's SSP and eSSP (hw/essp). It holds a
// note's way through a unit, the calls a driver makes into the kiosk's money flow (Wallet), the
// events it reports and the view the screens read (Snapshot).
//
// The money rule every driver keeps (DESIGN.md §7): credit comes only from a note the unit reports
// irrevocably accepted, and exactly once, even when the kiosk dies between any two bytes. A driver
// calls Wallet.Escrow and has the intent durably recorded before it lets the unit stack, calls
// Wallet.Stacking before the stack command, and calls Wallet.Credit for the unit's report of a
// note stacked, acknowledging or moving on only once Credit has returned nil.
//
// This package must never import a family's package nor the rest of the project (hw's clock and
// back-off aside, in Settings): the kiosk's core learns from it nothing of the protocol but the
// unit's own status bytes, kept for the event log. The families are named in one place, the
// wiring of hw/validator/drivers.
package validator

import (
	"context"
	"fmt"
	"time"
)

// Family names a protocol family, as the configuration's `validator` key spells it.
type Family string

const (
	FamilyID003 Family = "id003" // JCM ID-003 (hw/id003)
	FamilyESSP  Family = "essp"  // Innovative Technology SSP / eSSP (hw/essp)
)

// Families lists the families the kiosk drives, in the configuration's spelling.
func Families() []Family { return []Family{FamilyID003, FamilyESSP} }

// Label is the family's name for people ("ID-003", "eSSP").
func (f Family) Label() string {
	switch f {
	case FamilyID003:
		return "ID-003"
	case FamilyESSP:
		return "eSSP"
	}
	return string(f)
}

// Note is a bank note on its way through the unit, as the driver tells the kiosk about it.
type Note struct {
	// Code is the unit's own code for the note's value: ID-003's escrow code, SSP's channel.
	Code  byte
	Cents int64 // its value from the unit's table; 0 when the code is not in the table
	// IntentID is what the kiosk's Escrow returned for this note; "" when this run of the driver
	// did not stack it (Recovered).
	IntentID string
	// Recovered: the unit reports a note stacked that this run of the driver did not stack: the
	// kiosk restarted while the note was on its way, and must resolve it from its own intent log
	// (see Wallet). Code is then 0 when the unit's report carried no code.
	Recovered bool
	// StackSent: this run of the driver sent the stack command for the note and the unit did not
	// refuse it, so the note may be in the cash box (PowerUp).
	StackSent bool
	// Previous is, at Escrow, the intent the kiosk gave this very note in an earlier serial
	// session: the line was lost while the note waited in escrow and the unit still holds it
	// there, so that the stack command (if one was sent) was never carried out. The kiosk decides
	// again.
	Previous string
}

func (n Note) String() string {
	s := fmt.Sprintf("note 0x%02X (%d cents)", n.Code, n.Cents)
	if n.IntentID != "" {
		s += " intent " + n.IntentID
	}
	if n.Recovered {
		s += " recovered"
	}
	if n.Previous != "" {
		s += " previous intent " + n.Previous
	}
	return s
}

// Place is where a note was when the unit lost power with it in its path.
type Place int

const (
	InAcceptor Place = iota + 1 // before the point of no return: the unit gives it back, or stacks it by its own rule
	InStacker                   // past it: the unit stacks it at its reset
)

func (p Place) String() string {
	switch p {
	case InAcceptor:
		return "in the acceptor"
	case InStacker:
		return "in the stacker"
	}
	return fmt.Sprintf("Place(%d)", int(p))
}

// Wallet is what a driver needs of the kiosk's money flow. The driver calls it from its own
// goroutine, one call at a time, and holds the unit meanwhile, so calls should return within a few
// seconds: a unit gives back a note left in escrow after some seconds (about 10 s for ID-003; SSP
// units as long as the host keeps sending its hold). ctx is cancelled when the driver is closed;
// Close waits for a call in progress to return.
type Wallet interface {
	// Escrow is called when a note of a value the kiosk takes waits in escrow. To take it, the
	// kiosk durably records an intent (this note, this value) and returns accept=true and the
	// intent's id; the driver lets the unit stack only after Escrow has returned, so every credit
	// report the driver will ever see is preceded by a durable intent. accept=false or an error
	// returns the note to the player (e.g. the credit would exceed the kiosk's maximum).
	//
	// A note reported stacked is acknowledged (or, for a family without acknowledgement, credited)
	// before the unit can take another note; so when Escrow is called while an earlier intent is
	// still open, that earlier note never reached the credit point: its intent is void if the
	// stack command was never sent for it (or n.Previous names it), and held for staff if it was
	// (the note may have been stacked unseen, e.g. a jam cleared while the kiosk was down).
	Escrow(ctx context.Context, n Note) (accept bool, intentID string, err error)

	// Stacking is called after Escrow accepted a note and before the stack command is sent: the
	// kiosk durably records that its intent is being stacked, so that a kiosk restarted after a
	// power cut knows the note may be in the cash box. An error returns the note instead.
	Stacking(ctx context.Context, n Note) error

	// PowerUp is called when the unit reports it lost power with a note in its path (at), before
	// the driver resets or enables it: a note in the stacker is stacked; a note in the acceptor is
	// returned, or stacked if the unit's own rule says it went too far. n is the note this run of
	// the driver knows (IntentID, StackSent), or a Recovered note with no code when the kiosk
	// restarted. The kiosk resolves its open intent by a stated policy (credit it, hold it for
	// staff, void it) durably, and returns nil: only then does the driver go on. An error leaves
	// the unit waiting; PowerUp is asked again.
	PowerUp(ctx context.Context, at Place, n Note) error

	// Credit is called when the unit reports the note irrevocably accepted (the credit point of
	// the regulation's money rule). The kiosk credits n in one durable transaction that also
	// resolves the intent, and returns nil only once that is committed. An error leaves the report
	// unacknowledged where the protocol has an acknowledgement (the unit repeats it), and is
	// retried by the driver otherwise.
	//
	// Credit must be idempotent on the intent. It is called again for a note already credited
	// when the kiosk died after the commit and before the acknowledgement: then n.Recovered is true
	// and n.IntentID is "". The resolution, exact because of the Escrow rule above: if an intent is
	// pending, credit it (n.Cents should equal its value; a difference is an anomaly for staff);
	// otherwise, if the latest intent is credited, credit nothing and return nil.
	Credit(ctx context.Context, n Note) error
}

// Driver is what the kiosk needs of a bill validator's driver, whatever its family.
type Driver interface {
	Start() error
	Close() error
	SetAccepting(bool)
	// Reset asks the driver to reset the unit at its next safe moment (never with a note on its
	// way to the credit point).
	Reset()
	Snapshot() Snapshot
}

// Identity is what the unit says of itself.
type Identity struct {
	Family  Family
	Model   string // the unit's type or model ("NV9", "iVIZION"…), "" when it does not say
	Serial  string // its serial number, "" when the protocol or the unit does not give one
	Version string // its firmware's identification as the unit reports it
}

func (id Identity) String() string {
	s := id.Family.Label()
	for _, p := range []string{id.Model, id.Version} {
		if p != "" {
			s += " " + p
		}
	}
	if id.Serial != "" {
		s += " n° " + id.Serial
	}
	return s
}

// Snapshot is the driver's view of the unit for screens and diagnostics.
type Snapshot struct {
	Identity    Identity
	Connected   bool
	Status      Status
	Accepting   bool  // what the kiosk asked for (SetAccepting)
	ConfigError error // non-nil: the unit is kept inhibited
	Polls       uint64
	Retries     uint64
}

// EventKind says what an Event reports.
type EventKind int

const (
	EventConnected     EventKind = iota + 1 // the unit answered on a newly opened port
	EventDisconnected                       // the line was lost or the device is absent (Err); re-opening with back-off
	EventState                              // the unit's status changed (Status holds its own bytes)
	EventConfigured                         // settings sent after a connect or reset (Detail: version)
	EventConfigError                        // the unit's configuration differs from the kiosk's: it stays inhibited (Err)
	EventEscrow                             // a note waited in escrow and was stacked (Accepted) or returned
	EventCredited                           // Credit returned nil and the unit was told
	EventCreditFailed                       // Credit returned Err; the report stays unacknowledged
	EventAckRepeated                        // the credit report again for a note already credited: acknowledged again, nothing credited
	EventNoteReturned                       // a note the kiosk accepted came back or was rejected: its intent is void
	EventLineError                          // a command had to be retried: no answer, bad frame, the unit could not read it
	EventAnomaly                            // something the protocol should not do (Detail); logged for staff
	EventNoteUncertain                      // a note sent to stack left the path without a credit report (a jam cleared): it may be in the cash box; its intent is held for staff
	EventCalled                             // the unit called the host of its own (an interrupt mode), in a form not seen before on this line (Detail: which)
)

var eventNames = map[EventKind]string{
	EventConnected: "connected", EventDisconnected: "disconnected", EventState: "state",
	EventConfigured: "configured", EventConfigError: "config error", EventEscrow: "escrow",
	EventCredited: "credited", EventCreditFailed: "credit failed", EventAckRepeated: "ack repeated",
	EventNoteReturned: "note returned", EventLineError: "line error", EventAnomaly: "anomaly",
	EventNoteUncertain: "note uncertain", EventCalled: "called",
}

func (k EventKind) String() string {
	if n, ok := eventNames[k]; ok {
		return n
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Code is the kind in the event log's spelling ("config_error").
func (k EventKind) Code() string {
	n, ok := eventNames[k]
	if !ok {
		return "event"
	}
	b := []byte(n)
	for i, c := range b {
		if c == ' ' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Event is one thing the kiosk writes to its event log. Status is the unit's latest status.
type Event struct {
	Time     time.Time
	Kind     EventKind
	Status   Status
	Note     Note
	Accepted bool
	Err      error
	Detail   string
}

func (e Event) String() string {
	s := e.Kind.String()
	if e.Status.State != StateUnknown || e.Status.Code != "" {
		s += " " + e.Status.String()
	}
	if e.Note.Code != 0 {
		s += " " + e.Note.String()
	}
	if e.Kind == EventEscrow {
		s += fmt.Sprintf(" accepted=%v", e.Accepted)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}
