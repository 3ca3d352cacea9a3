package fleet

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// fold applies every record of s after seq after to the kiosk k of f.
func fold(t *testing.T, f *Fleet, k string, s *store.Store, after int64) {
	t.Helper()
	recs, err := s.Outbox(context.Background(), after, 1_000_000)
	require.NoError(t, err)
	for _, r := range recs {
		f.Apply(k, r, time.Now())
	}
}

func hasProblem(k *KioskStatus, part string) bool {
	return slices.ContainsFunc(k.Problems, func(p string) bool { return strings.Contains(p, part) })
}

// The centre recomputes every row's hash with the store's own function: a
// record whose amount was changed under its original hash is reported,
// though it still links to the rows around it.
func TestCentreRecomputesEveryHash(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	importBlock(t, game.Stake050, 1, s)
	playN(t, s, game.Stake050, 30)
	_, err := s.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 1_000_000)
	require.NoError(t, err)

	f := NewFleet()
	for _, r := range recs {
		f.Apply("k1", r, time.Now())
	}
	assert.Empty(t, f.Kiosks["k1"].Problems)

	g := NewFleet()
	changed := int64(0)
	for _, r := range recs {
		if r.Kind == "ledger" && changed == 0 {
			var m map[string]any
			require.NoError(t, json.Unmarshal(r.Payload, &m))
			if m["kind"] == "stake" {
				m["amount"] = m["amount"].(float64) + 1
				m["balance_after"] = m["balance_after"].(float64) + 1
				r.Payload, err = json.Marshal(m)
				require.NoError(t, err)
				changed = r.Seq
			}
		}
		g.Apply("k1", r, time.Now())
	}
	require.NotZero(t, changed)
	k := g.Kiosks["k1"]
	assert.True(t, hasProblem(k, "content does not match its hash"), "%q", k.Problems)
	assert.False(t, hasProblem(k, "chain broken"), "the hash kept, the chain still links: %q", k.Problems)
}

// The centre takes the latest meter snapshot as the kiosk's meters and
// compares each with its own derivation from the records: meters moved
// behind the ledger's back are reported.
func TestCentreChecksMeterSnapshots(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := store.Open(path)
	require.NoError(t, err)
	defer s.Close()
	importBlock(t, game.Stake050, 1, s)
	importBlock(t, game.Stake100, 2, s)
	playN(t, s, game.Stake050, 40)
	playN(t, s, game.Stake100, 20)
	snap, err := s.SnapshotMeters(ctx, store.SnapshotBoot)
	require.NoError(t, err)

	f := NewFleet()
	fold(t, f, "k1", s, 0)
	k := f.Kiosks["k1"]
	assert.Empty(t, k.Problems)
	want, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Empty(t, store.DiffMeters(k.Meters, want))
	assert.Equal(t, snap.ID, k.MetersID)
	assert.Equal(t, int64(60), k.Meters.Get(store.MeterPlays))
	last := k.LastSeq

	// A meter moved in the file, not by a fact: the next snapshot carries
	// it (its own hash is right) and the centre's derivation does not.
	db, err := sql.Open("sqlite3", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`UPDATE meters SET value = value + 1 WHERE name = 'plays'`)
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)
	fold(t, f, "k1", s, last)
	require.Len(t, k.Problems, 1)
	assert.Contains(t, k.Problems[0], "meter snapshot 2")
	assert.Contains(t, k.Problems[0], "plays is 61, the records give 60")
	assert.Equal(t, int64(61), k.Meters.Get(store.MeterPlays), "the status shows what the kiosk says")
}

// copyFiles copies the named files from one directory to another.
func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, n), b, 0o600))
	}
}

// A kiosk put back to an older copy of its database and anchor (a
// consistent pair, which the kiosk alone cannot tell) publishes, once its
// outbox passes what the centre holds, records whose anchored heads are
// not the rows the centre received: the ledger cut is reported, though no
// ledger row came after it.
func TestCentreDetectsACutHistory(t *testing.T) {
	ctx := context.Background()
	dir, backup := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "pharaon.db")
	files := []string{"pharaon.db", "pharaon.anchor", "trust.secret", "trust.counter"} // the whole disk of a kiosk without a TPM
	open := func() *store.Store {
		s, err := store.Open(path, store.WithAnchor(store.DefaultAnchor(path)))
		require.NoError(t, err)
		require.NoError(t, s.AnchorErr())
		return s
	}
	s := open()
	importBlock(t, game.Stake050, 1, s)
	playN(t, s, game.Stake050, 20)
	_, err := s.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	copyFiles(t, dir, backup, files...)

	s = open()
	playN(t, s, game.Stake050, 10)
	_, err = s.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)
	f := NewFleet()
	fold(t, f, "k1", s, 0)
	k := f.Kiosks["k1"]
	require.Empty(t, k.Problems)
	assert.Equal(t, int64(2), k.Anchors)
	held := k.LastSeq
	require.NoError(t, s.Close())

	// The older copy back; the kiosk opens (its anchor matches) and goes
	// on, writing only meter snapshots, until its outbox passes the
	// centre's last record; the publisher then sends from there.
	for _, n := range []string{"pharaon.db-wal", "pharaon.db-shm"} {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, n)))
	}
	copyFiles(t, backup, dir, files...)
	s = open()
	defer s.Close()
	for {
		o, err := s.OutboxState(ctx)
		require.NoError(t, err)
		if o.Last > held+2 {
			break
		}
		_, err = s.SnapshotMeters(ctx, store.SnapshotBoot)
		require.NoError(t, err)
	}
	fold(t, f, "k1", s, held)
	t.Logf("problems: %q", k.Problems)
	assert.True(t, hasProblem(k, "the kiosk's ledger ends at row"), "%q", k.Problems)
	assert.True(t, hasProblem(k, "the kiosk's plays ends at row"), "%q", k.Problems)
}

