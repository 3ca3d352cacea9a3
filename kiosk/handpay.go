package kiosk

import (
	"context"
	"errors"
	"fmt"

	"pharaon/game"
	"pharaon/store"
)

// The hand-pay lock (DESIGN.md §7). A win above the hand-pay limit, or a
// cash-out of a credit above it, is not left on the kiosk for a voucher:
// the kiosk locks, its player screen says to call the staff with the
// amount, and nothing sells, takes notes or prints until staff record in
// maintenance that they paid it (Office.PayHandPay). The payment debits
// that amount through the ledger (store.HandPay, its reference used once)
// and ends the lock in the same commit. The lock is kept in the store, and
// a win's lock is written in the commit that credits the win
// (store.FinishInfo.HandPayLimit), so no restart, wherever it falls, finds
// a big win without its lock or a paid hand-pay still locked.

const (
	// DefaultHandPayLimit is 1 500 €, the default payout limit: the
	// largest amount a shop pays at its counter. Above it a voucher
	// would send the player to a payment centre with a bearer paper; the
	// kiosk keeps the amount instead and staff take the player in hand
	// at once (and the lock stops a large credit from being played on
	// or walked away from). Wins of 3 750 €, 7 500 € and 15 000 €
	// (three birds) and 2 000 € (three scarabs at 2 €) lock with it.
	DefaultHandPayLimit = 1500 * game.Euro
	// settingHandPayLock keeps the pending hand-pay (JSON), empty when
	// there is none.
	settingHandPayLock = store.SettingHandPayLock
)

// Causes of a hand-pay.
const (
	HandPayWin     = store.HandPayWin     // a play won more than the limit
	HandPayCashOut = store.HandPayCashOut // the player cashed out more than the limit
)

var (
	// ErrHandPay: the kiosk is locked until staff pay the player by hand
	// (Snapshot.HandPay says how much).
	ErrHandPay = errors.New("kiosk locked for a staff hand-pay")
	// ErrNoHandPay: no hand-pay is pending.
	ErrNoHandPay = errors.New("no hand-pay pending")
)

// HandPay is a pending hand-pay: what staff pay the player, and why
// (Pending reports whether the kiosk is locked for it).
type HandPay = store.HandPayLock

// handPayState is the machine's hand-pay; guarded by Machine.mu.
type handPayState struct {
	limit   game.Money
	pending HandPay
}

// HandPayLimit is the hand-pay limit in force.
func (m *Machine) HandPayLimit() game.Money {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hp.limit
}

// HandPay is the pending hand-pay (zero when the kiosk is not locked).
func (m *Machine) HandPay() HandPay {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hp.pending
}

func (m *Machine) handPayLockedLocked() bool { return m.hp.pending.Pending() }

