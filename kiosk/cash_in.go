package kiosk

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/store"
)

// Cash-in (DESIGN.md §7, §9): the bill validator's host asks the kiosk
// before it stacks a note (Escrow) and tells it when the note is
// irrevocably accepted (Credit, on VEND VALID), acknowledging the unit only
// once Credit returned nil. The kiosk records a durable intent before the
// note is stacked and credits that intent exactly once: so whatever byte
// the kiosk dies at, the restarted kiosk either credits the pending intent
// or finds it credited and credits nothing (store.CreditBillIntent).

// ErrNoteAnomaly: the validator reports a note the kiosk cannot match with
// its records (VEND VALID with no pending intent, or of another value than
// the note it took). Nothing is credited and the note is not acknowledged:
// the unit keeps it at VEND VALID until staff count the cash box.
var ErrNoteAnomaly = errors.New("bank note needs staff")

// wallet is the kiosk's side of the ID-003 exactly-once rule.
type wallet struct{ m *Machine }

var _ validator.Wallet = wallet{}

// Escrow decides a note waiting in escrow: refused (the unit gives it back)
// unless the kiosk takes notes now and the note keeps the credit within
// the maximum; accepted once its intent is durable.
func (w wallet) Escrow(ctx context.Context, n validator.Note) (bool, string, error) {
	m := w.m
	denom := game.Money(n.Cents)
	// The intent still open when a note waits in escrow never reached VEND
	// VALID (the unit holds a note there until acknowledged). Its STACK was
	// never sent (pending: RecordBillIntent voids it), or it was and the
	// note may be in the cash box (stacking: settled here first).
	if err := m.settleOpenIntent(ctx, n); err != nil {
		m.noteRefused(denom, "kiosk_error", Message{Code: MsgNoteKioskError})
		m.logCash(store.LevelError, "validator", "intent_failed", "%s returned: %v", n, err)
		return false, "", err
	}
	if m.testNote(denom) {
		return false, "", nil // test mode: recognised, given back, never credited
	}
	m.mu.Lock()
	allowed := m.acceptPolicyLocked()
	if allowed {
		m.cash.noteInPath = true // from here Play and CashOut wait for this note
	}
	m.mu.Unlock()
	if !allowed {
		m.noteRefused(denom, "off", Message{Code: MsgNoteNotTaking})
		return false, "", nil
	}
	credit, err := m.st.Credit(ctx)
	if err == nil && credit+denom > m.cash.maxCredit {
		m.noteRefused(denom, "max_credit", Message{Code: MsgNoteOverMax, Amount: credit, Limit: m.cash.maxCredit})
		return false, "", nil
	}
	if err == nil {
		var over bool
		if over, err = m.escrowOverLimit(ctx, denom); over {
			return false, "", nil
		}
	}
	var in store.BillIntent
	if err == nil {
		in, err = m.st.RecordBillIntent(ctx, denom)
	}
	if err != nil {
		m.noteRefused(denom, "kiosk_error", Message{Code: MsgNoteKioskError})
		m.logCash(store.LevelError, "validator", "intent_failed", "%s returned: %v", n, err)
		return false, "", fmt.Errorf("record intent of %s: %w", denom, err)
	}
	m.cashPoint(pointEscrow)
	m.update(func() { m.cash.activity = m.nextActivityLocked(CashInEvent{Kind: NoteEscrow, Amount: denom}) })
	return true, strconv.FormatInt(in.ID, 10), nil
}

// settleOpenIntent resolves the open intent before a new note's escrow.
// The same note decided in an earlier serial session (n.Previous) was never
// stacked, since it is still in escrow: its intent is void and the kiosk
// decides again. Any other intent in stacking may have put its note in the
// cash box (a power cut, a kiosk killed between its mark and the power-up
// report): it is held for staff, never voided silently.
func (m *Machine) settleOpenIntent(ctx context.Context, n validator.Note) error {
	in, err := m.st.PendingBillIntent(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	case n.Previous != "" && strconv.FormatInt(in.ID, 10) == n.Previous:
		_, err = m.st.VoidBillIntent(ctx, in.ID, "line lost with the note in escrow: not stacked, decided again")
		return err
	case in.State == store.IntentStacking:
		_, err = m.st.HoldBillIntent(ctx, in.ID, fmt.Sprintf(
			"STACK was sent, then a new note (%s) came to escrow with no VEND VALID nor power-up report for it", game.Money(n.Cents).Plain()))
		if err == nil {
			m.intentHeld(in)
		}
		return err
	}
	return nil // pending: voided as superseded by RecordBillIntent
}

