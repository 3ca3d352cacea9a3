package store_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// The life of a play as the kiosk drives it: a bank note, a play, its
// reveal, its prize; then, at the next boot, the checks and the recovery of
// a play a power cut interrupted.
func Example() {
	ctx := context.Background()
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	dir, err := os.MkdirTemp("", "pharaon-example-")
	check(err)
	defer os.RemoveAll(dir)

	// The issuer's block (here generated on the spot with a fixed seed).
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	f, err := os.Create(filepath.Join(dir, "block.pblk"))
	check(err)
	_, err = block.Generate(f, block.Params{Emission: 1, Number: 1, Stake: game.Stake050,
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{1})}, priv)
	check(err)
	check(f.Close())
	keys := block.NewKeySet(priv.Public().(ed25519.PublicKey))

	s, err := store.Open(filepath.Join(dir, "pharaon.db"))
	check(err)
	f, err = os.Open(filepath.Join(dir, "block.pblk"))
	check(err)
	b, err := s.ImportBlock(ctx, f, keys)
	check(err)
	f.Close()
	fmt.Println(b.Name(), b.State, b.Units, "units")

	// Credit comes from a bank note, once per validator sequence number.
	_, err = s.BillIn(ctx, 5*game.Euro, "note-0001")
	check(err)
	if _, err := s.BillIn(ctx, 5*game.Euro, "note-0001"); errors.Is(err, store.ErrDuplicateRef) {
		fmt.Println("note-0001 already credited")
	}

	// Jouer: one durable commit debits the stake and draws the unit.
	p, err := s.StartPlay(ctx, store.PlayRequest{Stake: game.Stake050, Mode: store.ModeJouer, LayoutVersion: 1})
	check(err)
	fmt.Println("play", p.ID, "unit", p.Unit, "credit", p.Balance.Plain())
	check(s.SaveRecording(ctx, p.ID, []byte("paddle inputs so far")))
	check(s.SetPlayState(ctx, p.ID, store.PlayMainDone))
	check(s.Close()) // the power is cut before the end of the wall

	// Next boot: check everything, then finish what was started.
	s, err = store.Open(filepath.Join(dir, "pharaon.db"))
	check(err)
	defer s.Close()
	check(s.Verify(ctx))
	unfinished, err := s.UnfinishedPlays(ctx)
	check(err)
	for _, p := range unfinished {
		fmt.Println("resume play", p.ID, p.State, string(p.Recording))
		// The kiosk replays the wall from the recording, then reports what
		// it revealed; the store pays the unit's own prize.
		var revealed game.Counts
		if p.Tier.Wins() {
			c := game.Table(p.Stake).Prizes[p.Tier-1].Combination
			revealed[c.Symbol] = c.Count
		}
		done, err := s.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: revealed, Shown: p.Prize})
		check(err)
		fmt.Println("prize", done.Prize.Plain(), "mismatch", done.Mismatch)
	}
	credit, err := s.Credit(ctx)
	check(err)
	m, err := s.Meters(ctx)
	check(err)
	fmt.Println("credit", credit.Plain(), "plays", m.Get(store.MeterPlays), "staked", game.Money(m.Get(store.MeterStaked)).Plain())
	// Output:
	// block 1/1 open 350000 units
	// note-0001 already credited
	// play 1 unit 0 credit 4,50 EUR
	// resume play 1 main_done paddle inputs so far
	// prize 0,50 EUR mismatch false
	// credit 5 EUR plays 1 staked 0,50 EUR
}
