package block

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"io"
	"testing"

	"pharaon/game"
)

// Generating and signing a full block, with crypto/rand as the issuer does
// and with a seeded ChaCha8 source; the baselines are what cannot be
// avoided: reading the random bytes (8 per draw of the shuffle and 8 per
// seed) and hashing the file.
func BenchmarkGenerate(b *testing.B) {
	for _, c := range []struct {
		name string
		src  func() io.Reader
	}{
		{"crypto-rand", func() io.Reader { return nil }},
		{"chacha8", func() io.Reader { return seeded(1) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(FileSize)
			b.ReportAllocs()
			for b.Loop() {
				p := Params{Emission: 1, Number: 1, Stake: game.Stake050, Created: testCreated, Rand: c.src()}
				if _, err := Generate(io.Discard, p, testPriv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBaselineRandomBytes reads from crypto/rand the 16 bytes per unit
// Generate needs at least.
func BenchmarkBaselineRandomBytes(b *testing.B) {
	buf := make([]byte, 32<<10)
	b.SetBytes(FileSize)
	for b.Loop() {
		for n := 0; n < 16*game.UnitsPerBlock; n += len(buf) {
			rand.Read(buf)
		}
	}
}

// Reading and verifying a full block from memory.
func BenchmarkVerify(b *testing.B) {
	var buf bytes.Buffer
	if _, err := Generate(&buf, Params{Emission: 1, Number: 1, Stake: game.Stake050, Created: testCreated, Rand: seeded(1)}, testPriv); err != nil {
		b.Fatal(err)
	}
	file := buf.Bytes()
	b.SetBytes(FileSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(bytes.NewReader(file), testKeys); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineHashes is the floor of Verify: SHA-512 (the signed
// digest) and SHA-256 (the file digest) over the whole file.
func BenchmarkBaselineHashes(b *testing.B) {
	file := make([]byte, FileSize)
	b.SetBytes(FileSize)
	for b.Loop() {
		sha512.Sum512(file)
		sha256.Sum256(file)
	}
}