// Stacking records that STACK is about to be sent for the note's intent:
// from here a restarted kiosk knows the note may be in the cash box.
func (w wallet) Stacking(ctx context.Context, n validator.Note) error {
	m := w.m
	id, err := strconv.ParseInt(n.IntentID, 10, 64)
	if err != nil {
		return fmt.Errorf("stacking %s: intent id is not a number", n)
	}
	if _, err := m.st.MarkBillIntentStacking(ctx, id); err != nil {
		m.noteRefused(game.Money(n.Cents), "kiosk_error", Message{Code: MsgNoteKioskError})
		m.logCash(store.LevelError, "validator", "intent_failed", "%s returned: %v", n, err)
		return fmt.Errorf("mark %s stacking: %w", n, err)
	}
	m.cashPoint(pointStackMarked)
	return nil
}

// PowerUp resolves the open intent when the validator lost power with a
// note in its path; the host resets the unit (which settles the note
// without VEND VALID) only after it returned nil. The policy:
//   - in the stacker, its STACK sent: the note goes to the cash box at the
//     reset; it is credited at the intent's recorded value, with a
//     critical event;
//   - in the acceptor, its STACK never sent or refused by the unit: the
//     unit returns it; the intent is void;
//   - otherwise (in the acceptor after STACK, where the unit returns or
//     stacks by its own rule; the host that sent STACK died with the
//     kiosk): the kiosk cannot tell; the intent is held for staff, who
//     count the cash box (store.HeldIntents, CreditHeldIntent,
//     CloseHeldIntent).
func (w wallet) PowerUp(ctx context.Context, at validator.Place, n validator.Note) error {
	m := w.m
	// The shared state's words, as the event log always wrote them.
	st := validator.StatePowerUpBillInStacker.String()
	if at == validator.InAcceptor {
		st = validator.StatePowerUpBillInAcceptor.String()
	}
	in, err := m.st.PendingBillIntent(ctx)
	if errors.Is(err, store.ErrNotFound) {
		m.logCash(store.LevelWarning, "validator", "power_up_note", "%s with %s: no intent open, nothing to credit", st, n)
		m.update(func() { m.cash.noteInPath = false })
		return nil
	}
	if err != nil {
		return fmt.Errorf("power up: %w", err)
	}
	if n.IntentID != "" && n.IntentID != strconv.FormatInt(in.ID, 10) {
		// Never seen; an error would keep the unit in its power-up state for
		// good (the host resets it only after nil): the open intent is
		// resolved as if the host knew nothing.
		m.logCash(store.LevelCritical, "validator", "power_up_mismatch", "%s with %s: the open intent is %d", st, n, in.ID)
		n = validator.Note{Recovered: true}
	}
	sent := in.State == store.IntentStacking
	refused := n.IntentID != "" && !n.StackSent // this run of the host knows STACK was not taken
	switch {
	case at == validator.InStacker && sent:
		return m.creditPowerUp(ctx, st, n, in)
	case at == validator.InAcceptor && (!sent || refused):
		_, err = m.st.VoidBillIntent(ctx, in.ID, fmt.Sprintf("%s, STACK not taken: the unit returns the note", st))
	default:
		_, err = m.st.HoldBillIntent(ctx, in.ID, fmt.Sprintf("%s after STACK (%s): the unit settles the note by its own rule", st, in.State))
		if err == nil {
			m.intentHeld(in)
		}
	}
	if err != nil {
		return fmt.Errorf("power up: %w", err)
	}
	m.update(func() { m.cash.noteInPath = false })
	return nil
}

// creditPowerUp credits a note the unit stacks at its reset without VEND
// VALID, at its intent's recorded value.
func (m *Machine) creditPowerUp(ctx context.Context, st string, n validator.Note, in store.BillIntent) error {
	m.ledgerMu.Lock()
	e, err := m.st.CreditBillIntent(ctx, in.ID)
	if err == nil {
		m.showCredited(e.Balance)
	}
	m.ledgerMu.Unlock()
	switch {
	case errors.Is(err, store.ErrDuplicateRef):
		m.update(func() { m.cash.noteInPath = false })
		return nil
	case err != nil:
		m.storeFault(fmt.Errorf("credit %s at power up: %w", n, err))
		return err
	}
	m.logCash(store.LevelCritical, "validator", "power_up_credit",
		"%s: intent %d of %s credited at its recorded value without VEND VALID (ledger row %d): the unit stacks the note at its reset",
		st, in.ID, in.Denom.Plain(), e.ID)
	m.update(func() {
		m.cash.activity = m.nextActivityLocked(CashInEvent{Kind: NoteCredited, Amount: e.Amount, Credit: e.Balance})
	})
	return nil
}

