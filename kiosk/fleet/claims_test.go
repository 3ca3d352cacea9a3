package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/store"
)

// A block sent to a group is imported by exactly one member, whichever
// claims it first; the others record it taken, quietly, and sell nothing
// of it. The members take the delivery concurrently.
func TestBlockSentToGroupImportedOnce(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	ks := []*testKiosk{startBlockKiosk(t, ns, "PH-1", "nord"), startBlockKiosk(t, ns, "PH-2", "sud", "nord"),
		startBlockKiosk(t, ns, "PH-3", "nord")}
	other := startBlockKiosk(t, ns, "PH-4", "sud")

	d, err := SendBlock(ctx, js, signedBlock(t, 2), ToGroup("nord"), time.Now())
	require.NoError(t, err)
	var rs [3]BlockResult
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Add(1)
		go func() { defer wg.Done(); rs[i] = k.result(t) }()
	}
	wg.Wait()
	var owner *testKiosk
	for i, k := range ks {
		r := rs[i]
		assert.Equal(t, d.Seq, r.Delivery)
		assert.Equal(t, "group:nord", r.To)
		switch r.Outcome {
		case BlockImported:
			require.Nil(t, owner, "a second member imported the block: %s", k.id)
			owner = k
		default:
			assert.Equal(t, BlockTaken, r.Outcome, "%s: %s", k.id, r.Detail)
		}
		idle(t, js, k.id)
	}
	require.NotNil(t, owner, "one member imported it")
	c, err := ReadClaims(ctx, js)
	require.NoError(t, err)
	require.Len(t, c, 1)
	assert.Equal(t, owner.id, c[0].Kiosk)
	assert.Equal(t, d.SHA256, c[0].SHA256)
	assert.Equal(t, "delivery 1", c[0].Via)
	assert.Empty(t, c[0].Also)
	for i, k := range ks {
		if k == owner {
			assert.Len(t, k.blocks(t), 1)
			continue
		}
		assert.Empty(t, k.blocks(t), "%s sells nothing of it", k.id)
		_, err := k.st.OpenBlock(ctx, game.Stake100)
		assert.ErrorIs(t, err, store.ErrNoOpenBlock)
		assert.Contains(t, rs[i].Detail, "on sale at kiosk "+owner.id)
		evs := k.fleetEvents(t)
		require.Len(t, evs, 1)
		assert.Equal(t, store.LevelInfo, evs[0].Level, "a group's block taken by another member is no warning")
		assert.Contains(t, evs[0].Detail, BlockTaken)
	}
	idle(t, js, other.id)
	assert.Empty(t, other.blocks(t), "not a member")
}

