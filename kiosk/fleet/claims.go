package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk"
	"pharaon/store"
)

// The claims of blocks (DESIGN.md §11). A block is a batch of pre-drawn
// tickets with exactly the regulation's prize table: sold at two kiosks,
// each unit is sold twice and its lots paid twice. So a block (its emission
// and number) is on sale at one kiosk of the fleet only: the kiosk whose
// claim first created its entry in the bucket ClaimsBucket, key
// "<emission>.<number>". A kiosk claims a block before importing it, from
// the centre (BlockFetcher) or from a file at the kiosk (Claimer, through
// kiosk.Machine.ImportBlock); a block claimed by another kiosk is not
// imported. A kiosk that imported a block while the centre did not answer
// claims it when it answers again; if another kiosk holds it, the kiosk is
// added to the entry's Also, which pharaon-central reports.
//
// Only the centre writes the bucket: a kiosk asks the centre's claim
// service (claimservice.go), which takes the kiosk from the subject the
// request came on, the only one its credentials may publish on. One key
// per block, created by a compare-and-set, makes the holder of a block
// the first claim, whatever the interleaving; a kiosk could not be given
// the right to create that key without the right to write it over or
// delete it (the server cannot tell a create from an overwrite), and a key
// per kiosk and block would leave the holder to be found among a block's
// keys by the first sequence, which no read a kiosk's permissions can
// confine to one block gives (DESIGN.md §11, One kiosk per block).
const (
	// ClaimsBucket is the bucket of the claims.
	ClaimsBucket = "pharaon-block-claims"
	// EventBlockClaim is the fleet's event of a block claimed late (source
	// "fleet"): a block imported while the centre did not answer, claimed
	// when it answered, or found on sale at another kiosk too (warning).
	EventBlockClaim = "block_claim"
)

// BlockClaim is an entry of ClaimsBucket: the kiosk selling a block.
type BlockClaim struct {
	Kiosk    string    `json:"kiosk"`
	Emission uint32    `json:"emission"`
	Number   uint32    `json:"number"`
	SHA256   string    `json:"sha256"` // hex, of the block's file
	At       time.Time `json:"at"`     // the claiming kiosk's clock
	Via      string    `json:"via"`    // "delivery N", "local" (a file at the kiosk), "late" (claimed after an import offline)
	// Also are the kiosks that imported the block while the centre did
	// not answer and found it claimed: the block was on sale at two
	// kiosks.
	Also []BlockClaim `json:"also,omitempty"`
	// Token names the holder's latest claim of the block: its kiosk gives
	// the claim back with it (ReleaseClaim), so a give-back that comes
	// after the kiosk claimed the block again (another import of it) does
	// not take the block from under the import that holds it.
	Token string `json:"token,omitempty"`
	// Revision is the entry's revision in the bucket (not stored).
	Revision uint64 `json:"-"`
}

// ClaimKey is the key of a block's claim.
func ClaimKey(emission, number uint32) string {
	return strconv.FormatUint(uint64(emission), 10) + "." + strconv.FormatUint(uint64(number), 10)
}

// ErrNoClaim: no kiosk claimed the block.
var ErrNoClaim = errors.New("block not claimed")

// ReadClaim reads a block's claim: ErrNoClaim if there is none.
func ReadClaim(ctx context.Context, kv Bucket, emission, number uint32) (BlockClaim, error) {
	key := ClaimKey(emission, number)
	e, err := kv.get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return BlockClaim{}, ErrNoClaim
	}
	if err != nil {
		return BlockClaim{}, err
	}
	var c BlockClaim
	if err := json.Unmarshal(e.value, &c); err != nil {
		return BlockClaim{}, fmt.Errorf("claim %s: %w", key, err)
	}
	c.Revision = e.revision
	return c, nil
}

// ReadClaims returns every claim, by emission then number (the centre:
// listing the bucket is its right only).
func ReadClaims(ctx context.Context, js jetstream.JetStream) ([]BlockClaim, error) {
	kv, err := js.KeyValue(ctx, ClaimsBucket)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", ClaimsBucket, err)
	}
	b := NewBucket(js, ClaimsBucket)
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []BlockClaim
	for key := range lister.Keys() {
		var em, num uint32
		if _, err := fmt.Sscanf(key, "%d.%d", &em, &num); err != nil {
			continue
		}
		c, err := ReadClaim(ctx, b, em, num)
		if errors.Is(err, ErrNoClaim) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b BlockClaim) int {
		if a.Emission != b.Emission {
			return int(int64(a.Emission) - int64(b.Emission))
		}
		return int(int64(a.Number) - int64(b.Number))
	})
	return out, nil
}

