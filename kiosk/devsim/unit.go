package devsim

import (
	"errors"
	"fmt"

	"pharaon/hw/essp"
	"pharaon/hw/id003"
	"pharaon/hw/sim/esspsim"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/validator"
)

// Unit is the simulated bill validator, whatever its family: what the
// development panel, the tests and the fault harness do to it, and the
// cash box's truth they check the kiosk against.
type Unit interface {
	Family() validator.Family
	InsertNote(cents int64) error
	InsertCounterfeit() error
	Unplug() error
	Replug() error
	PowerCycle()
	// Counts is what the unit did: the notes in its cash box, their values
	// in order, the credit reports it raised and those the host
	// acknowledged.
	Counts() UnitCounts
	// Stacking: a note is on its way into the cash box, past escrow and
	// not yet through (its credit report maybe raised, not acknowledged).
	Stacking() bool
	// AtRest: no note in its path.
	AtRest() bool
	// LineFaults names the faults the unit's line can suffer (bad CRC,
	// noise, split or merged answers, silence, a lost acknowledgement);
	// InjectLine applies one to its next n answers.
	LineFaults() []string
	InjectLine(fault string, n int) error
	// Refusal code of an insertion's error ("" when not one the panel names).
	refusal(err error) RefusalCode
	cause(f Fault) error
	repair()
	Close() error
}

// UnitCounts is a unit's truth, in both families' words.
type UnitCounts struct {
	Stacked    int     // notes in the cash box
	StackedSum int64   // their value, cents
	Values     []int64 // each stacked note's value, in order
	Returned   int     // notes given back
	Reported   int     // credit reports raised (ID-003's VEND VALID, eSSP's CREDIT NOTE)
	Acked      int     // credit reports the host acknowledged
}

// id003Unit is the ID-003 simulator as a Unit.
type id003Unit struct{ *id003sim.Sim }

func (id003Unit) Family() validator.Family { return validator.FamilyID003 }

func (u id003Unit) InsertCounterfeit() error {
	return u.Sim.InsertCounterfeit(id003.RejectPhotoPattern)
}

func (id003Unit) LineFaults() []string {
	return []string{string(id003sim.BadCRC), string(id003sim.Split), string(id003sim.Merged), string(id003sim.Garbage),
		string(id003sim.Silence), string(id003sim.DropAck)}
}

func (u id003Unit) InjectLine(f string, n int) error { return u.Inject(id003sim.Fault(f), n) }

func (u id003Unit) Counts() UnitCounts {
	c := u.Sim.Counts()
	return UnitCounts{Stacked: c.Stacked, StackedSum: c.StackedSum, Values: c.Values, Returned: c.Returned,
		Reported: c.VendValid, Acked: c.Acked}
}

func (u id003Unit) Stacking() bool {
	st := u.State()
	return st == id003.StateStacking || st == id003.StateVendValid
}

func (u id003Unit) AtRest() bool {
	st := u.State()
	return st == id003.StateIdle || st == id003.StateDisabled
}

func (id003Unit) refusal(err error) RefusalCode {
	switch {
	case errors.Is(err, id003sim.ErrDisabled):
		return RefusedDisabled
	case errors.Is(err, id003sim.ErrBusy):
		return RefusedBusy
	case errors.Is(err, id003sim.ErrUnplugged):
		return RefusedUnplugged
	case errors.Is(err, id003sim.ErrUnknown):
		return RefusedUnknownNote
	}
	return ""
}

func (u id003Unit) cause(f Fault) error {
	switch f {
	case ValidatorJam:
		return u.Inject(id003sim.JamInAcceptor, 0)
	case ValidatorStackerFull:
		return u.Inject(id003sim.StackerFull, 0)
	case ValidatorStackerOpen:
		return u.Inject(id003sim.StackerOpen, 0)
	case ValidatorFailure:
		return u.Inject(id003sim.Failure, 0)
	}
	return fmt.Errorf("%q: %w", f, ErrUnknownFault)
}

func (u id003Unit) repair() {
	u.ClearLine()
	u.Clear()
}

// esspUnit is the eSSP simulator as a Unit.
type esspUnit struct{ *esspsim.Sim }

func (esspUnit) Family() validator.Family { return validator.FamilyESSP }

func (u esspUnit) InsertCounterfeit() error { return u.Sim.InsertCounterfeit(esspsim.RejectAverage) }

// LineFaults: Deaf, a frame the unit never heard, is the host's lost
// acknowledgement's twin on an SSP line.
func (esspUnit) LineFaults() []string {
	return []string{string(esspsim.BadCRC), string(esspsim.Split), string(esspsim.Merged), string(esspsim.Garbage),
		string(esspsim.Silence), string(esspsim.Deaf)}
}

func (u esspUnit) InjectLine(f string, n int) error { return u.Inject(esspsim.Fault(f), n) }

func (u esspUnit) Counts() UnitCounts {
	c := u.Sim.Counts()
	return UnitCounts{Stacked: c.Stacked, StackedSum: c.StackedSum, Values: c.Values, Returned: c.Returned,
		Reported: c.Credits, Acked: c.Acked}
}

func (u esspUnit) Stacking() bool {
	st := u.State()
	return st == "stacking" || st == "finishing"
}

func (u esspUnit) AtRest() bool { return u.State() == "idle" }

func (esspUnit) refusal(err error) RefusalCode {
	switch {
	case errors.Is(err, esspsim.ErrDisabled):
		return RefusedDisabled
	case errors.Is(err, esspsim.ErrBusy):
		return RefusedBusy
	case errors.Is(err, esspsim.ErrOff), errors.Is(err, esspsim.ErrClosed):
		return RefusedUnplugged
	case errors.Is(err, esspsim.ErrUnknown):
		return RefusedUnknownNote
	}
	return ""
}

// cause: an SSP unit has no failure code of ID-003's kind; a note path
// left open is what stops it likewise until staff.
func (u esspUnit) cause(f Fault) error {
	switch f {
	case ValidatorJam:
		return u.Inject(esspsim.UnsafeJam, 0)
	case ValidatorStackerFull:
		return u.Inject(esspsim.StackerFull, 0)
	case ValidatorStackerOpen:
		return u.Inject(esspsim.CashBoxRemoved, 0)
	case ValidatorFailure:
		return u.Inject(esspsim.NotePathOpen, 0)
	}
	return fmt.Errorf("%q: %w", f, ErrUnknownFault)
}

func (u esspUnit) repair() {
	u.ClearLine()
	u.Clear()
}

// newUnit starts the family's simulator on link.
func newUnit(cfg Config, link string) (Unit, error) {
	switch cfg.Family {
	case "", validator.FamilyID003:
		s := id003sim.New(cfg.Validator)
		if err := s.Start(link); err != nil {
			return nil, err
		}
		return id003Unit{s}, nil
	case validator.FamilyESSP:
		c := cfg.ESSP
		if c.FixedKey == 0 {
			c.FixedKey = essp.DefaultFixedKey
		}
		s := esspsim.New(c)
		if err := s.Start(link); err != nil {
			return nil, err
		}
		return esspUnit{s}, nil
	}
	return nil, fmt.Errorf("no simulator of the bill validator family %q", cfg.Family)
}
