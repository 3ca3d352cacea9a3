package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pharaon/game"
)

// The hand-pay lock (DESIGN.md §7): a win or a cash-out above the kiosk's
// hand-pay limit locks it until staff pay the player by hand. The lock is
// the setting SettingHandPayLock (HandPayLock as JSON, empty when there is
// none). It is written in the commit that makes it due, never after it:
// FinishPlay writes a win's lock with the prize (FinishInfo.HandPayLimit),
// and HandPay clears the lock it pays with the payment's ledger row, so no
// crash leaves a big win unlocked or a paid hand-pay locked.

// SettingHandPayLock is the setting holding the pending hand-pay lock.
const SettingHandPayLock = "handpay.lock"

// sourceKiosk is the source of the lock's setting changes: the kiosk's
// own, not a technician's.
const sourceKiosk = "kiosk"

// EventHandPayLocked is the event of a hand-pay lock.
const EventHandPayLocked = "handpay_locked"

// Causes of a hand-pay.
const (
	HandPayWin     = "win"      // a play won more than the limit
	HandPayCashOut = "cash_out" // the player cashed out more than the limit
)

// HandPayLock is a pending hand-pay: what staff pay the player, and why.
type HandPayLock struct {
	Ref    string     `json:"ref"`    // the ledger reference of its payment: "win-12", "cashout-345"
	Cause  string     `json:"cause"`  // HandPayWin or HandPayCashOut
	Amount game.Money `json:"amount"` // the whole credit when it locked
	PlayID int64      `json:"play,omitempty"`
	At     time.Time  `json:"at"`
}

// Pending reports whether the kiosk is locked for this hand-pay.
func (h HandPayLock) Pending() bool { return h.Amount > 0 }

// Encode is the lock as the setting keeps it.
func (h HandPayLock) Encode() string {
	b, _ := json.Marshal(h) // a struct of plain fields always encodes
	return string(b)
}

// WinHandPayRef is the reference of the hand-pay of play id's win.
func WinHandPayRef(id int64) string { return fmt.Sprintf("win-%d", id) }

// ParseHandPayLock reads a lock as the setting keeps it ("" is no lock).
func ParseHandPayLock(v string) (HandPayLock, error) {
	var h HandPayLock
	if v == "" {
		return h, nil
	}
	if err := json.Unmarshal([]byte(v), &h); err != nil || !h.Pending() || h.Ref == "" {
		return HandPayLock{}, fmt.Errorf("hand-pay lock %q unreadable (%v): %w", v, err, ErrIntegrity)
	}
	return h, nil
}

// HandPayLock returns the pending hand-pay lock (zero when there is none).
func (s *Store) HandPayLock(ctx context.Context) (HandPayLock, error) {
	v, _, err := s.Setting(ctx, SettingHandPayLock)
	if err != nil {
		return HandPayLock{}, err
	}
	return ParseHandPayLock(v)
}

// handPayLock reads the lock in a write transaction.
func (t *wtx) handPayLock() (HandPayLock, error) {
	var v string
	err := t.rowQ(settingQuery, SettingHandPayLock).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return HandPayLock{}, nil
	}
	if err != nil {
		return HandPayLock{}, err
	}
	return ParseHandPayLock(v)
}

// lockWin writes the hand-pay lock of finished play p's prize, above
// limit: the whole credit after the prize (p.Balance).
func (t *wtx) lockWin(p *Play, limit game.Money) (HandPayLock, error) {
	prev, err := t.handPayLock()
	if err != nil {
		return HandPayLock{}, err
	}
	h := HandPayLock{Ref: WinHandPayRef(p.ID), Cause: HandPayWin, Amount: p.Balance, PlayID: p.ID, At: time.Unix(0, t.now).UTC()}
	if err := t.setSetting(sourceKiosk, SettingHandPayLock, h.Encode()); err != nil {
		return HandPayLock{}, fmt.Errorf("hand-pay lock: %w", err)
	}
	detail := fmt.Sprintf("play %d won %s, above the hand-pay limit %s: locked for staff to pay %s (%s)",
		p.ID, p.Prize.Plain(), limit.Plain(), h.Amount.Plain(), h.Ref)
	if prev.Pending() {
		detail += fmt.Sprintf("; replaces the lock %s of %s, which this amount includes", prev.Ref, prev.Amount.Plain())
	}
	if _, err := t.logEvent(LevelWarning, sourceKiosk, EventHandPayLocked, detail); err != nil {
		return HandPayLock{}, err
	}
	return h, nil
}
