package kiosk

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/store"
)

// Player protection (DESIGN.md §7): the session's time and the player's
// net position shown while there is credit, a reality check every so many
// minutes of a session, a money limit the player sets, and the operator's
// ceiling on the notes a session takes. The session is the ledger's
// (store.PlayerSession), so a restart finds it as it was; what the rules
// record (a limit set, a check shown, a limit reached) are the store's
// player facts, chained and anchored, each with its event.

// ErrRealityCheck: a play refused while the reality check waits for the
// player's answer.
var ErrRealityCheck = errors.New("the reality check waits for the player")

// ErrLimitRaise: a player's limit can only come down during a session.
var ErrLimitRaise = errors.New("a limit is lowered, never raised, during a session")

// ErrBadLimit: not a limit the kiosk offers.
var ErrBadLimit = errors.New("not a limit the kiosk offers")

// The operator's settings of the protection (kept in the store, applied at
// the next start).
const (
	// SettingRealityMinutes: minutes of a session between two reality
	// checks, 0 for none.
	SettingRealityMinutes = "protection.reality_minutes"
	// SettingSessionCeiling: the most a session's notes may add up to,
	// an amount, 0 for none.
	SettingSessionCeiling = "protection.session_ceiling"
	// SettingPlayerLimits: "on" or "off": the player may set a limit.
	SettingPlayerLimits = "protection.player_limits"
	// SettingSessionDisplay: "on" or "off": the session's time and net
	// position on the player's screens.
	SettingSessionDisplay = "protection.session_display"
)

// The defaults: moderate values, on.
const (
	DefaultRealityEvery   = 30 * time.Minute
	DefaultSessionCeiling = 300 * game.Euro
	realityMinutesHigh    = 240
	realityMinutesLow     = 5
)

// LimitChoices are the limits the player may choose from, in euros; the
// ceiling, when there is one, removes those above it.
var LimitChoices = []game.Money{20 * game.Euro, 50 * game.Euro, 100 * game.Euro, 200 * game.Euro}

// ProtectionConfig are the operator's choices. The zero value is the
// defaults; a negative duration or amount is off.
type ProtectionConfig struct {
	RealityEvery   time.Duration // DefaultRealityEvery; negative: no reality check
	SessionCeiling game.Money    // DefaultSessionCeiling; negative: no ceiling
	NoPlayerLimits bool          // the player may not set a limit
	NoDisplay      bool          // the session's time and net are not shown
}

func (c *ProtectionConfig) fill() {
	if c.RealityEvery == 0 {
		c.RealityEvery = DefaultRealityEvery
	}
	if c.SessionCeiling == 0 {
		c.SessionCeiling = DefaultSessionCeiling
	}
}

// Limit kinds: which limit stops the notes.
const (
	LimitPlayer  = "player"
	LimitCeiling = "ceiling"
)

// ProtectionSnapshot is what the screens show of the protection.
type ProtectionSnapshot struct {
	// Active: a session is on (credit, or a game on); Display: the
	// session's time and net position are shown.
	Active, Display bool
	Played          time.Duration // since the session's first note
	Net             game.Money    // won minus staked: negative when the player is down
	MoneyIn         game.Money    // the session's notes
	// PlayerLimit is the player's limit for this session (or the next,
	// with no credit), 0 for none; Ceiling the operator's, 0 for none.
	PlayerLimit, Ceiling game.Money
	// Limits are the limits the player may choose now (none when the
	// operator turned them off; during a session, only lower ones).
	Limits []game.Money
	// Reached says which limit stops the notes now ("" none).
	Reached string
	// RealityCheck: the reality check waits for the player's answer
	// (DismissRealityCheck, or a cash-out); no play is sold meanwhile.
	RealityCheck bool
	RealityEvery time.Duration // 0: no reality check
}

