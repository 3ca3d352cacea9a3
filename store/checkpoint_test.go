package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// TestVerifyBootFromCheckpoint: after a full verification the boot check
// verifies the checkpoint and what was written after it: an edit there is
// found, an edit before it is left to the full verification, and a meter
// moved since is found.
func TestVerifyBootFromCheckpoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := copyAnchored(t, dir)
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	full, err := s.VerifyBoot(ctx)
	require.NoError(t, err)
	assert.True(t, full, "no checkpoint yet: the full check")
	require.NoError(t, s.VerifyFull(ctx))
	full, err = s.VerifyBoot(ctx)
	require.NoError(t, err)
	assert.False(t, full, "from the checkpoint")
	// Written after the checkpoint: a note, plays, a voucher.
	creditNote(t, s, 50*game.Euro)
	playUntil(t, s, func(p Play) bool { return p.ID >= 8 })
	un, err := s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	for _, p := range un {
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
	}
	full, err = s.VerifyBoot(ctx)
	require.NoError(t, err)
	assert.False(t, full)
	var cpLedger, cpPlays int64
	cp := func() *checkpoint {
		var c *checkpoint
		require.NoError(t, s.read(ctx, func(tx *rtx) error {
			var err error
			c, err = s.newestCheckpoint(tx, s.anchorKey())
			return err
		}))
		return c
	}()
	require.NotNil(t, cp)
	cpLedger, cpPlays = cp.Heads[chLedger].ID, cp.Heads[chPlays].ID
	require.NoError(t, s.Close())

	restore := func(q string) string {
		return q + `; ` + triggersBack(t)
	}
	for _, c := range []struct {
		name  string
		sql   string
		found bool // by the boot check; the full verification finds them all
	}{
		{"a ledger row after the checkpoint", `DROP TRIGGER ledger_no_update; UPDATE ledger SET note = 'x' WHERE id = ` + itoa(cpLedger+1), true},
		{"a play after the checkpoint", `DROP TRIGGER plays_fixed; DROP TRIGGER plays_final; UPDATE plays SET seed = seed + 1 WHERE id = ` + itoa(cpPlays+1), true},
		{"the checkpointed play", `DROP TRIGGER plays_fixed; DROP TRIGGER plays_final; UPDATE plays SET seed = seed + 1 WHERE id = ` + itoa(cpPlays), true},
		{"a meter raised", `UPDATE meters SET value = value + 1 WHERE name = 'won'`, true},
		{"a ledger row before the checkpoint", `DROP TRIGGER ledger_no_update; UPDATE ledger SET note = 'x' WHERE id = 1`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := copyAnchoredTo(t, filepath.Dir(path), t.TempDir())
			tamper(t, p, restore(c.sql))
			s, err := Open(p, WithAnchor(DefaultAnchor(p)))
			require.NoError(t, err)
			defer s.Close()
			full, err := s.VerifyBoot(ctx)
			assert.False(t, full)
			if c.found {
				assert.ErrorIs(t, err, ErrIntegrity)
			} else {
				assert.NoError(t, err, "older than the checkpoint: the full verification's")
			}
			assert.ErrorIs(t, s.VerifyFull(ctx), ErrIntegrity)
		})
	}
}

// triggersBack is the SQL that makes again the triggers a tamper dropped.
func triggersBack(t *testing.T) string {
	want, err := expectedSchema(context.Background(), migrations)
	require.NoError(t, err)
	q := ""
	for _, o := range want {
		if o.kind == "trigger" {
			q += "DROP TRIGGER IF EXISTS " + o.name + "; " + o.sql + "; "
		}
	}
	return q
}

func itoa(n int64) string { return fmt.Sprint(n) }
