package block_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"pharaon/game"
	"pharaon/game/block"
)

// A kiosk imports a block by streaming its units into one transaction and
// commits only when Next returns io.EOF: then, and only then, the
// signature, the trailing bytes and every lot count have been checked.
func ExampleReader() {
	// The issuer's side (with a seeded source here; the issuer leaves
	// Params.Rand nil to use crypto/rand).
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	var file bytes.Buffer
	_, err := block.Generate(&file, block.Params{
		Emission: 1, Number: 7, Stake: game.Stake050,
		Created: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC),
		Rand:    rand.NewChaCha8([32]byte{}),
	}, priv)
	if err != nil {
		panic(err)
	}

	// The kiosk's side.
	trusted := block.NewKeySet(priv.Public().(ed25519.PublicKey))
	r, err := block.NewReader(&file, trusted)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	var won game.Money
	tab := game.Table(r.Header().Stake)
	for {
		u, err := r.Next()
		if err == io.EOF {
			break // commit
		}
		if err != nil {
			fmt.Println("refused:", err) // roll back
			return
		}
		won += tab.Amount(u.Tier) // insert u
	}
	fmt.Printf("block %d/%d at %s: %s of prizes\n", r.Header().Emission, r.Header().Number, r.Header().Stake.Money().Plain(), won.Plain())
	// Output: block 1/7 at 0,50 EUR: 122 250 EUR of prizes
}