// protState is the machine's protection; guarded by Machine.mu.
type protState struct {
	sess   store.PlayerSession
	limit  game.Money // the player's limit for sess (0: none)
	checks int        // reality checks shown in sess
	due    bool       // a reality check waits for the player
	// reached is the limit reached this run recorded last ("<since>:<which>"):
	// the ticks after it do not ask the store again.
	reached  string
	loaded   bool // sess was read once
	lastLoad error
}

// refreshSession reads the session from the store and records a reality
// check that falls due and a limit reached; the caller tells the
// listeners. Called at start, at each tick of the machine's clock (Poll)
// and when the player sets a limit; every movement of money reads the
// session with its credit (showBalance), so a tick only has the clock's
// work to do.
func (m *Machine) refreshSession(ctx context.Context) {
	m.ledgerMu.Lock()
	sess, ok := m.loadSessionLocked(ctx)
	m.ledgerMu.Unlock()
	if !ok {
		return
	}
	now := m.clk.Now()
	pc := m.cfg.Protection
	m.mu.Lock()
	checks := m.prot.checks
	dueNow := sess.Active() && pc.RealityEvery > 0 && !m.prot.due &&
		now.Sub(sess.Start) >= time.Duration(checks+1)*pc.RealityEvery
	if dueNow {
		m.prot.due = true
		m.prot.checks++
	}
	reached := m.limitReachedLocked(0)
	n := m.prot.checks
	m.mu.Unlock()
	if dueNow {
		played := now.Sub(sess.Start).Truncate(time.Minute)
		if _, err := m.st.PlayerFact(ctx, store.FactRealityCheck, sess.Since, strconv.Itoa(n),
			fmt.Sprintf("reality check %d: played %s, net %s, notes %s", n, played, sess.Net().Plain(), sess.MoneyIn.Plain())); err != nil && ctx.Err() == nil {
			m.logf(store.LevelError, "reality_check_unrecorded", "reality check %d: %v", n, err)
		}
	}
	if reached != "" && sess.Active() {
		m.recordReached(ctx, sess, reached)
	}
}

// loadSessionLocked reads the session and its facts from the store and
// shows them (no fact is written here). The caller holds ledgerMu: the
// session shown follows the ledger's order, as the credit does (a read
// made before a movement never overwrites one made after it). False: not
// read (a rejected store, an error, logged once).
func (m *Machine) loadSessionLocked(ctx context.Context) (store.PlayerSession, bool) {
	r, ok := m.readSession(ctx)
	if ok {
		m.mu.Lock()
		m.applySessionLocked(r)
		m.mu.Unlock()
	}
	return r.sess, ok
}

// sessionRead is the session and its facts as read from the store.
type sessionRead struct {
	sess   store.PlayerSession
	limit  game.Money
	checks int
}

// readSession reads the session and its facts (the caller holds ledgerMu);
// an error is logged once until a read succeeds again.
func (m *Machine) readSession(ctx context.Context) (sessionRead, bool) {
	m.mu.Lock()
	rejected := m.rejected
	m.mu.Unlock()
	if rejected {
		return sessionRead{}, false
	}
	var r sessionRead
	var err error
	r.sess, err = m.st.PlayerSession(ctx)
	if err == nil {
		r.limit, r.checks, err = m.sessionFacts(ctx, r.sess.Since)
	}
	if err != nil && ctx.Err() != nil {
		return r, false // given up: the kiosk is stopping, the store is not at fault
	}
	m.mu.Lock()
	first := err != nil && m.prot.lastLoad == nil
	m.prot.lastLoad = err
	m.mu.Unlock()
	if first {
		m.logf(store.LevelError, "session_unread", "player session: %v", err)
	}
	return r, err == nil
}

// applySessionLocked shows a session read (the caller holds mu).
func (m *Machine) applySessionLocked(r sessionRead) {
	m.prot.loaded = true
	if r.sess.Since != m.prot.sess.Since || !r.sess.Active() {
		m.prot.due = false // a new session, or none: no check waits
	}
	m.prot.sess, m.prot.limit, m.prot.checks = r.sess, r.limit, r.checks
}

