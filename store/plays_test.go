package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

var jouer050 = PlayRequest{Stake: game.Stake050, Mode: ModeJouer, LayoutVersion: 1}

// fileUnits reads the first n units of a test block file.
func fileUnits(t testing.TB, path string, n int) []block.Unit {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	br, err := block.NewReader(f, trusted())
	require.NoError(t, err)
	out := make([]block.Unit, n)
	for i := range out {
		out[i], err = br.Next()
		require.NoError(t, err)
	}
	return out
}

func TestStartPlayDrawsUnitsInOrder(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	b, err := s.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	units := fileUnits(t, blockFile(t, 1, 1, game.Stake050), 40)
	_, err = s.BillIn(ctx, 20*game.Euro, "note-1")
	require.NoError(t, err)
	credit := 20 * game.Euro
	table := game.Table(game.Stake050)
	for i, u := range units {
		p, err := s.StartPlay(ctx, PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 3})
		require.NoError(t, err)
		credit -= 50
		assert.Equal(t, b.ID, p.BlockID)
		assert.Equal(t, uint32(1), p.Emission)
		assert.Equal(t, uint32(1), p.Number)
		assert.Equal(t, u.Index, p.Unit, "play %d", i)
		assert.Equal(t, u.Tier, p.Tier)
		assert.Equal(t, u.ViaBonus, p.ViaBonus)
		assert.Equal(t, u.Seed, p.Seed)
		assert.Equal(t, table.Amount(u.Tier), p.Prize)
		assert.Equal(t, credit, p.Balance, "the stake is debited at once")
		assert.Equal(t, PlayStarted, p.State)
		assert.Equal(t, ModeAuto, p.Mode)
		assert.Equal(t, 3, p.LayoutVersion)

		got, err := s.Play(ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, p, got)

		f, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
		got, err = s.Play(ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, got, f, "FinishPlay returns the play as stored")
		credit += p.Prize
		assert.Equal(t, PlayFinished, f.State)
		assert.False(t, f.Mismatch)
		assert.Equal(t, revealOf(p), f.Revealed)
		if p.Prize > 0 {
			assert.Equal(t, credit, f.Balance, "the prize is credited")
		}
		c, err := s.Credit(ctx)
		require.NoError(t, err)
		assert.Equal(t, credit, c)
	}
	open, err := s.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	assert.Equal(t, len(units), open.Sold)

	// History: newest first, in pages.
	last, err := s.LastPlays(ctx, 5, 0)
	require.NoError(t, err)
	require.Len(t, last, 5)
	assert.Equal(t, int64(40), last[0].ID)
	assert.Equal(t, uint32(39), last[0].Unit)
	more, err := s.LastPlays(ctx, 5, last[4].ID)
	require.NoError(t, err)
	assert.Equal(t, int64(35), more[0].ID)
	assert.Nil(t, more[0].Recording, "history lists carry no recordings")
	require.NoError(t, s.Verify(ctx))
}

func TestStartPlayRefuses(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(t *testing.T, s *Store)
		req   PlayRequest
		want  error
	}{
		{"no credit", func(t *testing.T, s *Store) {}, jouer050, ErrInsufficientCredit},
		{"credit below the stake", func(t *testing.T, s *Store) {
			_, err := s.Adjust(ctx, 90, "", "test")
			require.NoError(t, err)
		}, PlayRequest{Stake: game.Stake100, Mode: ModeJouer, LayoutVersion: 1}, ErrInsufficientCredit},
		{"no open block for the stake", func(t *testing.T, s *Store) {
			_, err := s.BillIn(ctx, 5*game.Euro, "n1")
			require.NoError(t, err)
		}, PlayRequest{Stake: game.Stake200, Mode: ModeJouer, LayoutVersion: 1}, ErrNoOpenBlock},
		{"not a stake", func(t *testing.T, s *Store) {}, PlayRequest{Stake: 75, Mode: ModeJouer, LayoutVersion: 1}, game.ErrBadStake},
		{"no mode", func(t *testing.T, s *Store) {}, PlayRequest{Stake: game.Stake050, LayoutVersion: 1}, ErrBadRequest},
		{"no layout version", func(t *testing.T, s *Store) {}, PlayRequest{Stake: game.Stake050, Mode: ModeAuto}, ErrBadRequest},
		{"previous play unfinished", func(t *testing.T, s *Store) {
			_, err := s.BillIn(ctx, 5*game.Euro, "n1")
			require.NoError(t, err)
			_, err = s.StartPlay(ctx, jouer050)
			require.NoError(t, err)
		}, jouer050, ErrPlayInProgress},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openWith(t, block050, block100)
			c.setup(t, s)
			before := counts(t, s)
			_, err := s.StartPlay(ctx, c.req)
			assert.ErrorIs(t, err, c.want)
			assert.Equal(t, before, counts(t, s), "nothing written")
			require.NoError(t, s.Verify(ctx))
		})
	}
}

