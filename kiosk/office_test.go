package kiosk

import (
	"bytes"
	"context"
	"crypto/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// newOffice is a booted machine with its back office; staff's PIN is
// testStaffPIN, the technician's testTechPIN.
func newOffice(t *testing.T) (*fixture, *Office) {
	f := newFixture(t)
	f.boot()
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	return f, NewOffice(f.m, a, time.Minute)
}

func officeEvents(t *testing.T, f *fixture, code string) []store.Event {
	t.Helper()
	ev, err := f.st.EventsWhere(ctx, store.EventQuery{N: 100, Source: "maintenance"})
	require.NoError(t, err)
	var out []store.Event
	for _, e := range ev {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// printedVoucher issues and confirms a voucher of amount straight in the
// store, as a cash-out would.
func printedVoucher(t *testing.T, f *fixture, amount game.Money) store.Voucher {
	t.Helper()
	f.credit(amount)
	val, err := NewValidation(rand.Reader)
	require.NoError(t, err)
	v, err := f.st.IssueVoucher(ctx, store.VoucherRequest{Amount: amount, Validation: val, Expires: f.clock.Now().Add(72 * time.Hour)})
	require.NoError(t, err)
	v, _, err = f.st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	return v
}

// Staff cannot reach the technician's actions; each refusal is logged with
// the role.
func TestOfficeRoles(t *testing.T) {
	f, o := newOffice(t)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.Equal(t, RoleStaff, staff.Role())

	_, err = o.Meters(ctx, staff)
	require.NoError(t, err)
	_, err = o.Blocks(ctx, staff)
	require.ErrorIs(t, err, ErrNotAllowed)
	_, err = o.ImportBlock(ctx, staff, "x.blk", strings.NewReader("x"))
	require.ErrorIs(t, err, ErrNotAllowed)
	require.ErrorIs(t, o.SetSetting(ctx, staff, "max-credit", "300"), ErrNotAllowed)
	require.ErrorIs(t, o.SetPIN(ctx, staff, RoleTechnician, "111111"), ErrNotAllowed, "staff never change the technician's PIN")
	refused := officeEvents(t, f, "refused")
	require.Len(t, refused, 3)
	assert.Contains(t, refused[0].Detail, "refused to staff")

	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	blocks, err := o.Blocks(ctx, tech)
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes))
	_, err = o.Meters(ctx, tech)
	require.NoError(t, err, "a technician does what staff do")
	require.NoError(t, o.SetSetting(ctx, tech, "venue", "Tabac du Port"))
	set, err := f.st.EventsWhere(ctx, store.EventQuery{Source: "technician"})
	require.NoError(t, err)
	require.Len(t, set, 1, "the setting change is logged with the role")
	assert.Equal(t, store.EventSettingChanged, set[0].Code)
}

// A session nobody touched ends by itself; its actions are then refused.
func TestOfficeIdleLogout(t *testing.T) {
	f, o := newOffice(t)
	s, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	f.clock.Advance(50 * time.Second)
	_, err = o.Meters(ctx, s)
	require.NoError(t, err, "an action keeps the session alive")
	f.clock.Advance(50 * time.Second)
	assert.False(t, o.Expire(ctx, s))
	f.clock.Advance(11 * time.Second)
	assert.True(t, o.Expire(ctx, s))
	_, err = o.Meters(ctx, s)
	require.ErrorIs(t, err, ErrSessionEnded)
	out := officeEvents(t, f, store.EventLogout)
	require.Len(t, out, 1)
	assert.Equal(t, "logout of staff (idle)", out[0].Detail)
}

// A voucher is paid once, typed or scanned with spaces; the second payment
// says when and by whom it was paid; no log line holds a payable number.
func TestOfficePaysAVoucherOnce(t *testing.T) {
	f, o := newOffice(t)
	v := printedVoucher(t, f, 25*game.Euro)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	typed := v.Validation[:6] + " " + v.Validation[6:12] + "-" + v.Validation[12:]
	paid, err := o.PayVoucher(ctx, staff, typed)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPaid, paid.State)
	assert.Equal(t, "staff", paid.PaidBy)

	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	_, err = o.PayVoucher(ctx, tech, v.Validation)
	require.ErrorIs(t, err, store.ErrVoucherPaid)
	assert.ErrorContains(t, err, "by staff")
	m, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(25*game.Euro), m.Get(store.MeterVouchersPaid), "paid once")

	assert.Len(t, officeEvents(t, f, "voucher_paid"), 1)
	require.Len(t, officeEvents(t, f, "voucher_refused"), 1)
	all, err := f.st.EventsWhere(ctx, store.EventQuery{N: 1000})
	require.NoError(t, err)
	for _, e := range all {
		assert.NotContains(t, e.Detail, v.Validation, "event %s", e.Code)
	}
}

