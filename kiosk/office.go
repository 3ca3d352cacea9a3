package kiosk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"pharaon/store"
)

// The back office (DESIGN.md §1): what the maintenance screen does for shop
// staff and technicians. Every action needs a session opened with a PIN
// (Access), is checked against the session's role, and is in the event log
// with that role, refusals included; a session left idle ends by itself.
// The screens call these; they never reach the store themselves.

// DefaultOfficeIdle ends a maintenance session nobody touched for that long.
const DefaultOfficeIdle = 2 * time.Minute

// Touch tells the office someone is at the maintenance screen: its idle
// time starts again (a session is also touched by each action). A session
// the kiosk did not open, or that ended, is left as it is.
func (o *Office) Touch(s *Session) {
	if !o.a.alive(s) {
		return
	}
	now := o.m.clk.Now()
	s.mu.Lock()
	if !s.ended {
		s.last = now
	}
	s.mu.Unlock()
}

// Office runs the maintenance screen's actions on a machine.
type Office struct {
	m    *Machine
	a    *Access
	idle time.Duration
	// helper is the root helper of the USB stick actions (UseHelper).
	helper MediaHelper
}

// NewOffice makes the back office of m, its PINs checked by a; idle ends
// sessions (DefaultOfficeIdle if 0).
func NewOffice(m *Machine, a *Access, idle time.Duration) *Office {
	if idle <= 0 {
		idle = DefaultOfficeIdle
	}
	return &Office{m: m, a: a, idle: idle}
}

// Access is the PIN pad's checker (setup, PIN changes, the lock's state).
func (o *Office) Access() *Access { return o.a }

// Login opens a session for the role a PIN names (Access.Login).
func (o *Office) Login(ctx context.Context, pin string) (*Session, error) {
	return o.a.Login(ctx, pin)
}

// Logout ends s (why: "done", "idle"). A session the kiosk did not open is
// ErrSessionEnded.
func (o *Office) Logout(ctx context.Context, s *Session, why string) error {
	if s.isEnded() {
		return nil
	}
	if !o.a.alive(s) {
		return fmt.Errorf("logout: %w", ErrSessionEnded)
	}
	// Test mode lives only in a technician's session: a kiosk left in it
	// would give every player's note back.
	o.m.mu.Lock()
	wasTest := o.m.cash.test.on
	o.m.cash.test.on = false
	o.m.mu.Unlock()
	if wasTest {
		o.m.notify() // the validator stops taking notes under the maintenance screen
		o.audit(store.LevelInfo, "test_mode", "test mode off: the %s's session ended (%s)", s.role, why)
	}
	return o.a.Logout(ctx, s, why)
}

// Expire ends s and logs it if it has been idle too long; it reports
// whether s has ended. The screen calls it from its clock.
func (o *Office) Expire(ctx context.Context, s *Session) bool {
	if !o.a.alive(s) {
		return true
	}
	s.mu.Lock()
	idle := !s.ended && o.m.clk.Now().Sub(s.last) >= o.idle
	s.mu.Unlock()
	if idle {
		_ = o.Logout(ctx, s, "idle")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// begin checks that s is a session Access opened, alive, and may do what
// needs role need (action names it in the log); a refusal is logged with
// the role. A diagnosis session (opened while the data are in fault) may
// only read the diagnosis: diagnosisActions.
func (o *Office) begin(ctx context.Context, s *Session, need Role, action string) error {
	if !o.a.alive(s) {
		if !s.isEnded() {
			o.audit(store.LevelWarning, "refused", "%s refused: not a session this kiosk opened", action)
		}
		return fmt.Errorf("%s: %w", action, ErrSessionEnded)
	}
	if o.Expire(ctx, s) {
		return fmt.Errorf("%s: %w", action, ErrSessionEnded)
	}
	o.Touch(s)
	switch {
	case s.diagnosis && !diagnosisActions[action]:
		o.audit(store.LevelWarning, "refused", "%s refused to the %s's diagnosis session", action, s.role)
		return fmt.Errorf("%s in a diagnosis session: %w", action, ErrNotAllowed)
	case !s.role.Can(need):
		o.audit(store.LevelWarning, "refused", "%s refused to %s (needs %s)", action, s.role, need)
		return fmt.Errorf("%s as %s: %w", action, s.role, ErrNotAllowed)
	}
	return nil
}

// diagnosisActions are what a diagnosis session may do: read why the
// kiosk is out of service, and ask for the checks again.
var diagnosisActions = map[string]bool{
	"read the fault": true, "clear the fault": true, "read the event log": true, "read the software identity": true,
	"read the devices": true, "read the meters": true,
}

// SetPIN sets role's PIN with the session s (Access.SetPIN: the role that
// sets it is the session's).
func (o *Office) SetPIN(ctx context.Context, s *Session, role Role, pin string) error {
	if err := o.begin(ctx, s, RoleStaff, "change a PIN"); err != nil {
		return err
	}
	return o.a.SetPIN(ctx, s, role, pin)
}

// RevokePIN revokes role's PIN with the session s (Access.RevokePIN).
func (o *Office) RevokePIN(ctx context.Context, s *Session, role Role) error {
	if err := o.begin(ctx, s, RoleStaff, "revoke a PIN"); err != nil {
		return err
	}
	return o.a.RevokePIN(ctx, s, role)
}

func (o *Office) audit(level store.Level, code, format string, args ...any) {
	_, _ = o.m.st.Log(o.m.ctx, store.Event{Level: level, Source: "maintenance", Code: code, Detail: fmt.Sprintf(format, args...)})
}

// Meters are the machine's counters (never reset).
func (o *Office) Meters(ctx context.Context, s *Session) (store.Meters, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the meters"); err != nil {
		return nil, err
	}
	return o.m.st.Meters(ctx)
}

// Events reads the event log as q filters it.
func (o *Office) Events(ctx context.Context, s *Session, q store.EventQuery) ([]store.Event, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the event log"); err != nil {
		return nil, err
	}
	return o.m.st.EventsWhere(ctx, q)
}

