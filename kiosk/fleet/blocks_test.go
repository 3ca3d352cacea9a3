package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// blockKey is the test issuer's key (the one importBlock signs with).
var blockKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

var (
	signedMu sync.Mutex
	signed   = map[uint32][]byte{}
)

// signedBlock is a signed 1 € block of emission 9, generated once per test
// binary for each number. A block is always game.UnitsPerBlock units: the
// tests send as few as they can.
func signedBlock(t *testing.T, number uint32) []byte {
	t.Helper()
	signedMu.Lock()
	defer signedMu.Unlock()
	if b, ok := signed[number]; ok {
		return b
	}
	var buf bytes.Buffer
	var seed [32]byte
	copy(seed[:], fmt.Sprintf("fleet block %d", number))
	_, err := block.Generate(&buf, block.Params{Emission: 9, Number: number, Stake: game.Stake100,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8(seed)}, blockKey)
	require.NoError(t, err)
	signed[number] = buf.Bytes()
	return buf.Bytes()
}

// testKiosk is a store taking the blocks of the centre.
type testKiosk struct {
	id      string
	st      *store.Store
	f       *BlockFetcher
	results chan BlockResult
	stop    func()
}

func startBlockKiosk(t *testing.T, ns *natsServer, id string, groups ...string) *testKiosk {
	t.Helper()
	return startBlockKioskOn(t, ns, openStore(t), id, groups...)
}

// startBlockKioskOn starts a kiosk's fetcher on a store (a kiosk started
// again).
func startBlockKioskOn(t *testing.T, ns *natsServer, st *store.Store, id string, groups ...string) *testKiosk {
	t.Helper()
	keys := block.NewKeySet(blockKey.Public().(ed25519.PublicKey))
	f, err := NewBlockFetcher(ns.kiosk(t, id, groups...), st,
		func(ctx context.Context, r io.Reader) (store.BlockInfo, error) { return st.ImportBlock(ctx, r, keys) })
	require.NoError(t, err)
	k := &testKiosk{id: id, st: st, f: f, results: make(chan BlockResult, 16)}
	f.Poll, f.MinBackoff = 200*time.Millisecond, 10*time.Millisecond
	f.OnResult = func(r BlockResult) { k.results <- r }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx) //nolint:errcheck // ends with ctx
	}()
	k.stop = func() { cancel(); <-done }
	t.Cleanup(k.stop)
	return k
}

// result waits for the kiosk's next outcome.
func (k *testKiosk) result(t *testing.T) BlockResult {
	t.Helper()
	select {
	case r := <-k.results:
		return r
	case <-time.After(3 * time.Minute):
		t.Fatalf("kiosk %s: no outcome", k.id)
		return BlockResult{}
	}
}

func (k *testKiosk) blocks(t *testing.T) []store.BlockInfo {
	t.Helper()
	b, err := k.st.Blocks(context.Background())
	require.NoError(t, err)
	return b
}

// events are the kiosk's events of source and code, oldest first.
func (k *testKiosk) events(t *testing.T, source, code string) []store.Event {
	t.Helper()
	evs, err := k.st.EventsWhere(context.Background(), store.EventQuery{Source: source})
	require.NoError(t, err)
	var out []store.Event
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Code == code {
			out = append(out, evs[i])
		}
	}
	return out
}

// fleetEvents are the kiosk's events of the deliveries, oldest first.
func (k *testKiosk) fleetEvents(t *testing.T) []store.Event {
	t.Helper()
	return k.events(t, "fleet", EventFleetBlock)
}

// idle asserts that the kiosk's consumer has nothing to take: nothing
// pending, nothing awaiting its acknowledgement. A delivery addressed
// elsewhere never matches its subjects.
func idle(t *testing.T, js jetstream.JetStream, kiosk string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := js.Consumer(context.Background(), BlocksStream, "blocks-"+kiosk)
		if err != nil {
			return false
		}
		info, err := c.Info(context.Background())
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	}, time.Minute, 10*time.Millisecond, "kiosk %s still has a delivery", kiosk)
}

func results(t *testing.T, js jetstream.JetStream, kiosk string) []BlockResult {
	t.Helper()
	all, err := ReadBlockResults(context.Background(), js)
	require.NoError(t, err)
	var out []BlockResult
	for _, r := range all {
		if r.Kiosk == kiosk {
			out = append(out, r)
		}
	}
	return out
}

// A block sent to a kiosk is imported there and its units are on sale;
// another kiosk does not take it; sent again, it is not imported twice.
func TestBlockSentToKioskIsImported(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	k1 := startBlockKiosk(t, ns, "PH-1")
	k2 := startBlockKiosk(t, ns, "PH-2")
	file := signedBlock(t, 1)

	d, err := SendBlock(ctx, js, file, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "kiosk:PH-1", d.To)
	assert.Equal(t, uint32(1), d.Number)
	r := k1.result(t)
	assert.Equal(t, BlockImported, r.Outcome, r.Detail)
	t.Log(r.Detail)
	assert.Equal(t, d.Seq, r.Delivery)
	open, err := k1.st.OpenBlock(ctx, game.Stake100)
	require.NoError(t, err, "the block's units are on sale")
	assert.Equal(t, uint32(9), open.Emission)
	assert.Equal(t, uint32(1), open.Number)
	assert.Equal(t, r.BlockID, open.ID)
	idle(t, js, "PH-1")
	rs := results(t, js, "PH-1")
	require.Len(t, rs, 1, "the centre reads the kiosk's result")
	assert.True(t, r.At.Equal(rs[0].At))
	rs[0].At = r.At
	assert.Equal(t, r, rs[0])

	idle(t, js, "PH-2")
	assert.Empty(t, k2.blocks(t), "a block addressed to another kiosk is not taken")
	assert.Empty(t, results(t, js, "PH-2"))
	assert.Empty(t, k2.fleetEvents(t))

	// The same file sent again: found by its digest, not imported.
	d2, err := SendBlock(ctx, js, file, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, d.Object, d2.Object, "one object per file")
	r = k1.result(t)
	assert.Equal(t, BlockAlready, r.Outcome, r.Detail)
	assert.Equal(t, d2.Seq, r.Delivery)
	assert.Equal(t, open.ID, r.BlockID)
	assert.Len(t, k1.blocks(t), 1)
	evs := k1.fleetEvents(t)
	require.Len(t, evs, 2)
	assert.Contains(t, evs[0].Detail, "imported")
	assert.Contains(t, evs[1].Detail, "already")
	idle(t, js, "PH-1")
}