// sessionFacts reads the player's limit and the reality checks shown of
// the session since.
func (m *Machine) sessionFacts(ctx context.Context, since int64) (game.Money, int, error) {
	var limit game.Money
	if m.cfg.Protection.NoPlayerLimits {
		return 0, 0, nil
	}
	v, err := m.st.SessionFact(ctx, store.FactLimitSet, since)
	if err != nil {
		return 0, 0, err
	}
	if v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("player limit %q: not an amount", v)
		}
		limit = game.Money(n)
	}
	c, err := m.st.SessionFact(ctx, store.FactRealityCheck, since)
	if err != nil {
		return 0, 0, err
	}
	checks := 0
	if c != "" {
		if checks, err = strconv.Atoi(c); err != nil || checks < 0 {
			return 0, 0, fmt.Errorf("reality checks %q: not a count", c)
		}
	}
	return limit, checks, nil
}

// recordReached records, once a session, that a limit stops the notes.
func (m *Machine) recordReached(ctx context.Context, sess store.PlayerSession, which string) {
	key := strconv.FormatInt(sess.Since, 10) + ":" + which
	m.mu.Lock()
	limit := m.sessionLimitLocked()
	done := m.prot.reached == key
	m.mu.Unlock()
	if done {
		return
	}
	wrote, err := m.st.PlayerFact(ctx, store.FactLimitReached, sess.Since, which,
		fmt.Sprintf("%s limit %s reached: notes %s in the session", which, limit.Plain(), sess.MoneyIn.Plain()))
	if err != nil {
		if ctx.Err() == nil { // not when given up because the kiosk stops
			m.logf(store.LevelError, "limit_unrecorded", "%s limit reached: %v", which, err)
		}
		return
	}
	m.mu.Lock()
	m.prot.reached = key
	m.mu.Unlock()
	if wrote {
		m.logf(store.LevelInfo, "notes_stopped", "notes refused for the rest of the session: the %s limit of %s", which, limit.Plain())
	}
}

// sessionLimitLocked is the limit the session's notes may reach: the
// lower of the player's and the ceiling; 0 for none.
func (m *Machine) sessionLimitLocked() game.Money {
	l := m.prot.limit
	if c := m.cfg.Protection.SessionCeiling; c > 0 && (l == 0 || c < l) {
		l = c
	}
	return l
}

// limitKindLocked says which limit sessionLimitLocked is.
func (m *Machine) limitKindLocked() string {
	if p := m.prot.limit; p > 0 {
		if c := m.cfg.Protection.SessionCeiling; c <= 0 || p <= c {
			return LimitPlayer
		}
	}
	return LimitCeiling
}

// limitReachedLocked says which limit a note of denom (0: the smallest the
// kiosk takes) would pass, "" if none.
func (m *Machine) limitReachedLocked(denom game.Money) string {
	if denom == 0 {
		denom = m.cash.minNote
	}
	l := m.sessionLimitLocked()
	if l <= 0 || m.prot.sess.MoneyIn+denom <= l {
		return ""
	}
	return m.limitKindLocked()
}

// limitMessageLocked says why notes stop at a limit (Amount: the notes of
// the session, Limit: the limit).
func (m *Machine) limitMessageLocked(note bool) Message {
	code := MsgCashInCeiling
	switch {
	case note && m.limitKindLocked() == LimitPlayer:
		code = MsgNoteOverPlayerLimit
	case note:
		code = MsgNoteOverCeiling
	case m.limitKindLocked() == LimitPlayer:
		code = MsgCashInPlayerLimit
	}
	return Message{Code: code, Amount: m.prot.sess.MoneyIn, Limit: m.sessionLimitLocked()}
}

