package essp

import (
	"errors"
	"fmt"

	"pharaon/hw/validator"
)

// stateOf maps an SSP event onto the shared states; enabled says which rest state a "nothing
// happening" event means.
func stateOf(e Event, enabled bool) validator.Status {
	st := validator.Status{Code: hexBytes(e.Bytes()), Text: e.Name()}
	rest := validator.StateDisabled
	if enabled {
		rest = validator.StateIdle
	}
	switch e.Code {
	case EvSlaveReset:
		st.State = validator.StatePowerUp
	case EvReadNote:
		st.State = validator.StateAccepting
		if e.Channel != 0 {
			st.State = validator.StateEscrow
		}
	case EvCreditNote:
		st.State = validator.StateVendValid
	case EvNoteRejecting, EvNoteRejected:
		st.State = validator.StateRejecting
	case EvNoteStacking:
		st.State = validator.StateStacking
	case EvNoteStacked:
		st.State = validator.StateStacked
	case EvSafeJam:
		// Safe: the note is stuck where the player cannot reach it, past the bezel.
		st.State = validator.StateJamInStacker
	case EvUnsafeJam:
		// Unsafe: the note is stuck where it might be pulled out from the front.
		st.State = validator.StateJamInAcceptor
	case EvDisabled, EvChannelDisable:
		st.State = validator.StateDisabled
	case EvFraudAttempt:
		st.State = validator.StateCheated
	case EvStackerFull:
		st.State = validator.StateStackerFull
	case EvCashBoxRemoved:
		st.State = validator.StateStackerOpen
	case EvCashBoxReplaced:
		st.State = rest
	case EvNotePathOpen:
		st.State = validator.StateFailure
	case EvClearedFromFront:
		st.State = validator.StatePowerUpBillInAcceptor
	case EvClearedToCashBox:
		st.State = validator.StatePowerUpBillInStacker
	case EvInitialising:
		st.State = validator.StateInitialize
	}
	return st
}

// inPath: events that say a note is in the unit's path or was just settled; an answer without any
// of them, while a note is tracked, means the note left the path unseen.
func inPath(code byte) bool {
	switch code {
	case EvReadNote, EvNoteStacking, EvCreditNote, EvNoteStacked, EvNoteRejecting, EvNoteRejected,
		EvSafeJam, EvUnsafeJam, EvClearedFromFront, EvClearedToCashBox, EvFraudAttempt:
		return true
	}
	return false
}

// handle acts on one poll's events, in order, then acknowledges the ones the unit repeats until
// acknowledged, only if every Wallet call they caused returned nil (settled).
func (h *Host) handle(evs []Event) (settled bool, err error) {
	st := validator.Status{State: validator.StateDisabled, Code: hexBytes([]byte{RespOK})}
	if h.enabled {
		st.State = validator.StateIdle
	}
	ackDue, ackOK, seen, reset := false, true, false, false
	for _, e := range evs {
		st = stateOf(e, h.enabled)
		if e.Code == EvNoteRejected {
			// Why, for the screens: the unit keeps the last reject's code until the next note.
			b, err := h.command(CmdLastRejectCode)
			switch {
			case err == nil && len(b) == 1:
				st.Reason = RejectKey(b[0])
				st.Text += ": " + RejectName(b[0])
			case err != nil && !errors.Is(err, ErrRefused):
				return false, err
			}
		}
		h.report(st)
		seen = seen || inPath(e.Code)
		if NeedsAck(e.Code) {
			ackDue = true
		}
		var ok bool
		switch e.Code {
		case EvSlaveReset:
			// The unit restarted (power, a reset): it is disabled and forgot its settings. The
			// restart before this session's setup is reported at its first poll: nothing to redo.
			if h.polled {
				reset = true
				h.enabled = false
			}
		case EvDisabled:
			h.enabled = false
		case EvReadNote:
			if e.Channel != 0 {
				err = h.escrow(e.Channel)
			}
		case EvCreditNote:
			ok = h.credit(e.Channel)
			ackOK = ackOK && ok
		case EvNoteStacked:
			if h.note.active && !h.note.credited {
				h.emit(validator.Event{Kind: validator.EventAnomaly, Note: h.noteOf(), Detail: "stacked without a credit"})
			}
			h.note = noteTrack{}
		case EvNoteRejecting, EvNoteRejected:
			h.settle("note came back", true)
		case EvFraudAttempt:
			h.settle("fraud attempt", true)
		case EvClearedFromFront, EvClearedToCashBox:
			ok = h.powerUp(e)
			ackOK = ackOK && ok
		}
		if err != nil {
			return false, err
		}
	}
	if len(evs) == 0 {
		h.report(st)
	}
	if !seen {
		h.settle("note left the path without a credit", false)
	}
	if ackDue && ackOK {
		if _, err := h.command(CmdEventAck); err != nil && !errors.Is(err, ErrRefused) {
			return false, err
		}
	}
	h.polled = true
	if reset {
		h.configured = false
	}
	return ackOK, nil
}

func (h *Host) report(st validator.Status) {
	if st == h.last {
		return
	}
	h.last = st
	h.update(func(s *validator.Snapshot) { s.Status = st })
	h.emit(validator.Event{Kind: validator.EventState, Status: st})
}