// A tampered block (a unit changed after signing, or the header of another
// game's table) is refused by the kiosk's import, changes nothing, and is
// reported to the centre and in the kiosk's events.
func TestTamperedBlockIsRefused(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	k := startBlockKiosk(t, ns, "PH-1")
	tampered := bytes.Clone(signedBlock(t, 3))
	tampered[106+100*14+7] ^= 0x01 // a byte of unit 100's reveal seed
	wrongGame := bytes.Clone(signedBlock(t, 3))
	wrongGame[8+18] ^= 0x01 // the prize table's digest

	for _, c := range []struct {
		file []byte
		err  error
	}{{tampered, block.ErrSignature}, {wrongGame, block.ErrHeader}} {
		_, err := SendBlock(ctx, js, c.file, ToKiosk("PH-1"), time.Now())
		require.NoError(t, err)
		r := k.result(t)
		assert.Equal(t, BlockRefused, r.Outcome)
		assert.Contains(t, r.Detail, strings.TrimPrefix(c.err.Error(), "block: "), "the import's reason")
		assert.Zero(t, r.BlockID)
		idle(t, js, "PH-1")
	}
	assert.Empty(t, k.blocks(t), "nothing imported")
	_, err := k.st.OpenBlock(ctx, game.Stake100)
	assert.ErrorIs(t, err, store.ErrNoOpenBlock)
	rs := results(t, js, "PH-1")
	require.Len(t, rs, 2)
	for _, r := range rs {
		assert.Equal(t, BlockRefused, r.Outcome)
	}
	evs := k.fleetEvents(t)
	require.Len(t, evs, 2)
	for _, e := range evs {
		assert.Equal(t, store.LevelWarning, e.Level)
		assert.Equal(t, EventFleetBlock, e.Code)
		assert.Contains(t, e.Detail, "refused")
	}
	assert.Len(t, k.events(t, "store", store.EventBlockRefused), 2, "the import logged its refusals as a local import does")
}

// A delivery on the kiosk's subject that says it is for another kiosk is
// not taken: nothing downloaded or imported, the refusal reported.
func TestMisaddressedDeliveryIsRefused(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	k := startBlockKiosk(t, ns, "PH-1")
	d, err := SendBlock(ctx, js, signedBlock(t, 1), ToKiosk("PH-2"), time.Now())
	require.NoError(t, err)
	d.To = "kiosk:PH-2"
	forged, err := json.Marshal(d)
	require.NoError(t, err)
	_, err = js.Publish(ctx, ToKiosk("PH-1").Subject(), forged)
	require.NoError(t, err)
	r := k.result(t)
	assert.Equal(t, BlockMisaddressed, r.Outcome)
	assert.Contains(t, r.Detail, "kiosk:PH-2")
	idle(t, js, "PH-1")
	assert.Empty(t, k.blocks(t))
	evs := k.fleetEvents(t)
	require.Len(t, evs, 1)
	assert.Equal(t, store.LevelWarning, evs[0].Level)
	assert.Contains(t, evs[0].Detail, BlockMisaddressed)
}

// A kiosk that stops between the import and the acknowledgement takes the
// delivery again and does not import the block twice.
func TestBlockNotImportedTwiceAfterACrash(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	k := startBlockKiosk(t, ns, "PH-1")
	var once sync.Once
	k.f.beforeAck = func(BlockResult) error {
		err := error(nil)
		once.Do(func() { err = errors.New("crash before the acknowledgement") })
		return err
	}
	d, err := SendBlock(ctx, js, signedBlock(t, 1), ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	first := k.result(t)
	assert.Equal(t, BlockImported, first.Outcome, first.Detail)
	again := k.result(t)
	assert.Equal(t, BlockAlready, again.Outcome, again.Detail)
	assert.Equal(t, d.Seq, again.Delivery, "the same delivery, taken again")
	assert.Equal(t, first.BlockID, again.BlockID)
	idle(t, js, "PH-1")
	assert.Len(t, k.blocks(t), 1)
	rs := results(t, js, "PH-1")
	require.Len(t, rs, 1, "one result per delivery")
	assert.Equal(t, BlockAlready, rs[0].Outcome)
}

// A block sent while the kiosk is stopped, the server restarted since, is
// taken when the kiosk starts again: the server kept the kiosk's place.
func TestBlockSentWhileKioskOffline(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	k := startBlockKiosk(t, ns, "PH-1", "nord")
	idle(t, ns.js(t), "PH-1") // its consumer exists
	k.stop()

	_, err := SendBlock(ctx, ns.js(t), signedBlock(t, 1), ToGroup("nord"), time.Now())
	require.NoError(t, err)
	ns.stop()
	ns.start()
	k = startBlockKioskOn(t, ns, k.st, "PH-1", "nord")
	r := k.result(t)
	assert.Equal(t, BlockImported, r.Outcome, r.Detail)
	assert.Equal(t, "group:nord", r.To)
	assert.Len(t, k.blocks(t), 1)
}
