package kiosk

import (
	"context"
	"fmt"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// HistoryEntry is one past game as the player's history shows it (Art. 4.1:
// a player who missed the end of a game reads its result there).
type HistoryEntry struct {
	PlayID int64
	// Time is when the game was bought, in the kiosk's time zone
	// (Config.Location), the zone its vouchers are printed in: every time
	// a player or a clerk reads is on one clock.
	Time  time.Time
	Stake game.Stake
	Mode  breakout.Mode
	// EndedInAuto: a Jouer game that went on in Auto (the player asked, or
	// left it idle); known when the history read the play's recording
	// (PlayerHistory).
	EndedInAuto bool
	Finished    bool
	// Outcome is the unit's outcome, once the game is finished (an
	// unfinished game is resumed and finished at the next start).
	Outcome game.Outcome
	// Won is what was credited.
	Won game.Money
}

// Location is the kiosk's time zone (Config.Location, Europe/Paris by
// default): the zone of every time it shows or prints.
func (m *Machine) Location() *time.Location { return m.cfg.Location }

// History returns the last n games, newest first.
func (m *Machine) History(ctx context.Context, n int) ([]HistoryEntry, error) {
	plays, err := m.st.LastPlays(ctx, n, 0)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	out := make([]HistoryEntry, 0, len(plays))
	for _, p := range plays {
		out = append(out, m.historyEntry(p))
	}
	return out, nil
}

// PlayerHistory is the player's own history: the games since the credit was
// last zero (a cash-out, a new player's first note), newest first.
type PlayerHistory struct {
	// Since is when the credit last left zero (the first movement of the
	// player's credit), in the kiosk's time zone; zero when the credit is
	// zero and no game is being shown.
	Since time.Time
	Games []HistoryEntry
}

// PlayerHistory returns the player's games, at most n: those played since
// the credit was last zero. A game whose stake took the credit to zero is
// still the player's while nothing else happened after it (its win may
// come); once a note, a cash-out or any other movement followed a zero
// credit, the games before are someone else's. The whole kiosk's history
// (History) is the staff's.
func (m *Machine) PlayerHistory(ctx context.Context, n int) (PlayerHistory, error) {
	var h PlayerHistory
	var w sessionWalk
	before, found := int64(0), false
	for pages := 0; pages < sessionPages; pages++ {
		page, err := m.st.Entries(ctx, 200, before)
		if err != nil {
			return h, fmt.Errorf("player history: %w", err)
		}
		if w.read(page) || len(page) < 200 {
			found = true
			break
		}
		before = page[len(page)-1].ID
	}
	ids := w.plays
	if found && !w.since.IsZero() {
		h.Since = w.since.In(m.cfg.Location)
	}
	if len(ids) > n {
		ids = ids[:n]
	}
	for _, id := range ids {
		p, err := m.st.Play(ctx, id)
		if err != nil {
			return h, fmt.Errorf("player history: %w", err)
		}
		h.Games = append(h.Games, m.historyEntry(p))
	}
	return h, nil
}

// historyEntry is a play as a history shows it; its mode is the mode as
// played when the play's recording is at hand (a Jouer game finished in
// Auto says so).
func (m *Machine) historyEntry(p store.Play) HistoryEntry {
	e := HistoryEntry{PlayID: p.ID, Time: p.At.In(m.cfg.Location), Stake: p.Stake, Mode: breakout.Play, Finished: p.State == store.PlayFinished}
	if p.Mode == store.ModeAuto {
		e.Mode = breakout.Auto
	}
	if e.Mode == breakout.Play && len(p.Recording) > 0 {
		if main, bonus, err := decodeRecordings(p.Recording); err == nil {
			for _, wall := range [][]byte{main, bonus} {
				if r, err := breakout.DecodeRecording(wall); err == nil && r.EndsInAuto() {
					e.EndedInAuto = true
				}
			}
		}
	}
	if e.Finished {
		e.Outcome = expectedOutcome(p)
		e.Won = p.Prize
	}
	return e
}

// sessionPages bounds the movements PlayerHistory reads (200 a page): a
// credit that never went back to zero in as many is shown without the time
// it came (the screens read the history on their goroutine).
const sessionPages = 10

// sessionWalk reads the ledger newest first back to the last time the
// credit was zero: the player's session.
type sessionWalk struct {
	plays []int64   // the session's plays, newest first
	since time.Time // its first movement
	// other: a movement newer than the one read, other than a win. A stake
	// that took the credit to zero is the session's while only its win may
	// have followed; after anything else, a zero credit ended a session.
	other bool
	seen  map[int64]bool
}

// read takes a page of movements, newest first, and reports whether the
// session's start was found.
func (w *sessionWalk) read(page []store.Entry) (done bool) {
	if w.seen == nil {
		w.seen = map[int64]bool{}
	}
	for _, e := range page {
		if e.Balance == 0 && (e.Kind != store.KindStake || w.other) {
			return true
		}
		w.since = e.At
		if e.Kind == store.KindStake && e.PlayID > 0 && !w.seen[e.PlayID] {
			w.seen[e.PlayID] = true
			w.plays = append(w.plays, e.PlayID)
		}
		if e.Kind != store.KindWin {
			w.other = true
		}
	}
	return false
}