// playUntil starts and finishes plays until one matches, which it returns
// started and not finished.
func playUntil(t *testing.T, s *Store, match func(Play) bool) Play {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 2000; i++ {
		if c, err := s.Credit(ctx); err == nil && c < 50 {
			_, err := s.Adjust(ctx, 100*game.Euro, "", "test credit")
			require.NoError(t, err)
		}
		p, err := s.StartPlay(ctx, jouer050)
		require.NoError(t, err)
		if match(p) {
			return p
		}
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
	}
	t.Fatal("no such unit in 2000 plays")
	return Play{}
}

func TestFinishPlay(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	p := playUntil(t, s, func(p Play) bool { return p.Prize > 0 && !p.ViaBonus })
	credit, err := s.Credit(ctx)
	require.NoError(t, err)

	// A caller showing another amount is refused and nothing is written.
	before := counts(t, s)
	for _, shown := range []game.Money{0, p.Prize + 1, p.Prize * 2} {
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: shown})
		assert.ErrorIs(t, err, ErrPrizeMismatch)
	}
	var neg game.Counts
	neg[game.Bird] = -1
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: neg, Shown: p.Prize})
	assert.ErrorIs(t, err, ErrBadRequest)
	_, err = s.FinishPlay(ctx, 999, FinishInfo{Shown: p.Prize})
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, before, counts(t, s))

	f, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize, Recording: []byte("inputs")})
	require.NoError(t, err)
	stored, err := s.Play(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, stored, f)
	assert.Equal(t, credit+p.Prize, f.Balance)
	assert.Equal(t, []byte("inputs"), f.Recording)
	entries, err := s.Entries(ctx, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, Entry{ID: entries[0].ID, At: entries[0].At, Kind: KindWin, Amount: p.Prize, Balance: credit + p.Prize, PlayID: p.ID}, entries[0])

	// Never twice.
	before = counts(t, s)
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	assert.ErrorIs(t, err, ErrPlayFinished)
	assert.ErrorIs(t, s.SetPlayState(ctx, p.ID, PlayMainDone), ErrPlayFinished)
	assert.ErrorIs(t, s.SaveRecording(ctx, p.ID, []byte("other")), ErrPlayFinished)
	assert.Equal(t, before, counts(t, s))
	require.NoError(t, s.Verify(ctx))
}

func TestFinishPlayRecordsMismatch(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		match  func(Play) bool
		reveal func(Play) game.Counts
		flag   bool
	}{
		{"losing unit revealed as a win", func(p Play) bool { return p.Tier == game.TierLose },
			func(Play) game.Counts { return game.Counts{game.Eye: 3} }, false},
		{"winning unit revealed as nothing", func(p Play) bool { return p.Prize > 0 && !p.ViaBonus },
			func(Play) game.Counts { return game.Counts{} }, false},
		{"via-bonus unit without the snakes", func(p Play) bool { return p.ViaBonus },
			func(p Play) game.Counts { return game.Counts{game.Snake: 2} }, false},
		{"ambiguous reveal", func(p Play) bool { return p.Tier == game.TierLose },
			func(Play) game.Counts { return game.Counts{game.Bird: 2, game.Scarab: 2} }, false},
		{"the kiosk's own flag", func(p Play) bool { return true }, revealOf, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openWith(t, block050)
			p := playUntil(t, s, c.match)
			before, err := s.Credit(ctx)
			require.NoError(t, err)
			f, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: c.reveal(p), Shown: p.Prize, Mismatch: c.flag})
			require.NoError(t, err)
			assert.True(t, f.Mismatch)
			assert.Equal(t, c.reveal(p), f.Revealed)
			after, err := s.Credit(ctx)
			require.NoError(t, err)
			assert.Equal(t, before+p.Prize, after, "the unit's prize is paid whatever the wall showed")
			evs, err := s.Events(ctx, 1, 0)
			require.NoError(t, err)
			assert.Equal(t, EventRevealMismatch, evs[0].Code)
			assert.Equal(t, LevelError, evs[0].Level)
			require.NoError(t, s.Verify(ctx))
		})
	}
}