// After the acknowledgements the publisher prunes the records published
// and older than the retention, by its clock; the younger ones stay.
func TestPublisherPrunesTheOutbox(t *testing.T) {
	ns := startNATS(t)
	s := openStore(t)
	logN(t, s, 50)
	var now atomic.Int64
	now.Store(time.Now().Add(time.Hour).UnixNano())
	a := newAcks()
	p := newTestPublisher(t, ns.kiosk(t, "k1"), s, a)
	p.Now = func() time.Time { return time.Unix(0, now.Load()) }
	var mu sync.Mutex
	var pruned []int64
	prunes := make(chan struct{}, 16)
	p.OnPrune = func(n int64) {
		mu.Lock()
		pruned = append(pruned, n)
		mu.Unlock()
		prunes <- struct{}{}
	}
	stop := run(p)
	defer stop()
	a.wait(t, 50)
	<-prunes
	recs, err := s.Outbox(context.Background(), 0, 100)
	require.NoError(t, err)
	assert.Len(t, recs, 50, "published, but younger than the retention")

	// Within the hour after a prune, acknowledgements prune nothing.
	logN(t, s, 5)
	p.Notify()
	a.wait(t, 55)
	// A month later: the next acknowledgement prunes every record
	// published. (The clock moves between acknowledgements: moved while
	// records are on their way, a first batch's acknowledgement would
	// prune and leave the rest to the next hour.)
	now.Add(int64(31 * 24 * time.Hour))
	logN(t, s, 1)
	p.Notify()
	a.wait(t, 56)
	<-prunes
	recs, err = s.Outbox(context.Background(), 0, 100)
	require.NoError(t, err)
	assert.Empty(t, recs)
	o, err := s.OutboxState(context.Background())
	require.NoError(t, err)
	assert.Equal(t, store.OutboxState{Last: 56, Published: 56}, o)
	mu.Lock()
	assert.Equal(t, []int64{0, 56}, pruned)
	mu.Unlock()
}

// A kiosk whose history predates its outbox (its records begin after the
// first rows) has its first snapshot taken as the base of its meters; the
// snapshots after it are checked against it and the records since.
func TestCentreCountsAPartialHistoryFromItsFirstSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	importBlock(t, game.Stake050, 1, s)
	playN(t, s, game.Stake050, 20)
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, store.SnapshotBoot)
	require.NoError(t, err)
	playN(t, s, game.Stake050, 10)
	_, err = s.SnapshotMeters(ctx, store.SnapshotReport)
	require.NoError(t, err)

	f := NewFleet()
	recs, err := s.Outbox(ctx, o.Last, 1_000_000)
	require.NoError(t, err)
	for i, r := range recs {
		r.Seq = int64(i + 1) // the outbox began after the history
		f.Apply("k1", r, time.Now())
	}
	k := f.Kiosks["k1"]
	assert.Empty(t, k.Problems)
	assert.Equal(t, int64(30), k.Meters.Get(store.MeterPlays))
}

// With the kiosk's anchor secret, the centre checks each anchor record's
// seal: heads rewritten in a record are reported.
func TestCentreChecksTheSealWithTheKey(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := store.Open(path, store.WithAnchor(store.DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	logN(t, s, 5)
	_, err = s.SnapshotMeters(ctx, store.SnapshotBoot)
	require.NoError(t, err)
	key, err := store.AnchorKeyOf(store.DefaultAnchor(path))
	require.NoError(t, err)
	recs, err := s.Outbox(ctx, 0, 100)
	require.NoError(t, err)

	f := NewFleet()
	f.Keys = map[string][]byte{"k1": key}
	for _, r := range recs {
		f.Apply("k1", r, time.Now())
	}
	assert.Empty(t, f.Kiosks["k1"].Problems)
	assert.Equal(t, int64(1), f.Kiosks["k1"].Anchors)

	g := NewFleet()
	g.Keys = map[string][]byte{"k1": key}
	for _, r := range recs {
		if r.Kind == "anchor" {
			var a store.AnchorRecord
			require.NoError(t, json.Unmarshal(r.Payload, &a))
			a.Heads[3].Hash = strings.Repeat("AB", 32) // the events' head
			r.Payload, err = json.Marshal(a)
			require.NoError(t, err)
		}
		g.Apply("k1", r, time.Now())
	}
	k := g.Kiosks["k1"]
	assert.True(t, hasProblem(k, "its seal is not the kiosk's"), "%q", k.Problems)
	assert.True(t, hasProblem(k, "the kiosk's events row"), "%q", k.Problems)
}