// writeClaim writes c as its block's entry: created when rev is 0, else
// over revision rev.
func writeClaim(ctx context.Context, kv Bucket, c BlockClaim, rev uint64) (uint64, error) {
	c.At = c.At.UTC()
	data, err := json.Marshal(c)
	if err != nil {
		return 0, err
	}
	if rev == 0 {
		return kv.create(ctx, ClaimKey(c.Emission, c.Number), data)
	}
	return kv.update(ctx, ClaimKey(c.Emission, c.Number), data, rev)
}

// ClaimBlock claims c's block for c.Kiosk by creating its entry (the
// centre's side: the claim service, and the tests). It returns the entry
// that holds the block and whether this call created it: c's, or the one
// found, another kiosk's or c.Kiosk's own from before, which is then
// claimed again (a new Token, the file's digest c's).
func ClaimBlock(ctx context.Context, kv Bucket, c BlockClaim) (holder BlockClaim, created bool, err error) {
	return claimBlock(ctx, kv, c, true)
}

// claimBlock is ClaimBlock; a claim of c.Kiosk's own found is claimed
// again only when again is set (an import about to happen), else it is
// returned as it is.
func claimBlock(ctx context.Context, kv Bucket, c BlockClaim, again bool) (holder BlockClaim, created bool, err error) {
	c.Also, c.Token = nil, newToken()
	for {
		rev, err := writeClaim(ctx, kv, c, 0)
		if err == nil {
			c.Revision = rev
			return c, true, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return BlockClaim{}, false, fmt.Errorf("claim block %d/%d: %w", c.Emission, c.Number, err)
		}
		cur, err := ReadClaim(ctx, kv, c.Emission, c.Number)
		if errors.Is(err, ErrNoClaim) {
			continue // given back meanwhile: create it again
		}
		if err != nil {
			return BlockClaim{}, false, fmt.Errorf("claim block %d/%d: %w", c.Emission, c.Number, err)
		}
		if cur.Kiosk != c.Kiosk || !again {
			return cur, false, nil
		}
		next := cur
		next.Token = c.Token
		if c.SHA256 != "" {
			next.SHA256 = c.SHA256
		}
		rev, err = writeClaim(ctx, kv, next, cur.Revision)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		if err != nil {
			return BlockClaim{}, false, fmt.Errorf("claim block %d/%d again: %w", c.Emission, c.Number, err)
		}
		next.Revision = rev
		return next, false, nil
	}
}

// ReleaseClaim gives back kiosk's claim of a block, the one token names (a
// block claimed and then refused by the kiosk's import, its file or its
// disk, may go to another kiosk). A claim that is not kiosk's, or that the
// kiosk made again since, stays: released is false. A block that kiosks
// imported while the centre did not answer (Also) is on sale there: the
// first of them becomes its holder rather than the block being free, so
// that no later claim puts it on sale beside them.
func ReleaseClaim(ctx context.Context, kv Bucket, kiosk string, emission, number uint32, token string) (released bool, err error) {
	for {
		cur, err := ReadClaim(ctx, kv, emission, number)
		if errors.Is(err, ErrNoClaim) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("give back the claim of block %d/%d: %w", emission, number, err)
		}
		if cur.Kiosk != kiosk || cur.Token != token {
			return false, nil
		}
		if len(cur.Also) > 0 {
			next := cur.Also[0]
			next.Emission, next.Number, next.Also, next.Token = emission, number, cur.Also[1:], newToken()
			_, err = writeClaim(ctx, kv, next, cur.Revision)
		} else {
			err = kv.delete(ctx, ClaimKey(emission, number), cur.Revision)
		}
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("give back the claim of block %d/%d: %w", emission, number, err)
		}
		return true, nil
	}
}

// claimLate claims a block c.Kiosk imported while the centre did not
// answer: created if no kiosk holds it; held by another kiosk, c.Kiosk is
// added to its entry's Also (added is whether it was not there yet). A
// claim of c.Kiosk's own stays as it is: an import of the block at the
// kiosk may be giving it back by its token.
func claimLate(ctx context.Context, kv Bucket, c BlockClaim) (holder BlockClaim, created, added bool, err error) {
	for {
		holder, created, err = claimBlock(ctx, kv, c, false)
		if err != nil || holder.Kiosk == c.Kiosk {
			return holder, created, false, err
		}
		if slices.ContainsFunc(holder.Also, func(a BlockClaim) bool { return a.Kiosk == c.Kiosk }) {
			return holder, false, false, nil
		}
		also := c
		also.Also, also.Token, also.Revision = nil, "", 0
		next := holder
		next.Also = append(slices.Clip(holder.Also), also)
		_, err = writeClaim(ctx, kv, next, holder.Revision)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		return holder, false, err == nil, err
	}
}