func TestPlayStates(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	bonus := playUntil(t, s, func(p Play) bool { return p.ViaBonus })

	assert.ErrorIs(t, s.SetPlayState(ctx, bonus.ID, PlayFinished), ErrBadRequest, "FinishPlay finishes")
	assert.ErrorIs(t, s.SetPlayState(ctx, bonus.ID, PlayStarted), ErrBadRequest)
	require.NoError(t, s.SetPlayState(ctx, bonus.ID, PlayMainDone))
	require.NoError(t, s.SetPlayState(ctx, bonus.ID, PlayMainDone), "repeating a state is a no-op")
	require.NoError(t, s.SetPlayState(ctx, bonus.ID, PlayBonus))
	assert.ErrorIs(t, s.SetPlayState(ctx, bonus.ID, PlayMainDone), ErrPlayState, "states only move forward")
	p, err := s.Play(ctx, bonus.ID)
	require.NoError(t, err)
	assert.Equal(t, PlayBonus, p.State)
	_, err = s.FinishPlay(ctx, bonus.ID, FinishInfo{Revealed: revealOf(bonus), Shown: bonus.Prize})
	require.NoError(t, err)

	lose := playUntil(t, s, func(p Play) bool { return !p.ViaBonus })
	assert.ErrorIs(t, s.SetPlayState(ctx, lose.ID, PlayBonus), ErrPlayState, "no bonus game on this unit")
	assert.ErrorIs(t, s.SetPlayState(ctx, 12345, PlayMainDone), ErrNotFound)
	require.NoError(t, s.Verify(ctx))

	var steps []string
	rows, err := s.r.Query(`SELECT state FROM play_steps WHERE play_id = ? ORDER BY id`, bonus.ID)
	require.NoError(t, err)
	for rows.Next() {
		var st string
		require.NoError(t, rows.Scan(&st))
		steps = append(steps, st)
	}
	rows.Close()
	assert.Equal(t, []string{"main_done", "bonus", "finished"}, steps, "one chained step per change")
}

// A play survives a restart: UnfinishedPlays returns it with its state and
// recording, the kiosk replays and finishes it, and nothing is paid twice.
func TestUnfinishedPlayAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, templateWith(t, block050), path)
	s, err := Open(path)
	require.NoError(t, err)
	p := playUntil(t, s, func(p Play) bool { return p.Prize > 0 })
	require.NoError(t, s.SaveRecording(ctx, p.ID, []byte("first second")))
	require.NoError(t, s.SetPlayState(ctx, p.ID, PlayMainDone))
	require.NoError(t, s.SaveRecording(ctx, p.ID, []byte("first second of the main wall")))
	un, err := s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	require.Len(t, un, 1)
	require.NoError(t, s.Close())

	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	un, err = s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	require.Len(t, un, 1)
	got := un[0]
	assert.Equal(t, p.ID, got.ID)
	assert.Equal(t, PlayMainDone, got.State)
	assert.Equal(t, []byte("first second of the main wall"), got.Recording)
	assert.Equal(t, p.Seed, got.Seed)
	assert.Equal(t, p.Prize, got.Prize)

	_, err = s.VoucherOut(ctx, 1, "v-1")
	assert.ErrorIs(t, err, ErrPlayInProgress, "no cash-out in the middle of a play")
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	f, err := s.FinishPlay(ctx, got.ID, FinishInfo{Revealed: revealOf(got), Shown: got.Prize})
	require.NoError(t, err)
	assert.Equal(t, []byte("first second of the main wall"), f.Recording, "the last saved recording is kept")
	c, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, credit+got.Prize, c)
	un, err = s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	assert.Empty(t, un)
	require.NoError(t, s.Verify(ctx))
}

// A save that arrives late must not take the play's recording back: the
// store refuses a recording shorter than the one it holds, and in
// particular a periodic save of the main wall made before the bonus
// transition cannot overwrite the recording EnterBonus kept with it.
func TestLateSaveCannotOverwrite(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	p := playUntil(t, s, func(p Play) bool { return p.ViaBonus })
	early := []byte("main wall: first second")
	late := []byte("main wall: first second and a half")
	whole := []byte("main wall: whole, and the bonus wall at its start")
	require.NoError(t, s.SaveRecording(ctx, p.ID, early))
	require.NoError(t, s.SaveRecording(ctx, p.ID, late))
	assert.ErrorIs(t, s.SaveRecording(ctx, p.ID, early), ErrStaleRecording, "an older save after a newer one")
	require.NoError(t, s.EnterBonus(ctx, p.ID, whole))
	require.NoError(t, s.EnterBonus(ctx, p.ID, whole), "entering the bonus again with its recording is a no-op")
	assert.ErrorIs(t, s.SaveRecording(ctx, p.ID, late), ErrStaleRecording, "the main wall's late periodic save")
	got, err := s.Play(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, PlayBonus, got.State)
	assert.Equal(t, whole, got.Recording, "the bonus transition's recording is kept")

	onBonus := append(append([]byte(nil), whole...), " and two seconds of it"...)
	require.NoError(t, s.SaveRecording(ctx, p.ID, onBonus), "the bonus wall's saves go on")
	assert.ErrorIs(t, s.EnterBonus(ctx, p.ID, whole), ErrPlayState, "the bonus is entered once")
	// The finish's recording is the game's end: kept whatever its length
	// (a game resumed in Auto from an unusable recording ends shorter).
	f, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize, Recording: []byte("auto")})
	require.NoError(t, err)
	assert.Equal(t, []byte("auto"), f.Recording)
	require.NoError(t, s.Verify(ctx))

	lose := playUntil(t, s, func(p Play) bool { return !p.ViaBonus })
	assert.ErrorIs(t, s.EnterBonus(ctx, lose.ID, whole), ErrPlayState, "no bonus game on this unit")
}