// intentHeld shows staff a note held for them (the store logged it); the
// warning stays on the validator's status while a note is held
// (cashSnapshotLocked), whatever the unit does meanwhile.
func (m *Machine) intentHeld(in store.BillIntent) {
	m.update(func() {
		m.cash.held++
		m.cash.heldMsg = Message{Code: MsgNoteHeld, Amount: in.Denom}
	})
}

var msgHeld = Message{Code: MsgNotesHeld}

// Credit is the credit point: the note is in the cash box's path for good
// (VEND VALID). It credits the note's intent in one durable commit and shows
// the credit; the host acknowledges the unit after it returns nil.
func (w wallet) Credit(ctx context.Context, n validator.Note) error {
	m := w.m
	m.cashPoint(pointVendValid)
	id, err := m.intentFor(ctx, n)
	if err != nil {
		return err
	}
	if id == 0 {
		// Credited before the kiosk died, not acknowledged: the host ACKs
		// and nothing is credited again.
		m.update(func() { m.cash.noteInPath = false })
		return nil
	}
	m.ledgerMu.Lock()
	e, err := m.st.CreditBillIntent(ctx, id)
	if err == nil {
		m.showCredited(e.Balance)
	}
	m.ledgerMu.Unlock()
	switch {
	case errors.Is(err, store.ErrDuplicateRef):
		m.logCash(store.LevelInfo, "validator", "credit_repeated", "%s: intent %d already credited, ledger row %d", n, id, e.ID)
		m.update(func() { m.cash.noteInPath = false })
		return nil
	case errors.Is(err, store.ErrIntentState), errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrIntegrity):
		return m.noteAnomaly(n, fmt.Sprintf("intent %d: %v", id, err))
	case err != nil:
		// The database refuses to write (disk full, I/O): VEND VALID stays
		// unacknowledged and is asked again at every poll; no more sales.
		m.storeFault(fmt.Errorf("credit %s: %w", n, err))
		return err
	}
	m.cashPoint(pointCredited)
	amount := e.Amount
	m.update(func() {
		m.cash.activity = m.nextActivityLocked(CashInEvent{Kind: NoteCredited, Amount: amount, Credit: e.Balance})
		if m.cash.vStatus.Code == "note_anomaly" {
			m.cash.vStatus = m.validatorOKLocked()
		}
	})
	return nil
}

// intentFor finds the intent a VEND VALID settles (validator.Wallet's rule):
// the one the host named; after a restart the pending one; none (0, nil)
// when the latest is already credited.
func (m *Machine) intentFor(ctx context.Context, n validator.Note) (int64, error) {
	if n.IntentID != "" {
		id, err := strconv.ParseInt(n.IntentID, 10, 64)
		if err != nil {
			return 0, m.noteAnomaly(n, "intent id is not a number")
		}
		in, err := m.st.BillIntent(ctx, id)
		if err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return 0, m.noteAnomaly(n, "unknown intent")
			}
			return 0, err
		}
		if in.Denom != game.Money(n.Cents) {
			return 0, m.noteAnomaly(n, fmt.Sprintf("VEND VALID of %s for an intent of %s", game.Money(n.Cents).Plain(), in.Denom.Plain()))
		}
		return id, nil
	}
	p, err := m.st.PendingBillIntent(ctx)
	switch {
	case err == nil && n.Code == 0:
		// The unit repeats VEND VALID without its escrow code (units differ):
		// the one note on its way is the open intent's, at its recorded value.
		m.logCash(store.LevelWarning, "validator", "vend_valid_no_code",
			"%s after a restart: VEND VALID without a code; intent %d credited at its recorded value %s", n, p.ID, p.Denom.Plain())
		return p.ID, nil
	case err == nil:
		if p.Denom != game.Money(n.Cents) {
			return 0, m.noteAnomaly(n, fmt.Sprintf("VEND VALID of %s for the pending intent %d of %s",
				game.Money(n.Cents).Plain(), p.ID, p.Denom.Plain()))
		}
		return p.ID, nil
	case !errors.Is(err, store.ErrNotFound):
		return 0, err
	}
	last, err := m.st.LatestBillIntent(ctx)
	switch {
	case err == nil && last.State == store.IntentCredited:
		m.logCash(store.LevelInfo, "validator", "credit_repeated",
			"%s after a restart: the latest intent %d is credited (ledger row %d); acknowledged, nothing credited", n, last.ID, last.EntryID)
		return 0, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return 0, err
	case err == nil:
		return 0, m.noteAnomaly(n, fmt.Sprintf("no pending intent, the latest (%d) is %s", last.ID, last.State))
	}
	return 0, m.noteAnomaly(n, "no intent was ever recorded")
}