// Recall returns the plays q selects with the credit around each and what
// their replay needs.
func (o *Office) Recall(ctx context.Context, s *Session, q store.RecallQuery) ([]store.Recalled, error) {
	if err := o.begin(ctx, s, RoleStaff, "recall games"); err != nil {
		return nil, err
	}
	return o.m.st.Recall(ctx, q)
}

// CashBox is what the cash box should hold since its last collection.
func (o *Office) CashBox(ctx context.Context, s *Session) (store.CashBox, error) {
	if err := o.begin(ctx, s, RoleStaff, "count the cash box"); err != nil {
		return store.CashBox{}, err
	}
	return o.m.st.CashBox(ctx)
}

// Collect records that the cash box was emptied (the store logs it with
// the role).
func (o *Office) Collect(ctx context.Context, s *Session) (store.Collection, error) {
	if err := o.begin(ctx, s, RoleStaff, "collect the cash box"); err != nil {
		return store.Collection{}, err
	}
	return o.m.st.Collect(ctx, string(s.role))
}

// PayVoucher pays the voucher whose validation number staff typed or
// scanned (a scanner types it: spaces and dashes are dropped). A refusal
// says why (a *MistypedError for a number whose check digits fail, looked
// up nowhere; store.ErrVoucherPaid with when and by whom,
// ErrVoucherExpired, ErrVoucherState, ErrNotFound) and is logged.
func (o *Office) PayVoucher(ctx context.Context, s *Session, typed string) (store.Voucher, error) {
	if err := o.begin(ctx, s, RoleStaff, "pay a voucher"); err != nil {
		return store.Voucher{}, err
	}
	validation, err := ParseValidation(typed)
	if err != nil {
		o.audit(store.LevelWarning, "voucher_refused", "payment refused to %s: %v", s.role, err)
		return store.Voucher{}, fmt.Errorf("pay voucher: %w", err)
	}
	// Joined to a fleet, the payment is recorded at the centre first
	// (office_voucher.go): a voucher paid elsewhere is refused here and
	// nothing changes.
	release, offline, err := o.claimVoucher(ctx, s, validation)
	if err != nil {
		o.audit(store.LevelWarning, "voucher_refused", "payment refused to %s: %v", s.role, maskErr(err, validation))
		return store.Voucher{}, err
	}
	v, err := o.m.st.PayVoucher(ctx, validation, string(s.role))
	if err != nil && release != nil {
		// The centre holds a payment this kiosk did not make: give the
		// voucher back to the fleet.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if rerr := release(rctx); rerr != nil {
			o.audit(store.LevelCritical, "voucher_claim_left", "the centre records a payment of a voucher this kiosk did not pay (%v), and could not be told: %v",
				maskErr(err, validation), maskErr(rerr, validation))
		}
		cancel()
	}
	if errors.Is(err, store.ErrAnchor) || errors.Is(err, store.ErrIntegrity) {
		// The history was cut or edited behind the kiosk: nothing more is
		// paid or sold until a technician looks.
		o.m.reject(err)
	}
	if err != nil {
		o.audit(store.LevelWarning, "voucher_refused", "payment refused to %s: %v", s.role, maskErr(err, validation))
		return store.Voucher{}, err
	}
	if offline {
		o.audit(store.LevelWarning, "voucher_paid_offline", "voucher %d of %s paid by %s while the centre did not answer: the centre learns of it when it answers again", v.ID, v.Amount.Plain(), s.role)
	}
	if limit := o.payoutLimit(); v.Amount > limit {
		// staff confirmed it (the voucher's view): its paper said a payment centre
		o.audit(store.LevelWarning, "voucher_paid", "voucher %d of %s paid by %s above the counter's payout limit of %s", v.ID, v.Amount.Plain(), s.role, limit.Plain())
		return v, nil
	}
	o.audit(store.LevelInfo, "voucher_paid", "voucher %d of %s paid by %s", v.ID, v.Amount.Plain(), s.role)
	return v, nil
}

