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
	Time     time.Time
	Stake    game.Stake
	Mode     breakout.Mode
	Finished bool
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
		e := HistoryEntry{PlayID: p.ID, Time: p.At.In(m.cfg.Location), Stake: p.Stake, Mode: breakout.Play, Finished: p.State == store.PlayFinished}
		if p.Mode == store.ModeAuto {
			e.Mode = breakout.Auto
		}
		if e.Finished {
			e.Outcome = expectedOutcome(p)
			e.Won = p.Prize
		}
		out = append(out, e)
	}
	return out, nil
}