// A write refused because another connection holds the database is
// Transient: the kiosk tries it again; other failures are not.
func TestTransient(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, templateWith(t, block050), path)
	s, err := Open(path, WithBusyTimeout(time.Millisecond))
	require.NoError(t, err)
	defer s.Close()
	other, err := sql.Open("sqlite3", path)
	require.NoError(t, err)
	defer other.Close()
	c, err := other.Conn(ctx)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.ExecContext(ctx, "BEGIN IMMEDIATE")
	require.NoError(t, err)
	_, err = s.BillIn(ctx, 5*game.Euro, "note-busy")
	require.Error(t, err)
	assert.True(t, Transient(err), "%v", err)
	_, err = c.ExecContext(ctx, "ROLLBACK")
	require.NoError(t, err)
	_, err = s.BillIn(ctx, 5*game.Euro, "note-busy")
	require.NoError(t, err, "the same write succeeds once the database is free")

	assert.False(t, Transient(nil))
	assert.False(t, Transient(ErrInsufficientCredit))
	_, err = s.FinishPlay(ctx, 999, FinishInfo{})
	assert.False(t, Transient(err))
}

// A prize above FinishInfo.HandPayLimit is locked for a hand-pay in the
// finish's own commit; staff's payment (HandPay) of that reference ends
// the lock in its own commit, and only that reference does. A refused
// finish or payment changes neither.
func TestFinishPlayLocksAHandPayInItsCommit(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	p := playUntil(t, s, func(p Play) bool { return p.Prize > 0 && !p.ViaBonus })

	_, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize + 1, HandPayLimit: 1})
	require.ErrorIs(t, err, ErrPrizeMismatch)
	lock, err := s.HandPayLock(ctx)
	require.NoError(t, err)
	assert.False(t, lock.Pending(), "a refused finish locks nothing")

	f, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize, HandPayLimit: p.Prize - 1})
	require.NoError(t, err)
	want := HandPayLock{Ref: WinHandPayRef(p.ID), Cause: HandPayWin, Amount: f.Balance, PlayID: p.ID, At: f.Updated}
	assert.Equal(t, want, f.HandPay)
	lock, err = s.HandPayLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, lock, "kept with the win")
	ev, err := s.Events(ctx, 10, 0)
	require.NoError(t, err)
	var codes []string
	for _, e := range ev {
		codes = append(codes, e.Code)
	}
	assert.Contains(t, codes, EventHandPayLocked)

	// A prize at the limit, or no limit, locks nothing more.
	for _, limit := range []game.Money{-1, 0, 1 << 40} {
		q := playUntil(t, s, func(q Play) bool { return q.Prize > 0 && !q.ViaBonus })
		if limit < 0 {
			limit = q.Prize // exactly at the limit
		}
		_, err = s.FinishPlay(ctx, q.ID, FinishInfo{Revealed: revealOf(q), Shown: q.Prize, HandPayLimit: limit})
		require.NoError(t, err)
		lock, err = s.HandPayLock(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, lock)
	}
	credit, err := s.Credit(ctx)
	require.NoError(t, err)

	_, err = s.HandPay(ctx, credit+1, want.Ref)
	require.ErrorIs(t, err, ErrInsufficientCredit)
	_, err = s.HandPay(ctx, 1, "cashout-1")
	require.NoError(t, err)
	lock, err = s.HandPayLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, lock, "another reference's payment keeps the lock")

	e, err := s.HandPay(ctx, credit-1, want.Ref) // the later plays spent some of the locked credit
	require.NoError(t, err)
	assert.Zero(t, e.Balance)
	lock, err = s.HandPayLock(ctx)
	require.NoError(t, err)
	assert.False(t, lock.Pending(), "paid: the lock ends with the payment's row")
	require.NoError(t, s.Verify(ctx))
}