// A number whose check digits fail is a typing mistake: refused as such
// (a *MistypedError) by the check and the payment, looked up nowhere, and
// logged without its digits; a number that checks but no voucher carries
// is unknown (store.ErrNotFound). Neither pays anything.
func TestOfficeTellsAMistypedNumberFromAnUnknownOne(t *testing.T) {
	f, o := newOffice(t)
	v := printedVoucher(t, f, 25*game.Euro)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	typo := []byte(v.Validation)
	typo[9] = '0' + (typo[9]-'0'+1)%10
	_, err = o.CheckVoucher(ctx, staff, string(typo))
	var me *MistypedError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, ValidationDigits, me.Digits)
	assert.NotErrorIs(t, err, store.ErrNotFound)
	_, err = o.PayVoucher(ctx, staff, string(typo))
	require.ErrorAs(t, err, &me)
	_, err = o.PayVoucher(ctx, staff, v.Validation[:17])
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 17, me.Digits)

	unknown, err := NewValidation(rand.Reader)
	require.NoError(t, err)
	_, err = o.CheckVoucher(ctx, staff, unknown)
	require.ErrorIs(t, err, store.ErrNotFound)
	assert.NotErrorIs(t, err, ErrBadValidation)
	_, err = o.PayVoucher(ctx, staff, unknown)
	require.ErrorIs(t, err, store.ErrNotFound)

	got, err := f.st.Voucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, got.State, "nothing paid")
	refused := officeEvents(t, f, "voucher_refused")
	require.Len(t, refused, 3)
	for _, e := range refused {
		assert.NotContains(t, e.Detail, string(typo[:12]), "no digits of a mistyped number in the log")
	}
}

// Import from the maintenance screen: a tampered file is refused and
// logged, the good one imported.
func TestOfficeImportsABlock(t *testing.T) {
	f, o := newOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake100, 99, nil))
	good := buf.Bytes()
	bad := append([]byte{}, good...)
	bad[len(bad)/2] ^= 1
	_, err = o.ImportBlock(ctx, tech, "/media/usb/bad.blk", bytes.NewReader(bad))
	require.Error(t, err)
	refused := officeEvents(t, f, "import_refused")
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].Detail, "bad.blk")
	b, err := o.ImportBlock(ctx, tech, "/media/usb/good.blk", bytes.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, uint32(99), b.Number)
	assert.Len(t, officeEvents(t, f, "import"), 1)
}

// A note held for staff (a power cut after STACK) shows on the validator's
// status until staff credit it, at its recorded value, or close it.
func TestOfficeSettlesHeldNotes(t *testing.T) {
	f, _ := newOffice(t)
	hold := func(denom game.Money) store.BillIntent {
		t.Helper()
		in, err := kiosktest.HoldNote(ctx, f.st, denom)
		require.NoError(t, err)
		return in
	}
	a, b := hold(20*game.Euro), hold(10*game.Euro)
	f.restart()
	o := NewOffice(f.m, NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF}), time.Minute)
	assert.NotEmpty(t, f.m.Snapshot().Cash.Validator.Warning, "held notes are shown to staff")
	credit := f.m.Snapshot().Credit

	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	held, err := o.HeldNotes(ctx, staff)
	require.NoError(t, err)
	require.Len(t, held, 2)
	_, err = o.CreditHeldNote(ctx, staff, a.ID, " ")
	require.ErrorIs(t, err, store.ErrBadRequest, "a reason is required")
	e, err := o.CreditHeldNote(ctx, staff, a.ID, "found in the cash box")
	require.NoError(t, err)
	assert.Equal(t, 20*game.Euro, e.Amount, "credited at its recorded value")
	assert.Equal(t, credit+20*game.Euro, f.m.Snapshot().Credit)
	_, err = o.CreditHeldNote(ctx, staff, a.ID, "again")
	require.ErrorIs(t, err, store.ErrIntentState, "never twice")

	require.ErrorIs(t, o.CloseHeldNote(ctx, staff, b.ID, ""), store.ErrBadRequest)
	require.NoError(t, o.CloseHeldNote(ctx, staff, b.ID, "not in the cash box"))
	assert.Equal(t, credit+20*game.Euro, f.m.Snapshot().Credit)
	assert.Empty(t, f.m.Snapshot().Cash.Validator.Warning, "no note held any more")
	held, err = o.HeldNotes(ctx, staff)
	require.NoError(t, err)
	assert.Empty(t, held)
	ev, err := f.st.EventsWhere(ctx, store.EventQuery{N: 100, Source: "staff"})
	require.NoError(t, err)
	require.Len(t, ev, 2)
	assert.Contains(t, ev[0].Detail, "not in the cash box (staff)")
	assert.Contains(t, ev[1].Detail, "found in the cash box (staff)")
}

// A voucher's paid step cut while the kiosk runs (by whoever holds the
// file) is not paid a second time: the payout checks the anchored heads,
// and the kiosk goes out of service.
func TestOfficeRefusesAPayoutBehindItsAnchor(t *testing.T) {
	f := newAnchoredFixture(t)
	f.boot()
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, time.Minute)
	v := printedVoucher(t, f, 25*game.Euro)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = o.PayVoucher(ctx, staff, v.Validation)
	require.NoError(t, err)

	editDB(t, f.path, `DROP TRIGGER voucher_steps_no_delete; DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward;
		DELETE FROM voucher_steps WHERE id = (SELECT max(id) FROM voucher_steps);
		UPDATE vouchers SET state = 'printed', paid_at = NULL WHERE id = ?`, v.ID)
	_, err = o.PayVoucher(ctx, staff, v.Validation)
	require.ErrorIs(t, err, store.ErrAnchor, "paid twice")
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultAnchor, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "voucher_steps")
}

