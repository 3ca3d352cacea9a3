package id003

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// handle acts on one status. Errors returned end the session (a dead line); refusals and
// kiosk-side failures are events, not errors.
func (h *Host) handle(st Status) error {
	if h.resetReq.Load() && h.resetSafe(st) {
		h.resetReq.Store(false)
		return h.reset()
	}
	switch st.State {
	case StatePowerUp, StatePowerUpBillInAcceptor, StatePowerUpBillInStacker:
		// The unit lost power. A note in its path is settled during the reset without VEND
		// VALID: the kiosk resolves its intent first (Wallet.PowerUp), so that a note in the cash
		// box is never left uncredited, nor credited on a decision that did not reach the disk.
		if st.State != StatePowerUp {
			n := h.noteOf()
			if !h.note.active {
				n = Note{Recovered: true}
			}
			if err := h.wallet.PowerUp(h.ctx, st.State, n); err != nil {
				h.creditFailures++
				if h.creditFailures&(h.creditFailures-1) == 0 {
					h.emit(Event{Kind: EventCreditFailed, Note: n, Err: err,
						Detail: fmt.Sprintf("power up: attempt %d; reset held back", h.creditFailures)})
				}
				return nil
			}
			h.creditFailures = 0
		}
		h.note = noteTrack{}
		return h.reset()
	case StateInitialize:
		if !h.configured {
			return h.configure()
		}
	case StateIdle, StateDisabled:
		h.settle("note left the path without VEND VALID", false)
		if !h.configured {
			return h.configure()
		}
		return h.applyInhibit(st)
	case StateEscrow:
		return h.escrow(st)
	case StateVendValid:
		return h.vendValid(st)
	case StateStacked:
		if h.note.active && !h.note.credited {
			h.emit(Event{Kind: EventAnomaly, Note: h.noteOf(), Detail: "STACKED without a credited VEND VALID"})
		}
		h.note = noteTrack{}
	case StateRejecting, StateReturning:
		h.settle("note came back", true)
	}
	return nil
}

// settle closes the note track when the note is out of the path: an accepted note that was not
// credited came back, and its intent is void. Idle (or disabled) after a STACK the unit took,
// without VEND VALID, says nothing of where the note went (a jam in the stacker that staff
// cleared): it may be in the cash box, and its intent is held for staff, never voided.
func (h *Host) settle(why string, back bool) {
	if h.note.active && h.note.accepted && !h.note.credited {
		n := h.noteOf()
		if !back && n.StackSent {
			h.emit(Event{Kind: EventNoteUncertain, Note: n, Detail: "left the path after STACK without VEND VALID"})
		} else {
			h.emit(Event{Kind: EventNoteReturned, Note: n, Detail: why})
		}
	}
	h.note = noteTrack{}
}

func (h *Host) noteOf() Note {
	n := Note{Code: h.note.code, Cents: h.note.cents, StackSent: h.note.stackSent && !h.note.stackRefused}
	if h.note.accepted {
		n.IntentID = h.note.intent
	}
	return n
}

// resetSafe: never reset while a note may be on its way to VEND VALID, or waiting in it: a reset
// there could stack a note without the VEND VALID that credits it.
func (h *Host) resetSafe(st Status) bool {
	switch st.State {
	case StateAccepting, StateEscrow, StateStacking, StateVendValid, StateHolding:
		return false
	}
	return !(h.note.stackSent && !h.note.credited)
}

func (h *Host) reset() error {
	if err := h.operation(CmdReset); err != nil {
		if errors.Is(err, ErrRefused) {
			h.emit(Event{Kind: EventAnomaly, Err: err, Detail: "reset refused"})
			return nil
		}
		return err
	}
	h.configured = false
	// Settings are sent while the unit initialises, as the protocol expects.
	return h.configure()
}

// configure identifies the unit, checks its currency assignment against the table and sends every
// setting, then the inhibit the kiosk wants.
func (h *Host) configure() error {
	version := ""
	if v, err := h.request(CmdGetVersion); err == nil {
		version = strings.TrimSpace(string(v))
	} else if !errors.Is(err, ErrRefused) {
		return err
	}
	h.update(func(s *Snapshot) { s.Version = version })

	h.configErr = nil
	if data, err := h.request(CmdGetCurrency); err == nil {
		entries, perr := ParseCurrencyAssignment(data)
		if perr == nil {
			perr = h.cfg.Denominations.CheckAssignment(entries, h.cfg.Country, h.cfg.Accept)
		}
		h.configErr = perr
	} else if errors.Is(err, ErrRefused) {
		h.emit(Event{Kind: EventAnomaly, Detail: "unit does not report its currency assignment; table not checked"})
	} else {
		return err
	}
	h.update(func(s *Snapshot) { s.ConfigError = h.configErr })
	if h.configErr != nil {
		h.emit(Event{Kind: EventConfigError, Err: h.configErr})
	}

	for _, s := range []struct {
		cmd  byte
		data []byte
	}{
		{CmdSetEnable, h.enableMask[:]},
		{CmdSetSecurity, h.secMask[:]},
		{CmdSetCommMode, []byte{h.cfg.CommMode}},
		{CmdSetDirection, []byte{h.cfg.Direction}},
		{CmdSetOptionalFun, h.cfg.OptionalFunc[:]},
	} {
		if err := h.setting(s.cmd, s.data); err != nil {
			if errors.Is(err, ErrRefused) {
				h.emit(Event{Kind: EventAnomaly, Err: err, Detail: fmt.Sprintf("setting %02X refused", s.cmd)})
				continue
			}
			return err
		}
	}
	if err := h.setting(CmdSetInhibit, []byte{h.inhibitByte()}); err != nil && !errors.Is(err, ErrRefused) {
		return err
	}
	h.configured = true
	h.emit(Event{Kind: EventConfigured, Detail: version})
	return nil
}