// noteAnomaly refuses a VEND VALID the kiosk cannot match: logged once as
// critical, shown to staff; the note stays unacknowledged.
func (m *Machine) noteAnomaly(n validator.Note, why string) error {
	detail := fmt.Sprintf("%s: %s; not credited, not acknowledged: count the cash box", n, why)
	m.mu.Lock()
	first := m.cash.vStatus.Code != "note_anomaly"
	m.mu.Unlock()
	if first {
		m.logCash(store.LevelCritical, "validator", "note_anomaly", "%s", detail)
		m.update(func() {
			m.cash.noteInPath = false
			m.cash.vStatus.OK = false
			m.cash.vStatus.Code = "note_anomaly"
			m.cash.vStatus.Message = Message{Code: MsgNoteForStaff}
		})
	}
	return fmt.Errorf("%s: %w", detail, ErrNoteAnomaly)
}

// storeFault takes the kiosk out of service on a write the database refused.
func (m *Machine) storeFault(err error) {
	m.mu.Lock()
	already := m.state == OutOfService && m.fault.Code == FaultStore
	m.mu.Unlock()
	if already {
		return
	}
	m.logCash(store.LevelCritical, "kiosk", FaultStore, "%v", err)
	m.outOfService(Fault{FaultStore, err.Error()})
}

var (
	msgNotTaking  = Message{Code: MsgNoteNotTaking}
	msgReturned   = Message{Code: MsgNoteReturned}
	msgNotAccept  = Message{Code: MsgNoteNotTaken}
	msgNoteConfig = Message{Code: MsgNoteUnitConfig}
	msgUnitConfig = Message{Code: MsgValidatorConfig}
	msgOffline    = Message{Code: MsgValidatorDisconnected}
	msgStarting   = Message{Code: MsgValidatorStarting}
)

func (m *Machine) noteRefused(denom game.Money, code string, why Message) {
	m.update(func() {
		m.cash.noteInPath = false
		m.cash.activity = m.nextActivityLocked(CashInEvent{Kind: NoteReturned, Amount: denom, Code: code, Reason: why})
	})
}

// nextActivityLocked stamps a new cash-in event.
func (m *Machine) nextActivityLocked(e CashInEvent) CashInEvent {
	e.Seq = m.cash.activity.Seq + 1
	e.At = m.clk.Now()
	return e
}

func (m *Machine) validatorOKLocked() DeviceStatus {
	return DeviceStatus{Configured: true, Connected: true, OK: true, Code: "ok", Message: Message{Code: MsgWorking}}
}