// loadHandPay reads the limit and the pending hand-pay at start. A win's
// lock is committed with the win (store.FinishInfo.HandPayLimit), so the
// store's lock is all there is to read.
func (m *Machine) loadHandPay(ctx context.Context) error {
	limit := m.cfg.Cash.HandPayLimit
	warn := func(format string, args ...any) { m.logf(store.LevelWarning, "bad_setting", format, args...) }
	if a, ok := m.amountSetting(ctx, SettingHandPayLimit, PayoutLimitBound, warn); ok {
		limit = a
	}
	hp, err := m.st.HandPayLock(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.hp = handPayState{limit: limit, pending: hp}
	m.mu.Unlock()
	return nil
}

// finishHandPayLimit is the limit a play's finish locks above
// (store.FinishInfo.HandPayLimit): always above 0, the configuration's
// (CashConfig.fill refuses a negative one and fills 0 with the default) or
// the store's setting (amountSetting takes only an amount above 0).
func (m *Machine) finishHandPayLimit() game.Money {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hp.limit
}

// lockHandPay keeps a cash-out's hp in the store (a win's is kept by its
// finish); the caller shows it (m.hp.pending) once kept.
func lockHandPay(ctx context.Context, st *store.Store, hp HandPay) error {
	return st.SetSetting(ctx, "kiosk", settingHandPayLock, hp.Encode())
}

// cashOutHandPay locks the kiosk instead of printing a voucher when the
// credit is above the limit. It reports whether it did (err then says
// ErrHandPay, or why the lock could not be kept).
func (m *Machine) cashOutHandPay(ctx context.Context) (bool, error) {
	m.mu.Lock()
	switch {
	case m.hp.pending.Pending():
		m.mu.Unlock()
		return true, fmt.Errorf("cash out: %w", ErrHandPay)
	case m.hp.limit <= 0 || m.credit <= m.hp.limit:
		m.mu.Unlock()
		return false, nil
	case m.cash.stopped.Load() || m.state == OutOfService:
		m.mu.Unlock()
		return true, fmt.Errorf("cash out: %w", ErrOutOfService)
	case m.starting || m.gameOnLocked() || m.cash.cashingOut:
		m.mu.Unlock()
		return true, fmt.Errorf("cash out: %w", ErrBusy)
	case m.cash.noteInPath:
		m.mu.Unlock()
		return true, fmt.Errorf("cash out: a bank note is on its way: %w", ErrBusy)
	}
	m.cash.cashingOut = true // nothing sells or takes notes while the lock is written
	m.mu.Unlock()
	defer m.update(func() { m.cash.cashingOut = false })

	m.ledgerMu.Lock()
	defer m.ledgerMu.Unlock()
	credit, err := m.st.Credit(ctx)
	if err != nil {
		return true, fmt.Errorf("cash out: %w", err)
	}
	m.mu.Lock()
	limit := m.hp.limit
	m.mu.Unlock()
	if credit <= limit {
		return false, nil // the ledger moved meanwhile (not by this kiosk's own movements)
	}
	last, err := m.st.Entries(ctx, 1, 0)
	if err != nil || len(last) == 0 {
		return true, fmt.Errorf("cash out: read the ledger: %w", err)
	}
	hp := HandPay{Ref: fmt.Sprintf("cashout-%d", last[0].ID), Cause: HandPayCashOut, Amount: credit, At: m.clk.Now()}
	if err := lockHandPay(ctx, m.st, hp); err != nil {
		return true, fmt.Errorf("cash out: keep the hand-pay lock: %w", err)
	}
	m.mu.Lock()
	m.hp.pending = hp
	m.mu.Unlock()
	m.logf(store.LevelWarning, "handpay_locked", "cash-out of %s above the hand-pay limit %s: locked for staff (%s)", credit.Plain(), limit.Plain(), hp.Ref)
	return true, fmt.Errorf("cash out %s: %w", credit.Plain(), ErrHandPay)
}

// PayHandPay records that staff (by names the role) paid the pending
// hand-pay by hand: its amount is debited in one ledger row (store.HandPay,
// the hand-pay's reference used once, so a payment recorded twice debits
// once) in the commit that ends the lock, and the kiosk goes home. It returns the
// hand-pay and its ledger row.
func (m *Machine) PayHandPay(ctx context.Context, by string) (HandPay, store.Entry, error) {
	m.mu.Lock()
	hp := m.hp.pending
	m.mu.Unlock()
	if !hp.Pending() {
		return HandPay{}, store.Entry{}, ErrNoHandPay
	}
	m.ledgerMu.Lock()
	// The payment's row ends the lock in its own commit (store.HandPay): a
	// reference already paid under a lock still kept is data edited, which
	// the store refuses (ErrDuplicateRef) and nothing here takes as paid.
	e, err := m.st.HandPay(ctx, hp.Amount, hp.Ref)
	if err == nil {
		m.showBalance(e.Balance)
	}
	m.ledgerMu.Unlock()
	if err != nil {
		return hp, store.Entry{}, fmt.Errorf("hand-pay %s of %s: %w", hp.Ref, hp.Amount.Plain(), err)
	}
	m.logf(store.LevelInfo, "handpay_paid", "hand-pay %s of %s paid by %s, ledger row %d", hp.Ref, hp.Amount.Plain(), by, e.ID)
	m.update(func() {
		m.hp.pending = HandPay{}
		if m.state == Result {
			m.state = Home
		}
	})
	return hp, e, nil
}