func (h *Host) accepting() bool { return h.want.Load() && h.configErr == nil }

func (h *Host) inhibitByte() byte {
	if h.accepting() {
		return 0x00
	}
	return 0x01
}

// applyInhibit brings an idle or disabled unit to what the kiosk wants.
func (h *Host) applyInhibit(st Status) error {
	if (st.State == StateIdle) == h.accepting() {
		return nil
	}
	err := h.setting(CmdSetInhibit, []byte{h.inhibitByte()})
	if errors.Is(err, ErrRefused) {
		h.emit(Event{Kind: EventAnomaly, Err: err, Detail: "inhibit refused"})
		return nil
	}
	return err
}

// escrow decides a note in escrow: the kiosk records its intent before STACK is sent.
func (h *Host) escrow(st Status) error {
	code, _ := st.Denomination()
	t := &h.note
	previous := ""
	if t.active && t.decided && !t.credited && t.code == code {
		if t.session == h.sessions {
			// Still in escrow after our decision: it may not have arrived. Send it again; the
			// kiosk is not asked twice for the same note.
			return h.sendDecision()
		}
		// The line was lost since the decision: the kiosk may no longer take this note (its
		// credit, a game, out of service), and it is still in escrow, so no STACK was carried
		// out. An escrow decision lives for one session: the kiosk decides again.
		if t.accepted {
			previous = t.intent
		}
	}
	cents, known := h.cfg.Denominations.Cents(code)
	*t = noteTrack{active: true, code: code, cents: cents, session: h.sessions}
	n := Note{Code: code, Cents: cents, Previous: previous}
	var err error
	detail := ""
	switch {
	case h.configErr != nil:
		detail = "unit configuration does not match"
	case !known || !slices.Contains(h.cfg.Accept, cents):
		detail = "denomination not accepted"
	case !h.want.Load():
		detail = "acceptance switched off"
	default:
		t.accepted, t.intent, err = h.wallet.Escrow(h.ctx, n)
		if err != nil {
			t.accepted = false
		}
		if t.accepted {
			if err = h.wallet.Stacking(h.ctx, Note{Code: code, Cents: cents, IntentID: t.intent}); err != nil {
				t.accepted = false
			}
		}
	}
	t.decided = true
	n.IntentID = t.intent
	h.emit(Event{Kind: EventEscrow, Note: n, Accepted: t.accepted, Err: err, Detail: detail})
	if previous != "" && detail != "" {
		// Refused here, without asking the kiosk: the intent of the earlier decision is void.
		h.emit(Event{Kind: EventNoteReturned, Note: Note{Code: code, Cents: cents, IntentID: previous},
			Detail: "still in escrow after the line came back, now refused: " + detail})
	}
	return h.sendDecision()
}

func (h *Host) sendDecision() error {
	cmd := CmdReturn
	if h.note.accepted {
		cmd = h.cfg.StackCommand
		h.note.stackSent = true // before sending: once it may have arrived, VEND VALID may follow
	}
	err := h.operation(cmd)
	if errors.Is(err, ErrRefused) {
		// The unit is no longer in escrow (it moved on, timed out, or lost power): it did not
		// take the command; the next poll says where the note went.
		h.note.stackRefused = h.note.accepted
		h.emit(Event{Kind: EventAnomaly, Err: err, Detail: "escrow decision refused"})
		return nil
	}
	return err
}

// vendValid is the credit point: Credit first, ACK only after Credit returned nil.
func (h *Host) vendValid(st Status) error {
	t := &h.note
	code, hasCode := st.Denomination()
	if !hasCode {
		code = t.code
	}
	if t.active && t.credited && t.code == code {
		// Our ACK was lost: the unit still waits for it. Nothing is credited again.
		h.emit(Event{Kind: EventAckRepeated, Note: h.noteOf()})
		return h.ack()
	}
	ours := t.active && t.stackSent
	if ours && code != t.code {
		h.emit(Event{Kind: EventAnomaly, Note: h.noteOf(),
			Detail: fmt.Sprintf("VEND VALID for code 0x%02X after escrow of 0x%02X", code, t.code)})
	}
	cents, _ := h.cfg.Denominations.Cents(code)
	n := Note{Code: code, Cents: cents, Recovered: !ours}
	if ours {
		n.IntentID = t.intent
	}
	if err := h.wallet.Credit(h.ctx, n); err != nil {
		// Asked again at every poll; logged at attempts 1, 2, 4, 8... so a kiosk that cannot
		// commit for an hour does not write thousands of identical events.
		h.creditFailures++
		if h.creditFailures&(h.creditFailures-1) == 0 {
			h.emit(Event{Kind: EventCreditFailed, Note: n, Err: err,
				Detail: fmt.Sprintf("attempt %d; VEND VALID left unacknowledged", h.creditFailures)})
		}
		return nil
	}
	h.creditFailures = 0
	*t = noteTrack{active: true, code: code, cents: cents, intent: n.IntentID, decided: true,
		accepted: true, stackSent: true, credited: true}
	if err := h.ack(); err != nil {
		return err
	}
	h.emit(Event{Kind: EventCredited, Note: n})
	return nil
}

// ack acknowledges VEND VALID. The unit does not answer it; the next status says whether it
// arrived (STACKED) or not (VEND VALID again).
func (h *Host) ack() error { return h.send(CmdAck, nil) }