// onValidatorEvent receives the host's events, in order, from its polling
// goroutine: each is logged with the unit's own codes, and the device's
// status and the player's feedback follow them.
func (m *Machine) onValidatorEvent(e validator.Event) {
	m.logValidatorEvent(e)
	switch e.Kind {
	case validator.EventConnected:
		m.update(func() {
			m.cash.vStatus.Connected = true
			if m.cash.vStatus.Code == "connecting" || m.cash.vStatus.Code == "offline" {
				m.cash.vStatus.Code, m.cash.vStatus.Message = "starting", msgStarting
			}
		})
	case validator.EventDisconnected:
		m.update(func() {
			m.cash.restUnseen = true // the next session's first status is reported first
			m.cash.noteInPath = false
			m.cash.vStatus = DeviceStatus{Configured: true, Code: "offline", Message: msgOffline}
		})
	case validator.EventConfigError:
		m.update(func() {
			m.cash.vStatus.OK = false
			m.cash.vStatus.Code, m.cash.vStatus.Message = "config", msgUnitConfig
		})
	case validator.EventConfigured:
		var cfgErr error
		if v := m.cash.validator; v != nil {
			cfgErr = v.Snapshot().ConfigError
		}
		m.update(func() {
			switch {
			case cfgErr != nil:
				m.cash.vStatus.OK = false
				m.cash.vStatus.Code, m.cash.vStatus.Message = "config", msgUnitConfig
			case m.cash.vStatus.Code == "starting" || m.cash.vStatus.Code == "config":
				m.cash.vStatus = m.validatorOKLocked()
			}
		})
	case validator.EventState:
		m.settleAtRest(e.Status.State)
		m.validatorState(e.Status)
	case validator.EventEscrow:
		if !e.Accepted && e.Detail != "" {
			// Refused by the host itself (our own refusals are shown by Escrow).
			code, why := "not_accepted", msgNotAccept
			switch e.Detail {
			case "acceptance switched off":
				code, why = "off", msgNotTaking
			case "unit configuration does not match":
				code, why = "config", msgNoteConfig
			}
			m.noteRefused(game.Money(e.Note.Cents), code, why)
		}
	case validator.EventCredited:
		m.cashPoint(pointAcked)
	case validator.EventNoteReturned:
		// The note the kiosk accepted came back: its intent is void (a later
		// escrow would void it anyway; this says why, now).
		if id, err := strconv.ParseInt(e.Note.IntentID, 10, 64); err == nil {
			if _, err := m.st.VoidBillIntent(context.Background(), id, "note returned: "+e.Detail); err != nil &&
				!errors.Is(err, store.ErrIntentState) {
				m.logCash(store.LevelError, "validator", "intent_void_failed", "intent %d: %v", id, err)
			}
		}
		m.update(func() {
			m.cash.noteInPath = false
			if m.cash.activity.Kind != NoteReturned {
				m.cash.activity = m.nextActivityLocked(CashInEvent{Kind: NoteReturned, Amount: game.Money(e.Note.Cents),
					Code: "returned", Reason: msgReturned})
			}
		})
	case validator.EventNoteUncertain:
		// Sent to stack, gone without VEND VALID: maybe in the cash box.
		if id, err := strconv.ParseInt(e.Note.IntentID, 10, 64); err == nil {
			in, err := m.st.HoldBillIntent(context.Background(), id, "left the validator's path after STACK without VEND VALID: "+e.Detail)
			switch {
			case err == nil:
				m.intentHeld(in)
			case !errors.Is(err, store.ErrIntentState):
				m.logCash(store.LevelCritical, "validator", "intent_hold_failed", "intent %d: %v", id, err)
			}
		}
		m.update(func() { m.cash.noteInPath = false })
	case validator.EventAnomaly:
		m.update(func() {
			m.cash.vStatus.Warning = Message{Code: MsgValidatorAnomaly}
		})
	}
}

// settleAtRest resolves the open intent when the unit is first seen at
// rest (idle or disabled) since the kiosk started or the line was lost. With no note in its path, the note of an
// open intent left it without VEND VALID while this run of the host could
// not see it (the line down, or the kiosk restarting): an intent whose
// STACK was never sent (pending) is void, the unit gave the note back; one
// whose STACK may have been sent (stacking) is held for staff, who count
// the cash box, since the note may be in it. A note still in the path
// (escrow, VEND VALID, a power-up report with a note) is settled by the
// host's own calls (Escrow, Credit, PowerUp, the last before the host's
// reset); a unit powering up with no note, initialising or in a fault is
// waited for. Called on the host's goroutine, before the host acts on the
// status: an intent this run knows is held here first, and the host's
// own report of it then changes nothing.
func (m *Machine) settleAtRest(st validator.State) {
	m.mu.Lock()
	first := m.cash.restUnseen
	switch {
	case !first:
	case st == validator.StateIdle || st == validator.StateDisabled:
		m.cash.restUnseen = false
	case st == validator.StateInitialize || st == validator.StatePowerUp || st.Fault():
		// Not yet at rest: a plain POWER UP (no note) is answered by the
		// host's reset, not by PowerUp, so the intent is settled at the
		// first idle status after it.
		first = false
	default:
		m.cash.restUnseen, first = false, false
	}
	m.mu.Unlock()
	if !first {
		return
	}
	ctx := context.Background()
	in, err := m.st.PendingBillIntent(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return
	case err != nil:
		m.logCash(store.LevelCritical, "validator", "intent_hold_failed", "open intent at the reconnect: %v", err)
		return
	case in.State == store.IntentStacking:
		var held store.BillIntent
		held, err = m.st.HoldBillIntent(ctx, in.ID, fmt.Sprintf(
			"the validator came back %s with no note in its path and no VEND VALID for the note sent to stack", st))
		if err == nil {
			m.intentHeld(held)
		}
	default:
		_, err = m.st.VoidBillIntent(ctx, in.ID, fmt.Sprintf("the validator came back %s with no note in its path: STACK was never sent", st))
	}
	if err != nil && !errors.Is(err, store.ErrIntentState) {
		m.logCash(store.LevelCritical, "validator", "intent_hold_failed", "intent %d at the reconnect: %v", in.ID, err)
	}
}

