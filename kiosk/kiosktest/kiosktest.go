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

// TemplateFiles is a template database as tests copy it: its files by
// name, the database and, when anchored, its anchor and its files trust
// root (store.DefaultAnchor's layout): a kiosk's data and trust root.
type TemplateFiles map[string][]byte

// Template makes a database at path holding one test block per stake,
// heads[stake] at the head of each (block numbers 1, 2, 3 in stake order),
// and returns its files for tests to copy. The units are sealed under no
// secret: the copies are opened without an anchor (AnchoredTemplate for
// the tests that open theirs as the kiosk binary does).
func Template(path string, heads map[game.Stake][]Unit) (TemplateFiles, error) {
	return template(path, heads, false)
}

// AnchoredTemplate is Template with the store anchored beside path, as the
// kiosk binary opens it: its copies are opened with
// store.WithAnchor(store.DefaultAnchor(copy)).
func AnchoredTemplate(path string, heads map[game.Stake][]Unit) (TemplateFiles, error) {
	return template(path, heads, true)
}

// anchoredFiles are the files beside an anchored database.
var anchoredFiles = []string{"pharaon.anchor", "trust.secret", "trust.counter"}

func template(path string, heads map[game.Stake][]Unit, anchored bool) (TemplateFiles, error) {
	var opts []store.Option
	if anchored {
		opts = append(opts, store.WithAnchor(store.DefaultAnchor(path)))
	}
	st, err := store.Open(path, opts...)
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
	files := TemplateFiles{}
	names := []string{"pharaon.db"}
	if anchored {
		names = append(names, anchoredFiles...)
	}
	for _, name := range names {
		from := filepath.Join(filepath.Dir(path), name)
		if name == "pharaon.db" {
			from = path
		}
		b, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// CopyTemplate writes the template's files to dir and returns the path of
// its database there.
func CopyTemplate(t TemplateFiles, dir string) (string, error) {
	for name, b := range t {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "pharaon.db"), nil
}
