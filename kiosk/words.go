package kiosk

import "pharaon/game"

// MessageCode names what the core tells the screens: the screens hold the
// words of every code, in French and in English, in one catalogue
// (kiosk/ui/i18n.go, whose test checks that every code declared here has
// both). The core sends codes and values, never sentences; only the
// printed voucher's text stays in the core, with the voucher
// (kiosk/voucher.go).
type MessageCode string

// Message is a code and the values its text places: the screens write it in
// the player's language. It is comparable; the zero Message says nothing.
type Message struct {
	Code MessageCode
	// Detail is a code placed inside the text: a device's own condition
	// (id003.State.Key, id003.RejectReason.Key).
	Detail string
	Amount game.Money // the amount the text places first (a note, the credit)
	Limit  game.Money // the second (the maximum credit)
}

// IsZero reports an empty message.
func (m Message) IsZero() bool { return m.Code == "" }

// String is the message for the event log and errors: its code and its
// values ("validator.state(stacker_open)", "note.held 10 EUR"); the screens
// write it in words.
func (m Message) String() string {
	s := string(m.Code)
	if m.Detail != "" {
		s += "(" + m.Detail + ")"
	}
	if m.Amount != 0 {
		s += " " + m.Amount.Plain()
	}
	if m.Limit != 0 {
		s += " / " + m.Limit.Plain()
	}
	return s
}

// The codes of the devices' conditions, the notes' fate and the voucher's
// place of payment.
const (
	MsgConnecting MessageCode = "device.connecting"
	MsgAbsent     MessageCode = "device.absent"
	MsgWorking    MessageCode = "device.working"

	MsgPaperLow            MessageCode = "printer.paper_low"
	MsgPaperOut            MessageCode = "printer.paper_out"
	MsgPrinterCoverOpen    MessageCode = "printer.cover_open"
	MsgPrinterCutter       MessageCode = "printer.cutter"
	MsgPrinterFailure      MessageCode = "printer.failure"
	MsgPrinterPaused       MessageCode = "printer.paused"
	MsgPrinterOffline      MessageCode = "printer.offline"
	MsgPrinterDisconnected MessageCode = "printer.disconnected"
	MsgPrinterProtocol     MessageCode = "printer.protocol"
	MsgPrinterDocument     MessageCode = "printer.document"
	MsgPrinterError        MessageCode = "printer.error"

	MsgValidatorStarting     MessageCode = "validator.starting"
	MsgValidatorConfig       MessageCode = "validator.config"
	MsgValidatorDisconnected MessageCode = "validator.disconnected"
	MsgValidatorAnomaly      MessageCode = "validator.anomaly"
	MsgValidatorState        MessageCode = "validator.state" // Detail: id003.State.Key
	MsgNoteForStaff          MessageCode = "validator.note_for_staff"
	MsgNoteHeld              MessageCode = "validator.note_held" // Amount: the note
	MsgNotesHeld             MessageCode = "validator.notes_held"
	MsgNoteTestMode          MessageCode = "validator.test_mode" // Amount: the note, recognised and given back

	// Why notes are not taken, before one goes in (CashSnapshot.CashInOff).
	MsgCashInValidatorDown MessageCode = "cash_in.validator_down" // with the validator's Message
	MsgCashInPrinterDown   MessageCode = "cash_in.printer_down"   // with the printer's Message
	MsgCashInNearMax       MessageCode = "cash_in.near_max"       // Amount: the credit, Limit: the maximum
	MsgCashInOff           MessageCode = "cash_in.off"
	MsgCashInHandPay       MessageCode = "cash_in.hand_pay"
	MsgCashInMaintenance   MessageCode = "cash_in.maintenance"
	MsgCashInPlayerLimit   MessageCode = "cash_in.player_limit" // Amount: the session's notes, Limit: the player's limit
	MsgCashInCeiling       MessageCode = "cash_in.ceiling"      // Amount: the session's notes, Limit: the operator's ceiling

	// Why a note came back (CashInEvent.Reason).
	MsgNoteOverMax    MessageCode = "note.over_max"    // Amount: the credit, Limit: the maximum
	MsgNoteNotTaken   MessageCode = "note.not_taken"   // a value the kiosk does not take
	MsgNoteRejected   MessageCode = "note.rejected"    // Detail: id003.RejectReason.Key
	MsgNoteNotTaking  MessageCode = "note.not_taking"  // notes are not taken now
	MsgNoteKioskError MessageCode = "note.kiosk_error" // the kiosk could not record it
	MsgNoteReturned   MessageCode = "note.returned"    // came back from the validator
	MsgNoteUnitConfig MessageCode = "note.unit_config" // the validator is set up wrong
	// Amount: the session's notes, Limit: the limit it would pass.
	MsgNoteOverPlayerLimit MessageCode = "note.over_player_limit"
	MsgNoteOverCeiling     MessageCode = "note.over_ceiling"

	MsgPayAtCounter     MessageCode = "voucher.at_counter"
	MsgPayPaymentCentre MessageCode = "voucher.payment_centre"
)
