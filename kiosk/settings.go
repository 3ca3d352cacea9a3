package kiosk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// The settings a technician changes on the maintenance screen (DESIGN.md
// §7). Each is checked before it is written: a bad value is refused (a
// SettingError: its key, its value and why, which the maintenance screen
// says in words from its own catalogue), logged, and nothing changes; a good one is
// written in its canonical form and logged with its old and new value
// (store.SetSetting). They apply at the next start, as the cash settings.

// More settings kept in the store.
const (
	SettingVenue    = "venue"           // the shop's name and address
	SettingLanguage = "screen.language" // "fr" or "en": the language the screens start in
	// SettingHandPayLimit: an amount from 0,01 € to PayoutLimitBound; a win
	// or a cash-out above it locks the kiosk for staff (handpay.go), read
	// at start.
	SettingHandPayLimit  = "handpay.limit"
	SettingIdleSeconds   = "screen.idle_seconds" // the result screen's idle return home, in seconds
	SettingAutoSeconds   = "game.auto_seconds"   // idle time before a Jouer game goes on in Auto, in seconds
	SettingAcceptedNotes = "cash.accepted_notes" // the notes taken, in euros: "5,10,20,50"
	defaultAcceptedNotes = "5,10,20,50"          // id003.DefaultEnabled
	maxSettingRunes      = 120                   // a venue's name and address fit on three printed lines
	secondsLow, idleHigh = 5, 600                // the idle return home: 5 s to 10 min
	autoHigh             = 120                   // the Auto hand-over: up to 2 min
	validityHigh         = 3660                  // the longest voucher validity, in days
)

// Setting describes one setting for the screen: the screen holds the
// words of each Key (its name, what a value must be, why one is refused).
type Setting struct {
	Key string
	// Low and High are the bounds a value must keep, for the screen's
	// words: cents for an amount (SettingMaxCredit, SettingPayoutLimit,
	// SettingHandPayLimit), seconds, days, or characters for the kiosk id
	// and the venue; both 0 for a setting without bounds.
	Low, High int64
	// Value is the current value (the configuration's when the store has
	// none: Set is false).
	Value string
	Set   bool
	check func(string) (string, error)
	def   func(m *Machine) string
}

// SettingReason is why a setting's value is refused.
type SettingReason uint8

const (
	// SettingOutOfBounds: the value is not one the setting takes (the
	// screen says what it must be).
	SettingOutOfBounds SettingReason = iota + 1
	// SettingUnknown: no setting has the key.
	SettingUnknown
)

// SettingError is a value refused: Reason says why, for the screen's
// words; Err says it for the log.
type SettingError struct {
	Key, Value string
	Reason     SettingReason
	Err        error
}

func (e *SettingError) Error() string {
	why := "unknown setting"
	if e.Err != nil {
		why = e.Err.Error()
	}
	return fmt.Sprintf("setting %s = %q refused: %s", e.Key, e.Value, why)
}

func (e *SettingError) Unwrap() error { return ErrBadSetting }

func amountCheck(low, high game.Money) func(string) (string, error) {
	return func(v string) (string, error) {
		a, err := game.ParseMoney(v)
		if err != nil || a < low || a > high {
			return "", fmt.Errorf("not an amount from %s to %s", low.Plain(), high.Plain())
		}
		return money(a), nil
	}
}

func secondsCheck(low, high int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < low || n > high {
			return "", fmt.Errorf("not a number of seconds from %d to %d", low, high)
		}
		return strconv.Itoa(n), nil
	}
}

