package fleet

import (
	"context"
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
// and number) is on sale at one kiosk of the fleet only: the kiosk that
// first creates its entry in the bucket ClaimsBucket, key
// "<emission>.<number>". A kiosk claims a block before importing it, from
// the centre (BlockFetcher) or from a file at the kiosk (Claimer, through
// kiosk.Machine.ImportBlock); a block claimed by another kiosk is not
// imported. A kiosk that imported a block while the centre did not answer
// claims it when it answers again; if another kiosk holds it, the kiosk is
// added to the entry's Also, which pharaon-central reports.
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

// ClaimBlock claims c's block for c.Kiosk by creating its entry. It
// returns the entry that holds the block (c's, or the one found: another
// kiosk's, or c.Kiosk's own from before) and whether this call created it.
func ClaimBlock(ctx context.Context, kv Bucket, c BlockClaim) (holder BlockClaim, created bool, err error) {
	key := ClaimKey(c.Emission, c.Number)
	c.At = c.At.UTC()
	data, err := json.Marshal(c)
	if err != nil {
		return BlockClaim{}, false, err
	}
	for {
		rev, err := kv.create(ctx, key, data)
		if err == nil {
			c.Revision = rev
			return c, true, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return BlockClaim{}, false, fmt.Errorf("claim block %d/%d: %w", c.Emission, c.Number, err)
		}
		cur, err := ReadClaim(ctx, kv, c.Emission, c.Number)
		if errors.Is(err, ErrNoClaim) {
			continue // released meanwhile: create it again
		}
		if err != nil {
			return BlockClaim{}, false, fmt.Errorf("claim block %d/%d: %w", c.Emission, c.Number, err)
		}
		return cur, false, nil
	}
}

// ReleaseClaim gives back a claim this kiosk created, if no one wrote its
// entry since: a block claimed and then refused by the kiosk's import
// (its file, its disk) may go to another kiosk.
func ReleaseClaim(ctx context.Context, kv Bucket, c BlockClaim) error {
	if err := kv.delete(ctx, ClaimKey(c.Emission, c.Number), c.Revision); err != nil {
		return fmt.Errorf("give back the claim of block %d/%d: %w", c.Emission, c.Number, err)
	}
	return nil
}

// addAlso adds c's kiosk to the kiosks also selling the block holder
// holds, and reports whether it was not there yet.
func addAlso(ctx context.Context, kv Bucket, holder, c BlockClaim) (bool, error) {
	for {
		if holder.Kiosk == c.Kiosk || slices.ContainsFunc(holder.Also, func(a BlockClaim) bool { return a.Kiosk == c.Kiosk }) {
			return false, nil
		}
		c.Also, c.Revision = nil, 0
		holder.Also = append(holder.Also, c)
		data, err := json.Marshal(holder)
		if err != nil {
			return false, err
		}
		_, err = kv.update(ctx, ClaimKey(holder.Emission, holder.Number), data, holder.Revision)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return false, err
		}
		holder, err = ReadClaim(ctx, kv, c.Emission, c.Number)
		if errors.Is(err, ErrNoClaim) {
			_, _, err = ClaimBlock(ctx, kv, c)
			return false, err
		}
		if err != nil {
			return false, err
		}
	}
}

// claimHeld claims every block of the kiosk's store but the demonstration
// ones (kiosk.DemoEmission): the blocks imported while the centre did not
// answer (and those imported before the fleet claimed blocks). A block found claimed by another kiosk is added to its
// entry's Also and reported in the kiosk's events, once.
func claimHeld(ctx context.Context, kv Bucket, st BlockStore, me string, now time.Time) error {
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
		c := BlockClaim{Kiosk: me, Emission: b.Emission, Number: b.Number, SHA256: hex.EncodeToString(b.FileDigest[:]),
			At: now, Via: "late"}
		holder, created, err := ClaimBlock(ctx, kv, c)
		if err != nil {
			return err
		}
		switch {
		case created:
			_, err = st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "fleet", Code: EventBlockClaim,
				Detail: fmt.Sprintf("%s (block id %d, %s) claimed in the fleet now that the centre answers", b.Name(), b.ID, b.State)})
		case holder.Kiosk != me:
			var added bool
			added, err = addAlso(ctx, kv, holder, c)
			if err == nil && added {
				_, err = st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "fleet", Code: EventBlockClaim,
					Detail: fmt.Sprintf("%s (block id %d, %s, %d sold) is on sale at kiosk %s too, since %s: "+
						"its units sold twice; withdraw it here", b.Name(), b.ID, b.State, b.Sold, holder.Kiosk, holder.At.Format(time.RFC3339))})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Claimer is a kiosk's side of the claims for the imports at the kiosk
// (kiosk.BlockClaims): it keeps one connection of its own, made when first
// needed and again after it failed; an operation that cannot reach the
// server within Timeout is kiosk.ErrFleetOffline.
type Claimer struct {
	cfg Config
	// Timeout bounds each claim, connection included (default 5 s).
	Timeout time.Duration

	// OnLater, when set, is called with a block imported while the centre
	// did not answer (cmd/pharaon: the fetcher's Reclaim).
	OnLater func(kiosk.BlockClaim)

	mu sync.Mutex
	nc *nats.Conn
	kv Bucket
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

func (c *Claimer) bucket(ctx context.Context) (Bucket, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil && c.nc.IsConnected() {
		return c.kv, nil
	}
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	nc, js, err := connectWithin(ctx, c.cfg)
	if err != nil {
		return Bucket{}, offline(err)
	}
	c.nc, c.kv = nc, NewBucket(js, ClaimsBucket)
	return c.kv, nil
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
// again. The release deletes the claim if no one wrote it since (the
// caller gives it back only when its store does not hold the block).
func (c *Claimer) Claim(ctx context.Context, b kiosk.BlockClaim) (func(context.Context) error, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	kv, err := c.bucket(ctx)
	if err != nil {
		return nil, err
	}
	holder, _, err := ClaimBlock(ctx, kv, BlockClaim{Kiosk: c.cfg.KioskID, Emission: b.Emission, Number: b.Number,
		SHA256: hex.EncodeToString(b.FileDigest[:]), At: b.At, Via: b.Via})
	if err != nil {
		return nil, c.failed(err)
	}
	if holder.Kiosk != c.cfg.KioskID {
		return nil, &kiosk.BlockTakenError{Emission: b.Emission, Number: b.Number, Kiosk: holder.Kiosk, At: holder.At}
	}
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		kv, err := c.bucket(ctx)
		if err != nil {
			return err
		}
		return ReleaseClaim(ctx, kv, holder)
	}, nil
}

// Later passes a block imported offline to OnLater: the fetcher claims
// every block the kiosk holds at each connection, and at once when told.
func (c *Claimer) Later(b kiosk.BlockClaim) {
	if c.OnLater != nil {
		c.OnLater(b)
	}
}