// maskErr keeps a validation number out of the log: whoever reads the log
// must not be able to pay a voucher with what it says.
func maskErr(err error, validation string) string {
	msg := err.Error()
	if len(validation) > 4 {
		msg = strings.ReplaceAll(msg, validation, strings.Repeat("•", len(validation)-4)+validation[len(validation)-4:])
	}
	return msg
}

// LastVoucher is the last voucher printed, the one a duplicate would
// reproduce, as the screens may show it (its number masked) with what
// became of it; ErrNoVoucher when none was printed.
func (o *Office) LastVoucher(ctx context.Context, s *Session) (VoucherInfo, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the last voucher"); err != nil {
		return VoucherInfo{}, err
	}
	return o.m.LastVoucher(ctx)
}

// ReprintLast prints the last voucher again as a DUPLICATA; a voucher no
// longer payable is a *ReprintRefusal that says what became of it.
func (o *Office) ReprintLast(ctx context.Context, s *Session) (VoucherInfo, error) {
	if err := o.begin(ctx, s, RoleStaff, "reprint the last voucher"); err != nil {
		return VoucherInfo{}, err
	}
	v, err := o.m.ReprintLast(ctx)
	if err != nil {
		o.audit(store.LevelWarning, "reprint_failed", "duplicate asked by %s not printed: %v", s.role, err)
		return VoucherInfo{}, err
	}
	o.audit(store.LevelInfo, "reprint", "duplicate of voucher %d printed for %s", v.Number, s.role)
	return v, nil
}

// Blocks lists the ticket blocks with their state.
func (o *Office) Blocks(ctx context.Context, s *Session) ([]store.BlockInfo, error) {
	if err := o.begin(ctx, s, RoleTechnician, "list the blocks"); err != nil {
		return nil, err
	}
	return o.m.st.Blocks(ctx)
}

// ImportBlock imports a signed block file, verified as every import is; a
// refusal is logged with its reason.
func (o *Office) ImportBlock(ctx context.Context, s *Session, name string, r io.Reader) (store.BlockInfo, error) {
	if err := o.begin(ctx, s, RoleTechnician, "import a block"); err != nil {
		return store.BlockInfo{}, err
	}
	b, err := o.m.ImportBlock(ctx, r)
	if err != nil {
		o.audit(store.LevelWarning, "import_refused", "block file %s refused to %s: %v", name, s.role, err)
		return store.BlockInfo{}, err
	}
	o.audit(store.LevelInfo, "import", "block %d/%d (%s) imported from %s by %s", b.Emission, b.Number, b.Stake.Money().Plain(), name, s.role)
	return b, nil
}

