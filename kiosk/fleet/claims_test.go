package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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

// Kiosk A's credentials, used by hand against the claim of a block kiosk B
// holds (a block sent to their group, imported at B): the claim can be
// neither written over nor deleted, and A's own kiosk, taking the group's
// delivery after, finds the block on sale at B and imports nothing of it.
func TestBlockClaimOfAnotherKioskUntouchable(t *testing.T) {
	ns := startNATS(t)
	js := ns.js(t)
	ctx := context.Background()
	b := startBlockKiosk(t, ns, "B", "nord")
	cfgA := ns.kiosk(t, "A", "nord")
	_, err := SendBlock(ctx, js, signedBlock(t, 1), ToGroup("nord"), time.Now())
	require.NoError(t, err)
	require.Equal(t, BlockImported, b.result(t).Outcome)
	held, err := ReadClaim(ctx, mustClaims(t, ns), 9, 1)
	require.NoError(t, err)
	require.Equal(t, "B", held.Kiosk)

	att := attackAs(t, cfgA)
	claimSubject := "$KV." + ClaimsBucket + "." + ClaimKey(9, 1)
	forged, _ := json.Marshal(BlockClaim{Kiosk: "A", Emission: 9, Number: 1, SHA256: held.SHA256, At: time.Now(), Via: "delivery 1"})
	_, err = att.js.PublishMsg(att.ctx(), &nats.Msg{Subject: claimSubject, Data: forged})
	assert.Error(t, err, "B's claim written over as A's")
	del := nats.NewMsg(claimSubject)
	del.Header.Set("KV-Operation", "DEL")
	_, err = att.js.PublishMsg(att.ctx(), del)
	assert.Error(t, err, "B's claim deleted")
	att.request(directGetSubject("KV_"+ClaimsBucket, claimSubject), nil, "read B's claim")
	_, err = att.nc.Request(ClaimsSubject+"B", []byte(`{"op":"release","emission":9,"number":1,"token":"`+held.Token+`"}`), 300*time.Millisecond)
	assert.Error(t, err)
	att.refused(ClaimsSubject+"B", "ask the claim service as B")

	// Through the claim service, as A: B's claim is not A's to give back
	// (B's token even known), the block is B's, and its token untold.
	as := claimsClient{nc: att.nc, kiosk: "A"}
	r, err := as.ask(ctx, claimRequest{Op: opRelease, Emission: 9, Number: 1, Token: held.Token})
	require.NoError(t, err)
	assert.False(t, r.Released, "B's claim given back by A")
	r, err = as.ask(ctx, claimRequest{Op: opClaim, Emission: 9, Number: 1, SHA256: held.SHA256, At: time.Now(), Via: "local"})
	require.NoError(t, err)
	assert.Equal(t, "B", r.Holder.Kiosk)
	assert.Empty(t, r.Holder.Token, "B's token told to A")
	_, err = as.ask(ctx, claimRequest{Op: opClaim, Emission: 9, Number: 1, At: time.Now(), Via: "local\nkiosk B"})
	var refused *ClaimRefusal
	assert.ErrorAs(t, err, &refused, "a claim's words are the service's")
	after, err := ReadClaim(ctx, mustClaims(t, ns), 9, 1)
	assert.NoError(t, err)
	assert.Equal(t, held, after, "B's claim unchanged")

	a := startBlockKiosk(t, ns, "A", "nord")
	res := a.result(t)
	assert.Equal(t, BlockTaken, res.Outcome, res.Detail)
	assert.Empty(t, a.blocks(t), "B's block on sale at A too")
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

// Concurrent claims of the same blocks by many kiosks, answered by two
// claim services at once: of each block, exactly one kiosk holds it, the
// one its entry names, whatever the interleaving; a kiosk told taken is
// told the holder.
func TestBlockClaimConcurrent(t *testing.T) {
	ns := startNATS(t)
	ns.serveClaims() // a second service: each request goes to one of them
	const blocks = 12
	ids := []string{"K1", "K2", "K3", "K4", "K5", "K6"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[uint32][]string{}
	told := map[uint32]map[string]bool{}
	for _, id := range ids {
		cfg := ns.kiosk(t, id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := NewClaimer(cfg)
			if !assert.NoError(t, err) {
				return
			}
			defer cl.Close()
			for n := uint32(1); n <= blocks; n++ {
				_, err = cl.Claim(context.Background(), kiosk.BlockClaim{Emission: 3, Number: n, At: time.Now(), Via: "local"})
				var taken *kiosk.BlockTakenError
				mu.Lock()
				switch {
				case err == nil:
					won[n] = append(won[n], id)
				case errors.As(err, &taken):
					if told[n] == nil {
						told[n] = map[string]bool{}
					}
					told[n][taken.Kiosk] = true
				default:
					t.Errorf("%s: %v", id, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	kv := mustClaims(t, ns)
	for n := uint32(1); n <= blocks; n++ {
		require.Len(t, won[n], 1, "block 3/%d held by %v", n, won[n])
		c, err := ReadClaim(context.Background(), kv, 3, n)
		require.NoError(t, err)
		assert.Equal(t, won[n][0], c.Kiosk, "block 3/%d", n)
		assert.Equal(t, map[string]bool{won[n][0]: true}, told[n], "block 3/%d: the others told its holder", n)
	}
}

// A claim is given back by its kiosk only, and only the claim it names:
// not once the kiosk claimed the block again (a later import of it), and
// not to a later claimer when another kiosk sells the block too (it was
// imported there while the centre did not answer): that kiosk then holds
// it, and the block stays on sale at one kiosk.
func TestBlockClaimGivenBack(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	kv := mustClaims(t, ns)
	client := func(id string) claimsClient {
		nc, err := ns.kiosk(t, id).connect()
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return claimsClient{nc: nc, kiosk: id}
	}
	k1, k2, k3 := client("K1"), client("K2"), client("K3")
	claim := func(c claimsClient, op string, n uint32) claimReply {
		t.Helper()
		via := "local"
		if op == opLate {
			via = "late"
		}
		r, err := c.ask(ctx, claimRequest{Op: op, Emission: 5, Number: n, At: time.Now(), Via: via})
		require.NoError(t, err)
		return r
	}
	give := func(c claimsClient, n uint32, token string) bool {
		t.Helper()
		r, err := c.ask(ctx, claimRequest{Op: opRelease, Emission: 5, Number: n, Token: token})
		require.NoError(t, err)
		return r.Released
	}

	// Claimed, claimed again: the first claim's give-back is stale.
	first := claim(k1, opClaim, 1)
	require.True(t, first.Created)
	again := claim(k1, opClaim, 1)
	require.False(t, again.Created)
	assert.NotEqual(t, first.Holder.Token, again.Holder.Token)
	assert.False(t, give(k1, 1, first.Holder.Token), "given back from under the import that claimed it again")
	held := claim(k1, opLate, 1)
	assert.Equal(t, again.Holder.Token, held.Holder.Token, "a late claim of its own (the fetcher's at each connection) leaves it as it is")
	assert.False(t, give(k2, 1, again.Holder.Token), "given back by another kiosk")
	c, err := ReadClaim(ctx, kv, 5, 1)
	require.NoError(t, err)
	assert.Equal(t, "K1", c.Kiosk)
	assert.True(t, give(k1, 1, again.Holder.Token))
	_, err = ReadClaim(ctx, kv, 5, 1)
	assert.ErrorIs(t, err, ErrNoClaim)

	// K2 imported block 5/2 offline and finds it K1's: on sale at both.
	// K1 gives it back: K2, which sells it, holds it; K3 may not take it.
	held = claim(k1, opClaim, 2)
	late := claim(k2, opLate, 2)
	assert.True(t, late.Added)
	assert.Equal(t, "K1", late.Holder.Kiosk)
	assert.True(t, give(k1, 2, held.Holder.Token))
	c, err = ReadClaim(ctx, kv, 5, 2)
	require.NoError(t, err)
	assert.Equal(t, "K2", c.Kiosk, "the kiosk selling it holds it")
	assert.Equal(t, "late", c.Via)
	assert.Empty(t, c.Also)
	taken := claim(k3, opClaim, 2)
	assert.False(t, taken.Created)
	assert.Equal(t, "K2", taken.Holder.Kiosk)
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