// Sessions are made by a successful login only: a Session built by hand
// (empty, or with a live session's fields copied) is refused by every
// method of the back office that takes one, and changes nothing.
func TestHandBuiltSessionRefusedByEveryOfficeMethod(t *testing.T) {
	f, o := newOffice(t)
	live, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	meters, err := f.st.Meters(ctx)
	require.NoError(t, err)
	now := f.clock.Now()
	forged := map[string]func() *Session{
		"empty":               func() *Session { return &Session{} },
		"a live one's fields": func() *Session { return &Session{role: live.role, since: live.since, last: now} },
	}
	f.clock.Advance(time.Second) // a touch would show
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	sessType := reflect.TypeOf((*Session)(nil))
	methods := 0
	typ := reflect.TypeOf(o)
	for i := 0; i < typ.NumMethod(); i++ {
		m := typ.Method(i)
		takes := false
		for j := 1; j < m.Type.NumIn(); j++ {
			takes = takes || m.Type.In(j) == sessType
		}
		if !takes {
			continue
		}
		methods++
		for name, build := range forged {
			t.Run(m.Name+"/"+name, func(t *testing.T) {
				s := build()
				before := s.last
				args := []reflect.Value{reflect.ValueOf(o)}
				for j := 1; j < m.Type.NumIn(); j++ {
					switch in := m.Type.In(j); {
					case in == ctxType:
						args = append(args, reflect.ValueOf(ctx))
					case in == sessType:
						args = append(args, reflect.ValueOf(s))
					default:
						args = append(args, reflect.Zero(in))
					}
				}
				out := m.Func.Call(args)
				switch m.Name {
				case "Touch":
					assert.Equal(t, before, s.last, "not touched")
				case "Expire":
					assert.True(t, out[0].Bool(), "a hand-built session is no live one")
				default:
					err, _ := out[len(out)-1].Interface().(error)
					assert.ErrorIs(t, err, ErrSessionEnded)
				}
			})
		}
	}
	assert.GreaterOrEqual(t, methods, 40, "every method that takes a session")
	after, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, meters, after)
	assert.False(t, f.m.Snapshot().Maintenance)
	assert.True(t, o.a.alive(live), "the live session is untouched")
	assert.NotEmpty(t, officeEvents(t, f, "refused"), "each refusal is logged")
}

// The last voucher, as the duplicate's view shows it before printing:
// number, amount, time, masked number, and what became of it. A duplicate
// refused names the voucher and its state: paid (when, by whom), expired
// (past its date, even before the kiosk marks it).
func TestOfficeLastVoucherAndWhyNoDuplicate(t *testing.T) {
	f, d, o := newCashOffice(t)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = o.LastVoucher(ctx, staff)
	require.ErrorIs(t, err, ErrNoVoucher)

	cashOut := func(n game.Money) VoucherInfo {
		t.Helper()
		insertAll(t, f, d, n)
		waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashOut }, "cash-out possible")
		v, err := f.m.CashOut(ctx)
		require.NoError(t, err)
		return v
	}
	first := cashOut(10 * game.Euro)
	last, err := o.LastVoucher(ctx, staff)
	require.NoError(t, err)
	assert.Equal(t, first.Number, last.Number)
	assert.Equal(t, 10*game.Euro, last.Amount)
	assert.Equal(t, first.Issued, last.Issued)
	assert.Equal(t, first.Masked(), last.Masked())
	assert.Equal(t, store.VoucherPrinted, last.State)
	assert.True(t, last.Payable)

	v, err := f.st.Voucher(ctx, first.Number)
	require.NoError(t, err)
	f.clock.Advance(time.Minute)
	_, err = o.PayVoucher(ctx, staff, v.Validation)
	require.NoError(t, err)
	_, err = o.ReprintLast(ctx, staff)
	var rr *ReprintRefusal
	require.ErrorAs(t, err, &rr)
	require.ErrorIs(t, err, ErrNoVoucher)
	assert.Equal(t, first.Number, rr.Voucher.Number)
	assert.Equal(t, store.VoucherPaid, rr.Voucher.State)
	assert.Equal(t, f.clock.Now().In(f.m.Location()), rr.Voucher.Paid)
	assert.Equal(t, "staff", rr.Voucher.PaidBy)

	second := cashOut(5 * game.Euro)
	f.clock.Advance(DefaultVoucherValidity + time.Minute)
	staff, err = o.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = o.ReprintLast(ctx, staff)
	require.ErrorAs(t, err, &rr)
	assert.Equal(t, second.Number, rr.Voucher.Number)
	assert.True(t, rr.Voucher.Expired(), "past its date: expired")
	assert.Equal(t, second.Expires, rr.Voucher.Expires)
	assert.ErrorContains(t, err, "is expired")
}