// WithdrawBlock takes a block out of sale for good, with the reason.
func (o *Office) WithdrawBlock(ctx context.Context, s *Session, id int64, reason string) (store.BlockInfo, error) {
	if err := o.begin(ctx, s, RoleTechnician, "withdraw a block"); err != nil {
		return store.BlockInfo{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return store.BlockInfo{}, fmt.Errorf("withdraw block %d: no reason: %w", id, store.ErrBadRequest)
	}
	b, err := o.m.st.WithdrawBlock(ctx, id, fmt.Sprintf("%s (by %s)", reason, s.role))
	if err != nil {
		return store.BlockInfo{}, err
	}
	return b, o.m.refresh(ctx)
}

// HeldNotes lists the notes held for staff: each may be in the cash box
// without a credit (a power cut after STACK); staff count the box, then
// credit or close each one.
func (o *Office) HeldNotes(ctx context.Context, s *Session) ([]store.BillIntent, error) {
	if err := o.begin(ctx, s, RoleStaff, "list the held notes"); err != nil {
		return nil, err
	}
	return o.m.st.HeldIntents(ctx)
}

// CreditHeldNote credits a held note at its recorded value: staff found it
// in the cash box. The reason is required and logged with the role.
func (o *Office) CreditHeldNote(ctx context.Context, s *Session, id int64, reason string) (store.Entry, error) {
	if err := o.begin(ctx, s, RoleStaff, "credit a held note"); err != nil {
		return store.Entry{}, err
	}
	if strings.TrimSpace(reason) == "" {
		return store.Entry{}, fmt.Errorf("credit held note %d: no reason: %w", id, store.ErrBadRequest)
	}
	o.m.ledgerMu.Lock()
	e, err := o.m.st.CreditHeldIntent(ctx, id, fmt.Sprintf("%s (%s)", strings.TrimSpace(reason), s.role))
	if err == nil {
		o.m.showBalance(e.Balance)
	}
	o.m.ledgerMu.Unlock()
	if err != nil {
		return store.Entry{}, err
	}
	o.m.refreshHeld(ctx)
	return e, nil
}

// CloseHeldNote closes a held note without a credit: staff found no such
// note in the cash box. The reason is required and logged with the role.
func (o *Office) CloseHeldNote(ctx context.Context, s *Session, id int64, reason string) error {
	if err := o.begin(ctx, s, RoleStaff, "close a held note"); err != nil {
		return err
	}
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("close held note %d: no reason: %w", id, store.ErrBadRequest)
	}
	if _, err := o.m.st.CloseHeldIntent(ctx, id, fmt.Sprintf("%s (%s)", strings.TrimSpace(reason), s.role)); err != nil {
		return err
	}
	o.m.refreshHeld(ctx)
	return nil
}

// PendingHandPay is the hand-pay the kiosk is locked for (ErrNoHandPay
// when none).
func (o *Office) PendingHandPay(ctx context.Context, s *Session) (HandPay, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the hand-pay"); err != nil {
		return HandPay{}, err
	}
	hp := o.m.HandPay()
	if !hp.Pending() {
		return HandPay{}, ErrNoHandPay
	}
	return hp, nil
}

// PayHandPay records that the staff member at the screen paid the pending
// hand-pay by hand: the credit is debited through the ledger and the
// kiosk unlocks (Machine.PayHandPay); who paid is logged with the role.
func (o *Office) PayHandPay(ctx context.Context, s *Session) (HandPay, store.Entry, error) {
	if err := o.begin(ctx, s, RoleStaff, "pay a hand-pay"); err != nil {
		return HandPay{}, store.Entry{}, err
	}
	hp, e, err := o.m.PayHandPay(ctx, string(s.role))
	if err != nil {
		o.audit(store.LevelWarning, "handpay_refused", "hand-pay %s not recorded for %s: %v", hp.Ref, s.role, err)
		return hp, e, err
	}
	o.audit(store.LevelInfo, "handpay_paid", "hand-pay %s of %s paid by %s, ledger row %d", hp.Ref, hp.Amount.Plain(), s.role, e.ID)
	return hp, e, nil
}

// RecallUnit finds the play that sold a unit, named as its ticket is
// (emission, block, index in the block).
func (o *Office) RecallUnit(ctx context.Context, s *Session, emission, number, unit uint32) (store.Recalled, error) {
	if err := o.begin(ctx, s, RoleStaff, "recall a unit"); err != nil {
		return store.Recalled{}, err
	}
	return o.m.st.RecallUnit(ctx, emission, number, unit)
}

// Replay prepares the replay of a recalled play (NewReplay): it moves no
// money and no meter; that staff watched it is logged.
func (o *Office) Replay(ctx context.Context, s *Session, p store.Play) (*Replay, error) {
	if err := o.begin(ctx, s, RoleStaff, "replay a game"); err != nil {
		return nil, err
	}
	r, err := NewReplay(p)
	if err != nil {
		o.audit(store.LevelWarning, "replay_failed", "play %d cannot be replayed for %s: %v", p.ID, s.role, err)
		return nil, err
	}
	o.audit(store.LevelInfo, "replay", "play %d replayed for %s", p.ID, s.role)
	return r, nil
}