// escrowOverLimit decides a note in escrow against the session's limit,
// from the ledger as it is now (not the last tick's reading): a refusal
// says why and records the limit reached.
func (m *Machine) escrowOverLimit(ctx context.Context, denom game.Money) (bool, error) {
	m.ledgerMu.Lock()
	sess, ok := m.loadSessionLocked(ctx)
	m.ledgerMu.Unlock()
	if !ok {
		return false, fmt.Errorf("note of %s: the player's session is unreadable", denom.Plain())
	}
	m.mu.Lock()
	which := m.limitReachedLocked(denom)
	msg := m.limitMessageLocked(true)
	m.mu.Unlock()
	if which == "" {
		return false, nil
	}
	m.noteRefused(denom, which+"_limit", msg)
	m.recordReached(ctx, sess, which)
	return true, nil
}

func (m *Machine) protectionSnapshotLocked() ProtectionSnapshot {
	pc := m.cfg.Protection
	s := m.prot.sess
	active := s.Active() || m.gameOnLocked()
	p := ProtectionSnapshot{Active: active && m.prot.loaded, Display: !pc.NoDisplay, Net: s.Net(), MoneyIn: s.MoneyIn,
		PlayerLimit: m.prot.limit, RealityCheck: m.prot.due}
	if p.Active {
		p.Played = m.clk.Now().Sub(s.Start)
		if p.Played < 0 {
			p.Played = 0
		}
	}
	if pc.SessionCeiling > 0 {
		p.Ceiling = pc.SessionCeiling
	}
	if pc.RealityEvery > 0 {
		p.RealityEvery = pc.RealityEvery
	}
	if !pc.NoPlayerLimits && m.prot.loaded {
		for _, l := range LimitChoices {
			if (p.Ceiling == 0 || l <= p.Ceiling) && (!s.Active() || p.PlayerLimit == 0 || l < p.PlayerLimit) {
				p.Limits = append(p.Limits, l)
			}
		}
	}
	if m.prot.loaded {
		p.Reached = m.limitReachedLocked(0)
	}
	return p
}

// SetPlayerLimit sets the most the notes of the player's session may add
// up to: for the session on, or the next one when there is no credit. 0
// takes the limit away, which only a kiosk with no session does. During
// a session a limit only comes down (ErrLimitRaise). Only LimitChoices
// (under the ceiling) are offered (ErrBadLimit).
func (m *Machine) SetPlayerLimit(ctx context.Context, limit game.Money) error {
	if m.cfg.Protection.NoPlayerLimits {
		return fmt.Errorf("player limit %s: %w", limit.Plain(), ErrBadLimit)
	}
	if err := m.setPlayerLimit(ctx, limit); err != nil {
		return err
	}
	m.refreshSession(ctx) // a limit reached by it is recorded
	m.notify()
	return nil
}

// setPlayerLimit checks and records the limit, no money moving between
// the session read and the fact.
func (m *Machine) setPlayerLimit(ctx context.Context, limit game.Money) error {
	m.ledgerMu.Lock()
	defer m.ledgerMu.Unlock()
	sess, err := m.st.PlayerSession(ctx)
	if err != nil {
		return err
	}
	cur, _, err := m.sessionFacts(ctx, sess.Since)
	if err != nil {
		return err
	}
	offered := limit == 0
	for _, l := range LimitChoices {
		c := m.cfg.Protection.SessionCeiling
		offered = offered || (l == limit && (c <= 0 || l <= c))
	}
	m.mu.Lock()
	on := sess.Active() || m.gameOnLocked()
	m.mu.Unlock()
	switch {
	case !offered:
		return fmt.Errorf("player limit %s: %w", limit.Plain(), ErrBadLimit)
	case on && cur > 0 && (limit == 0 || limit >= cur):
		return fmt.Errorf("player limit %s over %s: %w", limit.Plain(), cur.Plain(), ErrLimitRaise)
	case on && limit == 0:
		return fmt.Errorf("player limit taken away: %w", ErrLimitRaise)
	}
	what := "the next session"
	if on {
		what = fmt.Sprintf("the session (notes %s so far)", sess.MoneyIn.Plain())
	}
	detail := fmt.Sprintf("player limit %s for %s", limit.Plain(), what)
	if limit == 0 {
		detail = "player limit taken away before the session"
	}
	if _, err := m.st.PlayerFact(ctx, store.FactLimitSet, sess.Since, strconv.FormatInt(int64(limit), 10), detail); err != nil {
		return err
	}
	m.loadSessionLocked(ctx)
	return nil
}

