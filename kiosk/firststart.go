package kiosk

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"pharaon/game/block"
	"pharaon/store"
)

// ErrFirstStep: a step of the first start's sequence that is not the one
// reached, or not a step.
var ErrFirstStep = errors.New("not the first start's step reached")

// The first start's guided sequence (kiosk/ui/maint/firststart.go): once
// the PINs and the kiosk id are set (Access.Setup), a technician goes
// through the steps below, each checked here, each stored when passed as
// the setting SettingFirstStart (a settings row: anchored and logged with
// the rest of the store), so that a kiosk cut from its power resumes at
// the step reached, after the technician's PIN. The core says what it
// found as codes (FirstCheck); the screen has the words.

// SettingFirstStart is the step of the first start's sequence reached:
// one of FirstSteps, or StepDone. A kiosk without it never ran the
// sequence (it was set up before it existed, or by a development run).
const SettingFirstStart = "setup.first_start"

// FirstStep is a step of the first start's sequence.
type FirstStep string

// The steps, in order.
const (
	StepKeys    FirstStep = "keys"    // the issuer keys are found
	StepDevices FirstStep = "devices" // the validator and the printer answer and work
	StepBlock   FirstStep = "block"   // a block is on sale
	StepVoucher FirstStep = "voucher" // a test voucher is printed, void (testvoucher.go)
	StepDone    FirstStep = "done"    // the kiosk is open to players
)

// FirstSteps are the steps a technician goes through, in order.
var FirstSteps = []FirstStep{StepKeys, StepDevices, StepBlock, StepVoucher}

// FirstCheck is what a step's check found: Code names it for the screen
// (the step's name, a dot, what was found), N counts what it counted (the
// issuer keys, the stakes on sale) or is the test voucher's number.
type FirstCheck struct {
	Step FirstStep
	OK   bool
	Code string
	N    int
	// Validation is the test voucher's validation number (it pays
	// nothing), Printer what kept the printer from printing it.
	Validation string
	Printer    Message
}

// BeginFirstStart stores the sequence's first step if the kiosk has not
// started it: the setup calls it before it sets the PINs, so that a power
// cut just after them resumes the sequence.
func (m *Machine) BeginFirstStart(ctx context.Context) error {
	if _, ok, err := m.st.Setting(ctx, SettingFirstStart); err != nil || ok {
		return err
	}
	return m.st.SetSetting(ctx, "setup", SettingFirstStart, string(StepKeys))
}

// FirstStartPending reports whether the kiosk started the first start's
// sequence and has not finished it: the player's screens wait for it.
func (m *Machine) FirstStartPending(ctx context.Context) (bool, error) {
	step, err := m.firstStep(ctx)
	return step != StepDone, err
}

// firstStep is the step reached, StepDone for a kiosk that never ran the
// sequence or finished it; a value that is no step is an error.
func (m *Machine) firstStep(ctx context.Context) (FirstStep, error) {
	v, ok, err := m.st.Setting(ctx, SettingFirstStart)
	if err != nil || !ok {
		return StepDone, err
	}
	if step := FirstStep(v); step == StepDone || slices.Contains(FirstSteps, step) {
		return step, nil
	}
	return StepDone, fmt.Errorf("first start: step %q stored: %w", v, ErrFirstStep)
}

// FirstStart is the step reached (StepDone for a kiosk that never ran
// the sequence, or finished it).
func (o *Office) FirstStart(ctx context.Context, s *Session) (FirstStep, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the first start"); err != nil {
		return "", err
	}
	return o.m.firstStep(ctx)
}

// CheckFirstStep runs step's check and says what it found. The voucher
// step's check prints the test voucher (PrintTestVoucher): the same number
// each time it is asked again.
func (o *Office) CheckFirstStep(ctx context.Context, s *Session, step FirstStep) (FirstCheck, error) {
	if err := o.begin(ctx, s, RoleTechnician, "check a first start's step"); err != nil {
		return FirstCheck{}, err
	}
	c := FirstCheck{Step: step}
	switch step {
	case StepKeys:
		if ks, ok := o.m.cfg.Keys.(block.KeySet); ok {
			c.N = len(ks)
		}
		c.OK, c.Code = c.N > 0, "keys.found"
		if !c.OK {
			c.Code = "keys.none"
		}
	case StepDevices:
		o.m.CheckPrinter(ctx)
		cash := o.m.Snapshot().Cash
		c.Code = "devices.ok"
		switch {
		case !cash.Validator.Configured:
			c.Code = "devices.validator_missing"
		case !cash.Validator.OK:
			c.Code = "devices.validator_fault"
		case !cash.Printer.Configured:
			c.Code = "devices.printer_missing"
		case !cash.Printer.OK:
			c.Code = "devices.printer_fault"
		}
		c.OK = c.Code == "devices.ok"
	case StepBlock:
		for _, on := range o.m.Snapshot().Available {
			if on {
				c.N++
			}
		}
		c.OK, c.Code = c.N > 0, "block.on_sale"
		if !c.OK {
			c.Code = "block.none"
		}
	case StepVoucher:
		p, err := o.m.PrintTestVoucher(ctx)
		c.N, c.Validation = int(p.Number), p.Validation
		c.OK, c.Code = err == nil, "voucher.printed"
		var pf *PrintFailure
		switch {
		case err == nil && p.Again:
			c.Code = "voucher.again"
		case errors.As(err, &pf):
			c.Code, c.Printer = "voucher.failed", pf.Message
		case errors.Is(err, ErrCashOutUnavailable):
			// Refused before anything was recorded: the printer is faulty.
			c.Code, c.Printer = "voucher.refused", o.m.Snapshot().Cash.Printer.Message
		case err != nil:
			return c, fmt.Errorf("first start: %w", err)
		}
	default:
		return c, fmt.Errorf("first start: step %q: %w", step, ErrFirstStep)
	}
	o.audit(store.LevelInfo, "first_start_check", "first start: %s: %s (%d)", step, c.Code, c.N)
	return c, nil
}

// PassFirstStep checks step again and, when it passes, stores the next
// step (StepDone after the last): the sequence resumes there after a
// restart. A step other than the one reached changes nothing.
func (o *Office) PassFirstStep(ctx context.Context, s *Session, step FirstStep) (FirstStep, FirstCheck, error) {
	reached, err := o.FirstStart(ctx, s)
	if err != nil {
		return "", FirstCheck{}, err
	}
	if reached != step {
		return reached, FirstCheck{}, fmt.Errorf("first start: step %q passed at step %q: %w", step, reached, ErrFirstStep)
	}
	c, err := o.CheckFirstStep(ctx, s, step)
	if err != nil || !c.OK {
		return step, c, err
	}
	next := StepDone
	if i := slices.Index(FirstSteps, step); i+1 < len(FirstSteps) {
		next = FirstSteps[i+1]
	}
	if err := o.m.st.SetSetting(ctx, string(s.role), SettingFirstStart, string(next)); err != nil {
		return step, c, fmt.Errorf("first start: %w", err)
	}
	return next, c, nil
}