// validatorState follows the unit's status: the steps of a note, and its
// faults (jam, cash box full or open, fraud attempt, failure).
func (m *Machine) validatorState(st validator.Status) {
	switch st.State {
	case validator.StateAccepting:
		m.cashPoint(pointAccepting)
	case validator.StateStacking:
		m.cashPoint(pointStacking)
	}
	m.update(func() {
		c := &m.cash
		switch {
		case st.State.Fault():
			c.noteInPath = false
			c.vStatus = DeviceStatus{Configured: true, Connected: true, Code: st.DeviceCode(),
				Message: Message{Code: MsgValidatorState, Detail: st.State.Key()}}
		case c.vStatus.Code == "config" || c.vStatus.Code == "note_anomaly":
			// Stays until the unit is configured right, or the note is settled.
		case st.State.PowerUp() || st.State == validator.StateInitialize:
			c.vStatus = DeviceStatus{Configured: true, Connected: true, Code: "starting", Message: msgStarting}
		case c.vStatus.Code != "ok":
			// Working, or working again once staff cleared a fault.
			c.vStatus = m.validatorOKLocked()
		}
		switch st.State {
		case validator.StateAccepting:
			if c.activity.Kind != NoteReading {
				c.activity = m.nextActivityLocked(CashInEvent{Kind: NoteReading})
			}
		case validator.StateRejecting:
			c.noteInPath = false
			c.activity = m.nextActivityLocked(CashInEvent{Kind: NoteReturned, Code: st.DeviceCode(),
				Reason: Message{Code: MsgNoteRejected, Detail: rejectKey(st)}})
		case validator.StateReturning:
			c.noteInPath = false
			if c.activity.Kind != NoteReturned {
				c.activity = m.nextActivityLocked(CashInEvent{Kind: NoteReturned, Amount: c.activity.Amount,
					Code: "returned", Reason: msgReturned})
			}
		case validator.StateIdle, validator.StateDisabled:
			c.noteInPath = false
		}
	})
}

// logValidatorEvent writes a host event to the store's log, source
// "validator", with the unit's own status bytes in the detail.
func (m *Machine) logValidatorEvent(e validator.Event) {
	level := store.LevelInfo
	switch e.Kind {
	case validator.EventLineError, validator.EventNoteReturned:
		level = store.LevelWarning
	case validator.EventEscrow:
		if !e.Accepted {
			level = store.LevelWarning
		}
	case validator.EventState:
		switch {
		case e.Status.State.Fault():
			level = store.LevelError
		case e.Status.State == validator.StateRejecting || e.Status.State.PowerUp():
			level = store.LevelWarning
		}
	case validator.EventDisconnected, validator.EventConfigError, validator.EventCreditFailed:
		level = store.LevelError
	case validator.EventAnomaly, validator.EventNoteUncertain:
		level = store.LevelCritical
	}
	m.logCash(level, "validator", validatorEventCode(e.Kind), "%s", e)
}

// validatorEventCode is the event log's code of a driver's event, spelt
// out: the maintenance screen's words are checked against these literals.
func validatorEventCode(k validator.EventKind) string {
	switch k {
	case validator.EventConnected:
		return "connected"
	case validator.EventDisconnected:
		return "disconnected"
	case validator.EventState:
		return "state"
	case validator.EventConfigured:
		return "configured"
	case validator.EventConfigError:
		return "config_error"
	case validator.EventEscrow:
		return "escrow"
	case validator.EventCredited:
		return "credited"
	case validator.EventCreditFailed:
		return "credit_failed"
	case validator.EventAckRepeated:
		return "ack_repeated"
	case validator.EventNoteReturned:
		return "note_returned"
	case validator.EventLineError:
		return "line_error"
	case validator.EventAnomaly:
		return "anomaly"
	case validator.EventNoteUncertain:
		return "note_uncertain"
	case validator.EventCalled:
		return "called"
	}
	return "event"
}

// rejectKey is the reason's key for the screens' words; a unit that gave
// no reason is "reject_00", as ID-003's reason 0 always was.
func rejectKey(st validator.Status) string {
	if st.Reason == "" {
		return "reject_00"
	}
	return st.Reason
}
