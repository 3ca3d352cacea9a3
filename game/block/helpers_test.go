package block

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// Fixed keys, so that files built by tests (and the fuzz corpus) are the
// same on every run.
var (
	testPriv  = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	testPub   = testPriv.Public().(ed25519.PublicKey)
	otherPriv = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, ed25519.SeedSize))
	otherPub  = otherPriv.Public().(ed25519.PublicKey)
	testKeys  = NewKeySet(testPub)
)

var testCreated = time.Date(2026, 5, 4, 9, 30, 15, 0, time.UTC)

// smallLots is the table of the small blocks of tests: 53 lots, 47 losers.
var smallLots = [game.NumTiers]uint32{1, 1, 2, 3, 5, 8, 13, 20}

const smallUnits = 100

// smallSpecs gives every stake a 100-unit block, so that a whole file is
// 1 570 bytes: small enough to flip every one of its bits and to seed the
// fuzzer with complete files.
func smallSpecs(s game.Stake) (spec, bool) {
	if !s.Valid() {
		return spec{}, false
	}
	d := sha256.Sum256([]byte("pharaon test table " + s.String()))
	return spec{units: smallUnits, lots: smallLots, digest: d}, true
}

// seeded is a reproducible random source for Params.Rand.
func seeded(seed byte) io.Reader {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

func smallParams(seed byte) Params {
	return Params{Emission: 3, Number: 14, Stake: game.Stake100, Created: testCreated, Rand: seeded(seed)}
}

// smallFile generates a signed small block.
func smallFile(t testing.TB, seed byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := generate(&buf, smallParams(seed), testPriv, smallSpecs)
	require.NoError(t, err)
	require.Equal(t, prefixSize+smallUnits*unitSize+sigSize, buf.Len())
	return buf.Bytes()
}

// resign replaces the signature of a file whose content a test altered on
// purpose, so that only the alteration is wrong.
func resign(file []byte, priv ed25519.PrivateKey) []byte {
	body := file[:len(file)-sigSize]
	sum := sha512.Sum512(body)
	sig, err := priv.Sign(nil, sum[:], signOpts)
	if err != nil {
		panic(err)
	}
	return append(append([]byte(nil), body...), sig...)
}

// scanSmall verifies a small block file.
func scanSmall(b []byte) (Summary, error) { return scan(bytes.NewReader(b), testKeys, smallSpecs) }

// unitAt returns the bytes of unit i of a file.
func unitAt(file []byte, i int) []byte {
	return file[prefixSize+i*unitSize : prefixSize+(i+1)*unitSize]
}

// clone copies b.
func clone(b []byte) []byte { return append([]byte(nil), b...) }