// settle closes the note track when the note is out of the path: an accepted note not credited
// came back (its intent is void), or left the path unseen after it was let stack (it may be in the
// cash box: its intent is held for staff, never voided).
func (h *Host) settle(why string, back bool) {
	if h.note.active && h.note.accepted && !h.note.credited {
		n := h.noteOf()
		if !back && n.StackSent {
			h.emit(validator.Event{Kind: validator.EventNoteUncertain, Note: n, Detail: "left the path after it was let stack, without a credit"})
		} else {
			h.emit(validator.Event{Kind: validator.EventNoteReturned, Note: n, Detail: why})
		}
	}
	h.note = noteTrack{}
}

func (h *Host) noteOf() validator.Note {
	n := validator.Note{Code: h.note.channel, Cents: h.note.cents, StackSent: h.note.stackSent}
	if h.note.accepted {
		n.IntentID = h.note.intent
	}
	return n
}

// escrow decides a note read and held in escrow. HOLD keeps it there while the kiosk records its
// intent; then the next poll lets the unit stack it, or REJECT gives it back.
func (h *Host) escrow(ch byte) error {
	t := &h.note
	if t.active && t.decided && !t.credited && t.channel == ch {
		// The unit still reports the note in escrow after the decision (the answer to the poll
		// that decided it): send a refusal again; an acceptance is the next poll itself.
		if !t.accepted {
			return h.reject()
		}
		return nil
	}
	if _, err := h.command(CmdHold); err != nil {
		if errors.Is(err, ErrRefused) {
			// Not in escrow any more (the unit's escrow timer ran out), or a unit that will not
			// hold: the next poll must not stack a note the kiosk did not decide on, so REJECT
			// (refused in turn if nothing is in escrow, which costs nothing).
			h.emit(validator.Event{Kind: validator.EventAnomaly, Err: err, Detail: "hold refused"})
			return h.reject()
		}
		return err
	}
	cents, known := h.setup.Cents(ch)
	*t = noteTrack{active: true, channel: ch, cents: cents}
	n := validator.Note{Code: ch, Cents: cents}
	detail := ""
	var err error
	switch {
	case h.configErr != nil:
		detail = "unit configuration does not match"
	case !known || h.setup.Channels[ch-1].Country != h.cfg.Country || !contains(h.cfg.Accept, cents):
		detail = "denomination not accepted"
	case !h.want.Load():
		detail = "acceptance switched off"
	default:
		t.accepted, t.intent, err = h.wallet.Escrow(h.ctx, n)
		if err != nil {
			t.accepted = false
		}
		if t.accepted {
			if err = h.wallet.Stacking(h.ctx, validator.Note{Code: ch, Cents: cents, IntentID: t.intent}); err != nil {
				t.accepted = false
			}
		}
	}
	t.decided = true
	n.IntentID = t.intent
	h.emit(validator.Event{Kind: validator.EventEscrow, Note: n, Accepted: t.accepted, Err: err, Detail: detail})
	if t.accepted {
		// Before the poll that lets it stack: once that may have arrived, a credit may follow.
		t.stackSent = true
		return nil
	}
	return h.reject()
}

func (h *Host) reject() error {
	_, err := h.command(CmdReject)
	if errors.Is(err, ErrRefused) {
		h.emit(validator.Event{Kind: validator.EventAnomaly, Err: err, Detail: "reject refused"})
		return nil
	}
	return err
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// credit is the credit point: Credit first; the caller acknowledges only once it returned nil.
func (h *Host) credit(ch byte) bool {
	t := &h.note
	if t.active && t.credited && t.channel == ch {
		// Our acknowledgement was lost: the unit repeats the event. Nothing is credited again.
		h.emit(validator.Event{Kind: validator.EventAckRepeated, Note: h.noteOf()})
		return true
	}
	ours := t.active && t.stackSent
	if ours && ch != t.channel {
		h.emit(validator.Event{Kind: validator.EventAnomaly, Note: h.noteOf(),
			Detail: fmt.Sprintf("credit of channel %d after escrow of channel %d", ch, t.channel)})
	}
	cents, _ := h.setup.Cents(ch)
	n := validator.Note{Code: ch, Cents: cents, Recovered: !ours, StackSent: ours}
	if ours {
		n.IntentID = t.intent
	}
	if err := h.wallet.Credit(h.ctx, n); err != nil {
		h.failed(n, err, "credit left unacknowledged")
		return false
	}
	h.failures = 0
	*t = noteTrack{active: true, channel: ch, cents: cents, intent: n.IntentID, decided: true,
		accepted: true, stackSent: true, credited: true}
	h.emit(validator.Event{Kind: validator.EventCredited, Note: n})
	return true
}

// failed logs a failed Wallet call at attempts 1, 2, 4, 8…: a kiosk that cannot commit for an hour
// does not write thousands of identical events.
func (h *Host) failed(n validator.Note, err error, what string) {
	h.failures++
	if h.failures&(h.failures-1) == 0 {
		h.emit(validator.Event{Kind: validator.EventCreditFailed, Note: n, Err: err,
			Detail: fmt.Sprintf("attempt %d; %s", h.failures, what)})
	}
}

// powerUp: the unit lost power with a note in its path and settled it as it started: into the
// cash box or out of the front. The kiosk resolves its intent first.
func (h *Host) powerUp(e Event) bool {
	at := validator.InAcceptor
	if e.Code == EvClearedToCashBox {
		at = validator.InStacker
	}
	n := h.noteOf()
	if !h.note.active {
		cents, _ := h.setup.Cents(e.Channel)
		n = validator.Note{Code: e.Channel, Cents: cents, Recovered: true}
	}
	if err := h.wallet.PowerUp(h.ctx, at, n); err != nil {
		h.failed(n, err, "power-up event left unacknowledged")
		return false
	}
	h.failures = 0
	h.note = noteTrack{}
	return true
}