// DismissRealityCheck is the player's answer "go on playing" to the
// reality check. It returns at once (the screens call it): the event that
// logs it is written off the caller's goroutine.
func (m *Machine) DismissRealityCheck() {
	m.mu.Lock()
	was := m.prot.due
	m.prot.due = false
	n, s := m.prot.checks, m.prot.sess
	m.mu.Unlock()
	if !was {
		return
	}
	m.notify()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		_, _ = m.st.Log(context.WithoutCancel(m.ctx), store.Event{Level: store.LevelInfo, Source: "player", Code: EventRealityDismissed,
			Detail: fmt.Sprintf("reality check %d answered: play on (net %s)", n, s.Net().Plain())})
	}()
}

// EventRealityDismissed: the player answered the reality check "go on".
const EventRealityDismissed = "reality_check_dismissed"

// protectionSettings reads the operator's choices (applySettings).
func protectionSettings(get func(string) (string, bool), c *ProtectionConfig) {
	if v, ok := get(SettingRealityMinutes); ok {
		n, _ := strconv.Atoi(v)
		c.RealityEvery = time.Duration(n) * time.Minute
		if n == 0 {
			c.RealityEvery = -1
		}
	}
	if v, ok := get(SettingSessionCeiling); ok {
		a, _ := game.ParseMoney(v)
		c.SessionCeiling = a
		if a == 0 {
			c.SessionCeiling = -1
		}
	}
	if v, ok := get(SettingPlayerLimits); ok {
		c.NoPlayerLimits = v == "off"
	}
	if v, ok := get(SettingSessionDisplay); ok {
		c.NoDisplay = v == "off"
	}
}

func onOffCheck(v string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v != "on" && v != "off" {
		return "", errors.New("neither on nor off")
	}
	return v, nil
}

func realityCheck(v string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || (n != 0 && (n < realityMinutesLow || n > realityMinutesHigh)) {
		return "", fmt.Errorf("not 0 (none) or a number of minutes from %d to %d", realityMinutesLow, realityMinutesHigh)
	}
	return strconv.Itoa(n), nil
}

func ceilingCheck(v string) (string, error) {
	a, err := game.ParseMoney(v)
	if err != nil || a < 0 || a > MaxCreditBound*10 {
		return "", fmt.Errorf("not 0 (none) or an amount up to %s", (MaxCreditBound * 10).Plain())
	}
	return money(a), nil
}

func onOff(off bool) string {
	if off {
		return "off"
	}
	return "on"
}

// PlayerFactLine names a player-protection count on the reports and the
// meters view.
type PlayerFactLine struct {
	Key     string // store.FactLimitSet, …
	Printed string // on the printed reports (French, as the paper is)
}

// PlayerFactLines are the counts, in the reports' order.
var PlayerFactLines = []PlayerFactLine{
	{store.FactRealityCheck, "Points sur le jeu"},
	{store.FactLimitSet, "Limites fixées"},
	{store.FactLimitReached, "Limites atteintes"},
}

// PlayerFacts counts the player-protection facts since the kiosk's start,
// for the meters view: read as the meters are (a diagnosis session reads
// them too).
func (o *Office) PlayerFacts(ctx context.Context, s *Session) (map[string]int64, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the meters"); err != nil {
		return nil, err
	}
	return o.m.st.PlayerFactCounts(ctx, time.Time{}, time.Time{})
}
