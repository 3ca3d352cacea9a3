// Package kiosktest makes the databases the kiosk's tests play on: signed
// blocks whose first units are chosen by the test (a loser, a top prize, a
// prize through the bonus…) followed by the rest of the table, imported into
// a template database that each test copies, so every test sells the same
// units in the same order without importing 350 000 units of its own.
//
// It is test support: a production kiosk never imports it. It signs with a
// fixed, public key that no kiosk must ever trust.
package kiosktest

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// Key is the tests' issuer key, made from a fixed seed; Keys trusts it.
var (
	Key  = ed25519.NewKeyFromSeed([]byte("pharaon-kiosktest-issuer-seed-32"))
	Keys = block.NewKeySet(Key.Public().(ed25519.PublicKey))
)

// Emission is the emission number of the test blocks.
const Emission = 7

// Unit is a unit a test places at the head of a block.
type Unit struct {
	Tier     game.Tier
	ViaBonus bool
}

// EveryOutcome is a loser, then every tier won directly, then every tier
// won through the bonus: seventeen units.
func EveryOutcome() []Unit {
	s := []Unit{{game.TierLose, false}}
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		s = append(s, Unit{t, false})
	}
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		s = append(s, Unit{t, true})
	}
	return s
}

// Seed is the reveal seed of the unit at index i of a test block of stake s.
func Seed(s game.Stake, i uint32) uint64 { return uint64(i)*0x9E3779B97F4A7C15 + uint64(s) }

// WriteBlock writes a block of stake signed with Key whose first units are
// head, then every other lot of the table (the default bonus shares), then
// the losers. It fails if head holds more lots of a tier than the table.
func WriteBlock(w io.Writer, stake game.Stake, number uint32, head []Unit) error {
	tab := game.Table(stake)
	var bonus [game.NumTiers]uint32
	for i, share := range block.DefaultBonusShare {
		bonus[i] = max(1, uint32((tab.Prizes[i].Lots*int(share)+500)/1000))
	}
	h := block.Header{Emission: Emission, Number: number, Stake: stake, BonusLots: bonus,
		Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	bw, err := block.NewWriter(w, h, Key)
	if err != nil {
		return err
	}
	var direct, via [game.NumTiers + 1]int // lots still to place
	direct[0] = tab.Losers()
	for i, p := range tab.Prizes {
		direct[i+1] = p.Lots - int(bonus[i])
		via[i+1] = int(bonus[i])
	}
	idx := uint32(0)
	put := func(u Unit) error {
		left := &direct[u.Tier]
		if u.ViaBonus {
			left = &via[u.Tier]
		}
		if *left == 0 {
			return fmt.Errorf("test block at %s: no lot of tier %d (via bonus %t) left for unit %d", stake, u.Tier, u.ViaBonus, idx)
		}
		*left--
		err := bw.Write(block.Unit{Index: idx, Tier: u.Tier, ViaBonus: u.ViaBonus, Seed: Seed(stake, idx)})
		idx++
		return err
	}
	for _, u := range head {
		if err := put(u); err != nil {
			return err
		}
	}
	for t := game.Tier(0); t <= game.NumTiers; t++ {
		for direct[t] > 0 {
			if err := put(Unit{t, false}); err != nil {
				return err
			}
		}
		for via[t] > 0 {
			if err := put(Unit{t, true}); err != nil {
				return err
			}
		}
	}
	return bw.Close()
}

// Template makes a database at path holding one test block per stake,
// heads[stake] at the head of each (block numbers 1, 2, 3 in stake order),
// and returns the database file's bytes for tests to copy.
func Template(path string, heads map[game.Stake][]Unit) ([]byte, error) {
	st, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	for i, s := range game.Stakes {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(WriteBlock(pw, s, uint32(i+1), heads[s])) }()
		if _, err := st.ImportBlock(context.Background(), pr, Keys); err != nil {
			pr.CloseWithError(err)
			st.Close()
			return nil, fmt.Errorf("import the test block at %s: %w", s, err)
		}
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// CopyTemplate writes template to a new database file in dir and returns
// its path.
func CopyTemplate(template []byte, dir string) (string, error) {
	path := filepath.Join(dir, "pharaon.db")
	return path, os.WriteFile(path, template, 0o600)
}