// settings are the settings, in the screen's order.
var settings = []Setting{
	{Key: SettingKioskID, Low: 1, High: KioskIDMaxLen,
		check: func(v string) (string, error) {
			v = strings.TrimSpace(v)
			return v, CheckKioskID(v)
		},
		def: func(m *Machine) string { return m.cfg.KioskID }},
	{Key: SettingVenue, Low: 1, High: maxSettingRunes,
		check: func(v string) (string, error) {
			v = strings.Join(strings.Fields(v), " ")
			if v == "" || utf8.RuneCountInString(v) > maxSettingRunes {
				return "", fmt.Errorf("not 1 to %d characters", maxSettingRunes)
			}
			return v, nil
		},
		def: func(m *Machine) string { return m.cfg.Venue }},
	{Key: SettingLanguage,
		check: func(v string) (string, error) {
			v = strings.ToLower(strings.TrimSpace(v))
			if v != "fr" && v != "en" {
				return "", errors.New("neither fr nor en")
			}
			return v, nil
		},
		def: func(*Machine) string { return "fr" }},
	{Key: SettingMaxCredit, Low: 1, High: int64(MaxCreditBound),
		check: amountCheck(game.Money(1), MaxCreditBound), def: func(m *Machine) string { return money(m.cfg.Cash.MaxCredit) }},
	{Key: SettingPayoutLimit, Low: 1, High: int64(PayoutLimitBound),
		check: amountCheck(game.Money(1), PayoutLimitBound), def: func(m *Machine) string { return money(m.cfg.Cash.PayoutLimit) }},
	{Key: SettingHandPayLimit, Low: 1, High: int64(PayoutLimitBound),
		check: amountCheck(game.Money(1), PayoutLimitBound), def: func(m *Machine) string { return money(m.cfg.Cash.HandPayLimit) }},
	{Key: SettingIdleSeconds, Low: secondsLow, High: idleHigh,
		check: secondsCheck(secondsLow, idleHigh), def: func(m *Machine) string { return strconv.Itoa(int(m.cfg.ResultTimeout.Seconds())) }},
	{Key: SettingAutoSeconds, Low: secondsLow, High: autoHigh,
		check: secondsCheck(secondsLow, autoHigh), def: func(m *Machine) string { return strconv.Itoa(int(m.cfg.Engine.IdleTicks) / breakout.TicksPerSecond) }},
	{Key: SettingAcceptedNotes,
		check: notesCheck, def: func(m *Machine) string { return acceptedNotes(m) }},
	{Key: SettingVoucherValidity, Low: 1, High: validityHigh,
		check: func(v string) (string, error) {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 || n > validityHigh {
				return "", fmt.Errorf("not a number of days from 1 to %d", validityHigh)
			}
			return strconv.Itoa(n), nil
		},
		def: func(m *Machine) string { return strconv.Itoa(int(m.cfg.Cash.VoucherValidity.Hours() / 24)) }},
	{Key: SettingRealityMinutes, Low: realityMinutesLow, High: realityMinutesHigh, check: realityCheck,
		def: func(m *Machine) string { return strconv.Itoa(int(max(m.cfg.Protection.RealityEvery, 0).Minutes())) }},
	{Key: SettingSessionCeiling, Low: 0, High: int64(MaxCreditBound * 10), check: ceilingCheck,
		def: func(m *Machine) string { return money(max(m.cfg.Protection.SessionCeiling, 0)) }},
	{Key: SettingPlayerLimits, check: onOffCheck, def: func(m *Machine) string { return onOff(m.cfg.Protection.NoPlayerLimits) }},
	{Key: SettingSessionDisplay, check: onOffCheck, def: func(m *Machine) string { return onOff(m.cfg.Protection.NoDisplay) }},
}

// money writes an amount as a setting holds it: "1500,00".
func money(a game.Money) string { return fmt.Sprintf("%d,%02d", a/100, a%100) }

// notesCheck reads a list of euro notes: "5, 10,20 50".
func notesCheck(v string) (string, error) {
	bad := errors.New("not notes among 5, 10, 20, 50, 100, 200, 500, separated by commas")
	var notes []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }) {
		n, err := strconv.Atoi(strings.TrimSuffix(f, "€"))
		if err != nil || !slices.Contains(store.Banknotes(), game.Money(n)*game.Euro) {
			return "", bad
		}
		if !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		return "", bad
	}
	slices.Sort(notes)
	parts := make([]string, len(notes))
	for i, n := range notes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ","), nil
}

func acceptedNotes(m *Machine) string {
	acc := m.cfg.Cash.Validator.Accept
	if len(acc) == 0 {
		return defaultAcceptedNotes
	}
	parts := make([]string, len(acc))
	for i, c := range acc {
		parts[i] = strconv.FormatInt(c/100, 10)
	}
	return strings.Join(parts, ",")
}