// A block claimed by kiosk A and delivered to kiosk B anyway (the centre's
// check passed by) is refused at B, reported as a warning and a result.
func TestBlockClaimedByAnotherKioskRefusedOnDirectDelivery(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	a := startBlockKiosk(t, ns, "PH-1")
	b := startBlockKiosk(t, ns, "PH-2")
	file := signedBlock(t, 1)
	_, err := SendBlock(ctx, js, file, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	require.Equal(t, BlockImported, a.result(t).Outcome)

	_, err = SendBlock(ctx, js, file, ToKiosk("PH-2"), time.Now())
	var refusal *SendRefusal
	require.ErrorAs(t, err, &refusal, "the centre does not send it")
	assert.ErrorIs(t, err, ErrBlockElsewhere)
	assert.Equal(t, "PH-1", refusal.Claim.Kiosk)
	assert.Contains(t, err.Error(), "block 9/1 is on sale at kiosk PH-1")
	_, err = SendBlock(ctx, js, file, ToGroup("nord"), time.Now())
	assert.ErrorIs(t, err, ErrBlockElsewhere, "nor to a group")
	_, err = SendBlock(ctx, js, file, ToKiosk("PH-1"), time.Now())
	assert.NoError(t, err, "sent again to its kiosk")
	assert.Equal(t, BlockAlready, a.result(t).Outcome)

	d, err := publishBlock(ctx, js, file, ToKiosk("PH-2"), time.Now())
	require.NoError(t, err)
	r := b.result(t)
	assert.Equal(t, BlockTaken, r.Outcome, r.Detail)
	assert.Equal(t, d.Seq, r.Delivery)
	assert.Contains(t, r.Detail, "block 9/1 is on sale at kiosk PH-1")
	idle(t, js, "PH-2")
	assert.Empty(t, b.blocks(t))
	evs := b.fleetEvents(t)
	require.Len(t, evs, 1)
	assert.Equal(t, store.LevelWarning, evs[0].Level)
	rs := results(t, js, "PH-2")
	require.Len(t, rs, 1)
	assert.Equal(t, BlockTaken, rs[0].Outcome)
}

// A block delivered to a kiosk that has not answered yet is not sent to
// another; one a kiosk refused (a tampered copy) may be.
func TestBlockDeliveredElsewhereNotSent(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	_, err := SendBlock(ctx, js, signedBlock(t, 4), ToKiosk("PH-9"), time.Now())
	require.NoError(t, err)
	_, err = SendBlock(ctx, js, signedBlock(t, 4), ToGroup("nord"), time.Now())
	var refusal *SendRefusal
	require.ErrorAs(t, err, &refusal)
	require.NotNil(t, refusal.Delivery)
	assert.Equal(t, "kiosk:PH-9", refusal.Delivery.To)

	k := startBlockKiosk(t, ns, "PH-1")
	tampered := bytes.Clone(signedBlock(t, 5))
	tampered[106+100*14+7] ^= 0x01
	_, err = SendBlock(ctx, js, tampered, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, BlockRefused, k.result(t).Outcome)
	_, err = ReadClaim(ctx, mustClaims(t, ns), 9, 5)
	assert.ErrorIs(t, err, ErrNoClaim, "a block refused by its import is not left claimed")
	_, err = SendBlock(ctx, js, signedBlock(t, 5), ToKiosk("PH-2"), time.Now())
	assert.NoError(t, err, "the good file goes to another kiosk")
}

func mustClaims(t *testing.T, ns *natsServer) Bucket {
	t.Helper()
	return NewBucket(ns.js(t), ClaimsBucket)
}

// A file at kiosk B (the maintenance screen) of a block kiosk A claimed is
// refused while the centre answers; imported while it does not, the block
// is claimed when the centre answers again, found on sale at A, reported
// at B and in the claim's entry.
func TestBlockLocalImportClaims(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	a := startBlockKiosk(t, ns, "PH-1")
	file := signedBlock(t, 1)
	_, err := SendBlock(ctx, js, file, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	require.Equal(t, BlockImported, a.result(t).Outcome)

	cl, err := NewClaimer(ns.kiosk(t, "PH-2"))
	require.NoError(t, err)
	defer cl.Close()
	sum, err := block.Verify(bytes.NewReader(file), block.NewKeySet(blockKey.Public().(ed25519.PublicKey)))
	require.NoError(t, err)
	claim := kiosk.BlockClaim{Emission: 9, Number: 1, FileDigest: sum.FileDigest, At: time.Now(), Via: "local"}
	_, err = cl.Claim(ctx, claim)
	var taken *kiosk.BlockTakenError
	require.ErrorAs(t, err, &taken)
	assert.Equal(t, "PH-1", taken.Kiosk)
	assert.ErrorIs(t, err, kiosk.ErrBlockTaken)

	// A block of its own: claimed, claimed again, given back.
	claim.Number = 6
	_, err = cl.Claim(ctx, claim)
	require.NoError(t, err)
	again, err := cl.Claim(ctx, claim)
	require.NoError(t, err, "claimed again by the same kiosk")
	c, err := ReadClaim(ctx, mustClaims(t, ns), 9, 6)
	require.NoError(t, err)
	assert.Equal(t, "PH-2", c.Kiosk)
	require.NoError(t, again(ctx))
	_, err = ReadClaim(ctx, mustClaims(t, ns), 9, 6)
	assert.ErrorIs(t, err, ErrNoClaim)

	// The centre away: B imports A's block from a file; when B's fetcher
	// reaches the centre, it claims what it holds and finds A's claim.
	ns.stop()
	_, err = cl.Claim(ctx, claim)
	assert.ErrorIs(t, err, kiosk.ErrFleetOffline)
	stB := openStore(t)
	keys := block.NewKeySet(blockKey.Public().(ed25519.PublicKey))
	_, err = stB.ImportBlock(ctx, bytes.NewReader(file), keys)
	require.NoError(t, err)
	_, err = stB.ImportBlock(ctx, bytes.NewReader(signedBlock(t, 7)), keys)
	require.NoError(t, err)
	ns.start()
	b := startBlockKioskOn(t, ns, stB, "PH-2")
	idle(t, ns.js(t), "PH-2")
	var evs []store.Event
	require.Eventually(t, func() bool {
		evs = b.events(t, "fleet", EventBlockClaim)
		return len(evs) == 2
	}, time.Minute, 10*time.Millisecond)
	assert.Equal(t, store.LevelWarning, evs[0].Level)
	assert.Contains(t, evs[0].Detail, "block 9/1 (block id 1, open, 0 sold) is on sale at kiosk PH-1 too")
	assert.Equal(t, store.LevelInfo, evs[1].Level)
	assert.Contains(t, evs[1].Detail, "block 9/7")
	claims, err := ReadClaims(ctx, ns.js(t))
	require.NoError(t, err)
	require.Len(t, claims, 2)
	assert.Equal(t, "PH-1", claims[0].Kiosk)
	require.Len(t, claims[0].Also, 1, "the block on sale at two kiosks is in its entry")
	assert.Equal(t, "PH-2", claims[0].Also[0].Kiosk)
	assert.Equal(t, "late", claims[0].Also[0].Via)
	assert.Equal(t, "PH-2", claims[1].Kiosk)
	assert.Equal(t, uint32(7), claims[1].Number)

	// Reported once: the fetcher started again says nothing new.
	b.stop()
	b = startBlockKioskOn(t, ns, stB, "PH-2")
	idle(t, ns.js(t), "PH-2")
	b.stop()
	assert.Len(t, b.events(t, "fleet", EventBlockClaim), 2)
}

// Concurrent claims of one block by many kiosks: exactly one holds it.
func TestBlockClaimConcurrent(t *testing.T) {
	ns := startNATS(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[string]bool{}
	for _, id := range []string{"K1", "K2", "K3", "K4", "K5", "K6"} {
		cfg := ns.kiosk(t, id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := NewClaimer(cfg)
			if !assert.NoError(t, err) {
				return
			}
			defer cl.Close()
			_, err = cl.Claim(context.Background(), kiosk.BlockClaim{Emission: 3, Number: 8, At: time.Now(), Via: "local"})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won[id] = true
			case !errors.Is(err, kiosk.ErrBlockTaken):
				t.Errorf("%s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	assert.Len(t, won, 1)
}

// A claim this kiosk left (a crash between the claim and the import) does
// not keep it from importing the block; left on a tampered copy, it is
// given back when the import refuses the file.
func TestBlockClaimLeftByACrash(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	k := startBlockKiosk(t, ns, "PH-1")
	kv := mustClaims(t, ns)
	for _, n := range []uint32{8, 9} {
		_, created, err := ClaimBlock(ctx, kv, BlockClaim{Kiosk: "PH-1", Emission: 9, Number: n, At: time.Now(), Via: "delivery 99"})
		require.NoError(t, err)
		require.True(t, created)
	}
	_, err := SendBlock(ctx, js, signedBlock(t, 8), ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	r := k.result(t)
	assert.Equal(t, BlockImported, r.Outcome, r.Detail)
	c, err := ReadClaim(ctx, kv, 9, 8)
	require.NoError(t, err)
	assert.Equal(t, "PH-1", c.Kiosk)

	tampered := bytes.Clone(signedBlock(t, 9))
	tampered[106+100*14+7] ^= 0x01
	_, err = SendBlock(ctx, js, tampered, ToKiosk("PH-1"), time.Now())
	require.NoError(t, err)
	assert.Equal(t, BlockRefused, k.result(t).Outcome)
	_, err = ReadClaim(ctx, kv, 9, 9)
	assert.ErrorIs(t, err, ErrNoClaim)
}
