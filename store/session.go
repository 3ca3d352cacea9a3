package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
)

// A player's session (DESIGN.md §7, "Player protection") is read from the
// ledger, so that no other record can say otherwise and a restart finds
// it as it was: it is the ledger rows after the last moment the credit was
// nothing and no game was on. That moment is the last row whose balance is
// zero, unless it is the stake of a play that is not finished or that won
// (the credit comes back with its prize: the session goes on).

// PlayerSession is the session now, as the player-protection rules see it.
type PlayerSession struct {
	// Since is the last ledger row before the session (0: the ledger's
	// start): the session's name in its facts (PlayerFact). A session
	// with no row yet (the credit is nothing) has Since equal to the
	// ledger's last row.
	Since int64
	// Rows is how many ledger rows the session has: none, no session.
	Rows  int
	Start time.Time // the time of its first row
	// MoneyIn is the notes accepted; MoneyOut what was paid out
	// (vouchers, hand-pays); Staked and Won the plays' stakes and prizes.
	MoneyIn, MoneyOut, Staked, Won game.Money
	Plays                          int
	Credit                         game.Money
}

// Active: the session has begun (a note, a win of a play begun before it).
func (p PlayerSession) Active() bool { return p.Rows > 0 }

// Net is the player's position: what the plays won minus what they
// staked (a negative amount: the player is down). It equals the credit
// plus what was paid out minus the notes put in, staff's corrections
// aside.
func (p PlayerSession) Net() game.Money { return p.Won - p.Staked }

// sessionStart finds the last row before the session: a row that left no
// credit, other than the stake of a play still on or one that won.
const sessionStart = `SELECT l.id FROM ledger l LEFT JOIN plays p ON p.id = l.play_id
	WHERE l.balance_after = 0 AND (l.kind <> 'stake' OR (p.state = 'finished' AND p.prize = 0))
	ORDER BY l.id DESC LIMIT 1`

const sessionSums = `SELECT count(*), coalesce(min(at), 0),
	coalesce(sum(CASE WHEN kind = 'bill_in' THEN amount END), 0),
	coalesce(sum(CASE WHEN kind IN ('voucher_out', 'hand_pay') THEN -amount END), 0),
	coalesce(sum(CASE WHEN kind = 'stake' THEN -amount END), 0),
	coalesce(sum(CASE WHEN kind = 'win' THEN amount END), 0),
	coalesce(sum(CASE WHEN kind = 'stake' THEN 1 END), 0),
	coalesce(max(id), ?)
	FROM ledger WHERE id > ?`

// PlayerSession reads the session now from the ledger. The search for its
// start walks the ledger back from its end: it reads the session's rows.
func (s *Store) PlayerSession(ctx context.Context) (PlayerSession, error) {
	var p PlayerSession
	err := s.read(ctx, func(tx *rtx) error {
		var since int64
		if err := tx.queryRow(sessionStart).Scan(&since); err != nil && !isNoRows(err) {
			return err
		}
		var at, in, out, staked, won, plays, last int64
		if err := tx.queryRow(sessionSums, since, since).Scan(&p.Rows, &at, &in, &out, &staked, &won, &plays, &last); err != nil {
			return err
		}
		var credit int64
		if err := tx.queryRow(`SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1`).Scan(&credit); err != nil && !isNoRows(err) {
			return err
		}
		p.Since = since
		if p.Rows > 0 {
			p.Start = time.Unix(0, at).UTC()
		} else {
			p.Since = last // no row after it: the next session follows the last row
		}
		p.MoneyIn, p.MoneyOut, p.Staked, p.Won = game.Money(in), game.Money(out), game.Money(staked), game.Money(won)
		p.Plays, p.Credit = int(plays), game.Money(credit)
		return nil
	})
	if err != nil {
		return PlayerSession{}, fmt.Errorf("player session: %w", err)
	}
	return p, nil
}

// Player facts are what the player-protection rules record: a limit the
// player set, a reality check shown, a limit reached. Each is a row of the
// settings' chain (a key of its own, valued with the session it belongs
// to), so it is hash-chained, anchored and never rotated away like the
// event log, and its event in the same commit tells the event log and the
// centre. Their counts since the kiosk's start are PlayerFactCounts.
const (
	FactLimitSet     = "player.limit"         // value "<since>:<cents>": the player's limit for that session
	FactRealityCheck = "player.reality_check" // value "<since>:<n>": the n-th reality check of that session shown
	FactLimitReached = "player.limit_reached" // value "<since>:<which>": a limit of that session reached
)

// The events of the player facts (source "player").
const (
	EventLimitSet     = "limit_set"
	EventRealityCheck = "reality_check"
	EventLimitReached = "limit_reached"
)

// PlayerFact records a fact of the session since: the key's value becomes
// "<since>:<value>" and the event says detail. A value equal to the key's
// current one writes nothing and returns false (a limit reached is
// counted once a session).
func (s *Store) PlayerFact(ctx context.Context, key string, since int64, value, detail string) (bool, error) {
	if (key != FactLimitSet && key != FactRealityCheck && key != FactLimitReached) || since < 0 || value == "" || strings.Contains(value, ":") {
		return false, fmt.Errorf("player fact %q = %q: %w", key, value, ErrBadRequest)
	}
	v := strconv.FormatInt(since, 10) + ":" + value
	wrote := false
	err := s.write(ctx, func(t *wtx) error {
		var err error
		if wrote, err = t.setSettingRow("player", key, v); err != nil || !wrote {
			return err
		}
		switch key { // each fact's event, named where it is written
		case FactLimitSet:
			_, err = t.logEvent(LevelInfo, "player", EventLimitSet, detail)
		case FactRealityCheck:
			_, err = t.logEvent(LevelInfo, "player", EventRealityCheck, detail)
		default:
			_, err = t.logEvent(LevelInfo, "player", EventLimitReached, detail)
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("player fact %q: %w", key, err)
	}
	return wrote, nil
}

// SessionFact returns the value of the key for the session since: "" when
// its newest value belongs to another session or it was never set.
func (s *Store) SessionFact(ctx context.Context, key string, since int64) (string, error) {
	v, ok, err := s.Setting(ctx, key)
	if err != nil || !ok {
		return "", err
	}
	sess, val, found := strings.Cut(v, ":")
	if !found || sess != strconv.FormatInt(since, 10) {
		return "", nil
	}
	return val, nil
}

// PlayerFactCounts counts the facts of each key written between from and
// to (zero times: since the start; to excluded), in the kiosk's chain.
func (s *Store) PlayerFactCounts(ctx context.Context, from, to time.Time) (map[string]int64, error) {
	out := map[string]int64{}
	lo, hi := int64(0), int64(1<<63-1)
	if !from.IsZero() {
		lo = from.UnixNano()
	}
	if !to.IsZero() {
		hi = to.UnixNano()
	}
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT key, count(*) FROM settings WHERE key IN (?, ?, ?) AND at >= ? AND at < ? GROUP BY key`,
			FactLimitSet, FactRealityCheck, FactLimitReached, lo, hi)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			out[k] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("player facts: %w", err)
	}
	return out, nil
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