// CheckSetting checks value for key and returns it as it is kept; a
// *SettingError (ErrBadSetting) says why it is refused.
func CheckSetting(key, value string) (string, error) {
	for _, s := range settings {
		if s.Key != key {
			continue
		}
		v, err := s.check(value)
		if err != nil {
			return "", &SettingError{Key: key, Value: value, Reason: SettingOutOfBounds, Err: err}
		}
		return v, nil
	}
	return "", &SettingError{Key: key, Value: value, Reason: SettingUnknown}
}

// SettingKeys are the settings' keys, in the screen's order.
func SettingKeys() []string {
	keys := make([]string, len(settings))
	for i, s := range settings {
		keys[i] = s.Key
	}
	return keys
}

// SettingBounds are the bounds of key's values (Setting.Low, High); 0, 0
// for a setting without bounds or no setting.
func SettingBounds(key string) (low, high int64) {
	for _, s := range settings {
		if s.Key == key {
			return s.Low, s.High
		}
	}
	return 0, 0
}

// Settings lists the settings with their current values.
func (o *Office) Settings(ctx context.Context, s *Session) ([]Setting, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the settings"); err != nil {
		return nil, err
	}
	kept, err := o.m.st.Settings(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Setting, len(settings))
	for i, st := range settings {
		st.Value, st.Set = kept[st.Key]
		if !st.Set {
			st.Value = st.def(o.m)
		}
		st.check, st.def = nil, nil
		out[i] = st
	}
	return out, nil
}

// SetSetting changes a setting after checking its value (CheckSetting): a
// refusal is logged with the role and changes nothing; a change is logged
// by the store with the old and new value and the role.
func (o *Office) SetSetting(ctx context.Context, s *Session, key, value string) error {
	if err := o.begin(ctx, s, RoleTechnician, "change "+key); err != nil {
		return err
	}
	v, err := CheckSetting(key, value)
	if err != nil {
		o.audit(store.LevelWarning, "setting_refused", "%v (by %s)", err, s.role)
		return err
	}
	return o.m.st.SetSetting(ctx, string(s.role), key, v)
}

// applySettings puts the settings the store keeps over cfg (the
// maintenance screen's changes apply at the next start): the kiosk's id
// and venue, the result's idle return home, the Auto hand-over, the notes
// taken. A value that no longer passes its check is logged and ignored.
// The cash limits are read later by readCashSettings; the language and the
// hand-pay limit by those who use them.
func applySettings(st *store.Store, cfg *Config) {
	if st == nil {
		return
	}
	ctx := context.Background()
	kept, err := st.Settings(ctx)
	if err != nil {
		return // the boot check says what is wrong with the store
	}
	get := func(key string) (string, bool) {
		v, ok := kept[key]
		if !ok {
			return "", false
		}
		c, err := CheckSetting(key, v)
		if err != nil {
			_, _ = st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "kiosk", Code: "bad_setting",
				Detail: fmt.Sprintf("%v: ignored", err)})
			return "", false
		}
		return c, true
	}
	if v, ok := get(SettingKioskID); ok {
		cfg.KioskID = v
	}
	if v, ok := get(SettingVenue); ok {
		cfg.Venue = v
	}
	if v, ok := get(SettingLanguage); ok {
		cfg.Language = v
	}
	if v, ok := get(SettingIdleSeconds); ok {
		n, _ := strconv.Atoi(v)
		cfg.ResultTimeout = time.Duration(n) * time.Second
	}
	if v, ok := get(SettingAutoSeconds); ok {
		n, _ := strconv.Atoi(v)
		if cfg.Engine == (breakout.Settings{}) {
			cfg.Engine = breakout.DefaultSettings()
		}
		cfg.Engine.IdleTicks = n * breakout.TicksPerSecond
	}
	protectionSettings(get, &cfg.Protection)
	if v, ok := get(SettingAcceptedNotes); ok {
		var acc []int64
		for _, e := range strings.Split(v, ",") {
			n, _ := strconv.ParseInt(e, 10, 64)
			acc = append(acc, n*100)
		}
		cfg.Cash.Validator.Accept = acc
	}
}
