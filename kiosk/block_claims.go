package kiosk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"pharaon/game/block"
	"pharaon/store"
)

// The fleet's claims of blocks (DESIGN.md §11): a block is a batch of
// pre-drawn tickets with exactly the regulation's prize table, so it may be
// on sale at one kiosk only; sold at two, every unit is sold twice and its
// lots paid twice. A kiosk joined to a fleet claims a block in the centre's
// record before it imports it, and does not import one another kiosk
// claimed. The core does not know how the centre is reached: cmd/pharaon
// sets a BlockClaims (kiosk/fleet.Claimer) on the machine.

// BlockClaim is a block this kiosk is about to import.
type BlockClaim struct {
	Emission, Number uint32
	FileDigest       [32]byte
	At               time.Time // the kiosk's now
	Via              string    // how it came: "local" (a file at the kiosk) or "delivery N"
}

// BlockClaims is the fleet's record of which kiosk sells which block.
type BlockClaims interface {
	// Claim records, once across the fleet, that this kiosk sells the
	// block c (a compare-and-set: of two kiosks only one succeeds). A
	// block this kiosk claimed before is claimed again. A block another
	// kiosk claimed is a *BlockTakenError wrapping ErrBlockTaken; a
	// centre that cannot be reached is ErrFleetOffline. release gives the
	// claim back when the kiosk did not import the block after all.
	Claim(ctx context.Context, c BlockClaim) (release func(context.Context) error, err error)
	// Later says that the block c was imported while the centre did not
	// answer: it is to be claimed when the centre answers again.
	Later(c BlockClaim)
}

// ErrBlockTaken: another kiosk of the fleet claimed the block: it is on
// sale there and must not be sold here.
var ErrBlockTaken = errors.New("block already on sale at another kiosk of the fleet")

// BlockTakenError is ErrBlockTaken with the kiosk holding the block.
type BlockTakenError struct {
	Emission, Number uint32
	Kiosk            string    // the kiosk that claimed it
	At               time.Time // when (its clock)
}

func (e *BlockTakenError) Error() string {
	return fmt.Sprintf("block %d/%d: %v: kiosk %s since %s", e.Emission, e.Number, ErrBlockTaken, e.Kiosk,
		e.At.UTC().Format(time.RFC3339))
}
func (e *BlockTakenError) Unwrap() error { return ErrBlockTaken }

// Events of the claims (source "kiosk").
const (
	// EventBlockTaken: a local import refused, the block claimed by
	// another kiosk.
	EventBlockTaken = "block_taken"
	// EventBlockUnclaimed: a block imported while the centre did not
	// answer; the kiosk claims it when the centre answers again.
	EventBlockUnclaimed = "block_unclaimed"
)

// SetBlockClaims joins the machine's imports to the fleet's claims c: from
// then on ImportBlock claims a block before importing it. A nil c leaves
// the kiosk alone.
func (m *Machine) SetBlockClaims(c BlockClaims) {
	m.mu.Lock()
	m.claims = c
	m.mu.Unlock()
}

func (m *Machine) blockClaims() BlockClaims {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.claims
}

// ImportBlock imports a signed block file verified against the trusted
// keys (the maintenance screen's import), through ImportBlockClaiming with
// the fleet's claims when the kiosk is joined to a fleet, then reads the
// stakes on sale again.
func (m *Machine) ImportBlock(ctx context.Context, r io.Reader) (store.BlockInfo, error) {
	claims := m.blockClaims()
	if claims == nil {
		return m.ImportBlockClaimed(ctx, r)
	}
	info, err := ImportBlockClaiming(ctx, m.st, m.cfg.Keys, claims, m.clk.Now(), r)
	if err != nil {
		return info, err
	}
	return info, m.refresh(ctx)
}

// ImportBlockClaiming imports a block file at a kiosk joined to a fleet
// (the maintenance screen, pharaon import): once its file is verified, the
// block is claimed in the fleet's record first. A block another kiosk
// claimed is refused (a *BlockTakenError, the event EventBlockTaken) and
// nothing changes; while the centre does not answer the block is imported
// with the warning EventBlockUnclaimed, and the kiosk claims it when the
// centre answers again (kiosk/fleet/claims.go: a block found on sale at
// another kiosk is then reported). A claim whose import fails is given
// back. A file that does not verify is not claimed: the store refuses it
// and logs why, as at a kiosk alone.
func ImportBlockClaiming(ctx context.Context, st *store.Store, keys block.Keys, claims BlockClaims, now time.Time, r io.Reader) (store.BlockInfo, error) {
	logf := func(level store.Level, code, format string, args ...any) {
		_, _ = st.Log(context.WithoutCancel(ctx), store.Event{Level: level, Source: "kiosk", Code: code, Detail: fmt.Sprintf(format, args...)})
	}
	// A block file is block.FileSize bytes: read once, verified, then
	// imported from memory.
	file, err := io.ReadAll(io.LimitReader(r, 2*block.FileSize))
	if err != nil {
		return store.BlockInfo{}, fmt.Errorf("import block: read: %w", err)
	}
	sum, err := block.Verify(bytes.NewReader(file), keys)
	if err != nil {
		return st.ImportBlock(ctx, bytes.NewReader(file), keys)
	}
	h := sum.Header
	release, err := claims.Claim(ctx, BlockClaim{Emission: h.Emission, Number: h.Number, FileDigest: sum.FileDigest,
		At: now, Via: "local"})
	offline := errors.Is(err, ErrFleetOffline)
	var taken *BlockTakenError
	switch {
	case errors.As(err, &taken):
		logf(store.LevelWarning, EventBlockTaken, "block %d/%d (file %x) not imported: on sale at kiosk %s since %s",
			h.Emission, h.Number, sum.FileDigest[:8], taken.Kiosk, taken.At.UTC().Format(time.RFC3339))
		return store.BlockInfo{}, err
	case offline:
		release = nil
	case err != nil:
		return store.BlockInfo{}, fmt.Errorf("import block %d/%d: claim it in the fleet: %w", h.Emission, h.Number, err)
	}
	info, err := st.ImportBlock(ctx, bytes.NewReader(file), keys)
	if err != nil {
		if release != nil && !holds(context.WithoutCancel(ctx), st, h.Emission, h.Number) {
			if rerr := release(context.WithoutCancel(ctx)); rerr != nil {
				logf(store.LevelWarning, EventBlockTaken, "block %d/%d refused here, its claim in the fleet not given back: %v",
					h.Emission, h.Number, rerr)
			}
		}
		return info, err
	}
	if offline {
		claims.Later(BlockClaim{Emission: h.Emission, Number: h.Number, FileDigest: sum.FileDigest, At: now, Via: "local"})
		logf(store.LevelWarning, EventBlockUnclaimed, "block %d/%d (file %x) imported while the fleet's centre does not answer: "+
			"claimed when it answers; on sale at another kiosk, it is reported there and here", h.Emission, h.Number, sum.FileDigest[:8])
	}
	return info, nil
}

// holds reports whether the store has a block of that emission and number
// (or cannot tell: then it is taken as held, and a claim is kept).
func holds(ctx context.Context, st *store.Store, emission, number uint32) bool {
	blocks, err := st.Blocks(ctx)
	if err != nil {
		return true
	}
	for _, b := range blocks {
		if b.Emission == emission && b.Number == number {
			return true
		}
	}
	return false
}