// claimHeld claims every block of the kiosk's store but the demonstration
// ones (kiosk.DemoEmission): the blocks imported while the centre did not
// answer (and those imported before the fleet claimed blocks). A block found claimed by another kiosk is added to its
// entry's Also and reported in the kiosk's events, once.
func claimHeld(ctx context.Context, claims claimsClient, st BlockStore, me string, now time.Time) error {
	blocks, err := st.Blocks(ctx)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if b.Emission == kiosk.DemoEmission {
			// A development kiosk's demonstration blocks, signed with
			// its own demo key: every development kiosk has its 9999/1.
			continue
		}
		r, err := claims.ask(ctx, claimRequest{Op: opLate, Emission: b.Emission, Number: b.Number,
			SHA256: hex.EncodeToString(b.FileDigest[:]), At: now, Via: "late"})
		if err != nil {
			return err
		}
		switch {
		case r.Created:
			_, err = st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "fleet", Code: EventBlockClaim,
				Detail: fmt.Sprintf("%s (block id %d, %s) claimed in the fleet now that the centre answers", b.Name(), b.ID, b.State)})
		case r.Added:
			_, err = st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "fleet", Code: EventBlockClaim,
				Detail: fmt.Sprintf("%s (block id %d, %s, %d sold) is on sale at kiosk %s too, since %s: "+
					"its units sold twice; withdraw it here", b.Name(), b.ID, b.State, b.Sold, r.Holder.Kiosk, r.Holder.At.Format(time.RFC3339))})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newToken is a claim's token: 64 random bits, in hexadecimal.
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail
	return hex.EncodeToString(b[:])
}

// Claimer is a kiosk's side of the claims for the imports at the kiosk
// (kiosk.BlockClaims): it asks the centre's claim service on one
// connection of its own, made when first needed and again after it failed;
// an operation that cannot reach the server or the service within Timeout
// is kiosk.ErrFleetOffline.
type Claimer struct {
	cfg Config
	// Timeout bounds each claim, connection included (default 5 s).
	Timeout time.Duration

	// OnLater, when set, is called with a block imported while the centre
	// did not answer (cmd/pharaon: the fetcher's Reclaim).
	OnLater func(kiosk.BlockClaim)

	mu sync.Mutex
	nc *nats.Conn
}

var _ kiosk.BlockClaims = (*Claimer)(nil)

// NewClaimer returns the claims of the kiosk cfg names.
func NewClaimer(cfg Config) (*Claimer, error) {
	if cfg.URL == "" {
		return nil, errors.New("fleet: no NATS URL")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &Claimer{cfg: cfg, Timeout: 5 * time.Second}, nil
}

// Close closes the claimer's connection.
func (c *Claimer) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
}

func (c *Claimer) client(ctx context.Context) (claimsClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil && c.nc.IsConnected() {
		return claimsClient{nc: c.nc, kiosk: c.cfg.KioskID}, nil
	}
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	nc, _, err := connectWithin(ctx, c.cfg)
	if err != nil {
		return claimsClient{}, offline(err)
	}
	c.nc = nc
	return claimsClient{nc: nc, kiosk: c.cfg.KioskID}, nil
}

func (c *Claimer) failed(err error) error {
	c.mu.Lock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	c.mu.Unlock()
	return offline(err)
}

// Claim claims a block for this kiosk: a block claimed by another kiosk
// is a *kiosk.BlockTakenError; one this kiosk claimed before is claimed
// again. The release gives back this claim, unless the kiosk claimed the
// block again since (the caller gives it back only when its store does
// not hold the block).
func (c *Claimer) Claim(ctx context.Context, b kiosk.BlockClaim) (func(context.Context) error, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	r, err := cl.ask(ctx, claimRequest{Op: opClaim, Emission: b.Emission, Number: b.Number,
		SHA256: hex.EncodeToString(b.FileDigest[:]), At: b.At, Via: b.Via})
	var refused *ClaimRefusal
	if errors.As(err, &refused) {
		return nil, err
	}
	if err != nil {
		return nil, c.failed(err)
	}
	holder := *r.Holder
	if holder.Kiosk != c.cfg.KioskID {
		return nil, &kiosk.BlockTakenError{Emission: b.Emission, Number: b.Number, Kiosk: holder.Kiosk, At: holder.At}
	}
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cl, err := c.client(ctx)
		if err != nil {
			return err
		}
		_, err = cl.ask(ctx, claimRequest{Op: opRelease, Emission: b.Emission, Number: b.Number, Token: holder.Token})
		return err
	}, nil
}

// Later passes a block imported offline to OnLater: the fetcher claims
// every block the kiosk holds at each connection, and at once when told.
func (c *Claimer) Later(b kiosk.BlockClaim) {
	if c.OnLater != nil {
		c.OnLater(b)
	}
}
