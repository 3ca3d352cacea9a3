package block

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

var sentinels = []error{ErrFormat, ErrVersion, ErrUnknownKey, ErrSignature, ErrTruncated, ErrTrailing, ErrCounts, ErrHeader}

// requireRefused asserts that err refuses a block with one of the
// package's sentinels and a message naming the problem.
func requireRefused(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, what)
	require.NotEqual(t, io.EOF, err, what)
	for _, s := range sentinels {
		if errors.Is(err, s) {
			require.Greater(t, len(err.Error()), len(s.Error())+10, "%s: the message says more than %q", what, s)
			return
		}
	}
	t.Fatalf("%s: %v wraps no sentinel", what, err)
}

// flips are the single-byte alterations tried at each position: each of
// the 8 single-bit flips and the complement (under -race, the lowest and
// highest bit and the complement).
func flips() []byte {
	if raceEnabled {
		return []byte{1, 128, 0xff}
	}
	return []byte{1, 2, 4, 8, 16, 32, 64, 128, 0xff}
}

// Every single-byte alteration of a small signed block, at every position
// and with every bit pattern above, is refused.
func TestTamperEveryByteOfSmallBlock(t *testing.T) {
	t.Parallel()
	file := smallFile(t, 3)
	_, err := scanSmall(file)
	require.NoError(t, err)
	bad := clone(file)
	for i := range file {
		for _, f := range flips() {
			bad[i] ^= f
			_, err := scanSmall(bad)
			requireRefused(t, err, fmt.Sprintf("byte %d ^ %#02x", i, f))
			bad[i] ^= f
		}
	}
}

// Every proper prefix of a small block is refused as truncated, and any
// byte appended as trailing.
func TestTruncateAndAppendSmallBlock(t *testing.T) {
	t.Parallel()
	file := smallFile(t, 4)
	for n := range len(file) {
		_, err := scanSmall(file[:n])
		require.ErrorIs(t, err, ErrTruncated, "cut at %d", n)
	}
	for _, extra := range [][]byte{{0}, {0xff}, make([]byte, 64), unitAt(file, 0), file} {
		_, err := scanSmall(append(clone(file), extra...))
		require.ErrorIs(t, err, ErrTrailing, "%d bytes appended", len(extra))
		assert.ErrorContains(t, err, "block 3/14: bytes follow the signature (a block file has 1570 bytes)")
	}
}

// The full-size file: every byte of the magic, the header, the signature
// and the first and last units, and a sample of the other unit bytes;
// truncation at the boundaries and at random points; appended bytes.
func TestTamperFullBlock(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	_, err := Generate(&buf, Params{Emission: 1, Number: 7, Stake: game.Stake050, Created: testCreated, Rand: seeded(11)}, testPriv)
	require.NoError(t, err)
	file := buf.Bytes()
	verify := func(b []byte) error { _, err := Verify(bytes.NewReader(b), testKeys); return err }
	require.NoError(t, verify(file))

	rng := rand.New(rand.NewPCG(1, 2))
	// Under -race a scan that reaches the signature costs ~0.2 s, so one
	// position in three is tried (TestTamperEveryByteOfSmallBlock still
	// alters every byte of a whole file, through the same code).
	keep := func() bool { return !raceEnabled || rng.IntN(3) == 0 }
	var positions []int
	for i := range prefixSize + unitSize { // magic, header, first unit
		if keep() {
			positions = append(positions, i)
		}
	}
	for i := FileSize - sigSize - unitSize; i < FileSize; i++ { // last unit, signature
		if keep() || i == FileSize-1 {
			positions = append(positions, i)
		}
	}
	for range 48 {
		if keep() {
			positions = append(positions, prefixSize+unitSize+rng.IntN(FileSize-prefixSize-sigSize-2*unitSize))
		}
	}
	bad := clone(file)
	fl := flips()
	for _, i := range positions {
		f := fl[rng.IntN(len(fl))]
		bad[i] ^= f
		requireRefused(t, verify(bad), fmt.Sprintf("byte %d ^ %#02x", i, f))
		bad[i] ^= f
	}

	cuts := []int{0, 1, 7, 8, 9, 10, prefixSize - 1, prefixSize, prefixSize + 1, prefixSize + unitSize,
		FileSize - sigSize - 1, FileSize - sigSize, FileSize - sigSize + 1, FileSize - 1}
	for range 8 {
		cuts = append(cuts, rng.IntN(FileSize))
	}
	for _, n := range cuts {
		require.ErrorIs(t, verify(file[:n]), ErrTruncated, "cut at %d", n)
	}
	assert.ErrorContains(t, verify(file[:FileSize-1]), "block 1/7: file ends in the signature (63 of 64 bytes)")
	assert.ErrorContains(t, verify(file[:prefixSize+5*unitSize+1]), "block 1/7: file ends in unit 5 of 350000")
	for _, extra := range [][]byte{{0}, make([]byte, 100)} {
		assert.ErrorIs(t, verify(append(clone(file), extra...)), ErrTrailing)
	}
}

// Blocks signed by the trusted key but wrong inside: the reader does not
// take a signature for a guarantee of the counts.
func TestReaderRefusesSignedWrongBlocks(t *testing.T) {
	t.Parallel()
	file := smallFile(t, 5)
	// Positions of some units by tier in this file.
	pos := map[game.Tier][]int{}
	var bonusPos, plain8 []int
	for i := range smallUnits {
		u := unitAt(file, i)
		pos[game.Tier(u[4])] = append(pos[game.Tier(u[4])], i)
		switch {
		case u[5] == 1:
			bonusPos = append(bonusPos, i)
		case u[4] == 8:
			plain8 = append(plain8, i)
		}
	}
	require.NotEmpty(t, bonusPos)
	cases := []struct {
		name string
		edit func([]byte)
		err  error
		msg  string
	}{
		{"a tier 3 lot made a loser", func(b []byte) { unitAt(b, pos[3][1])[4] = 0; unitAt(b, pos[3][1])[5] = 0 }, ErrCounts,
			"block 3/14: tier 3 has 1 units, the table has 2: lot counts"},
		{"a loser made a tier 8 lot", func(b []byte) { unitAt(b, pos[0][0])[4] = 8 }, ErrCounts,
			"block 3/14: tier 8 has 21 units, the table has 20"},
		{"a tier 7 lot made a tier 6 lot", func(b []byte) { unitAt(b, pos[7][0])[4] = 6 }, ErrCounts,
			"tier 6 has 9 units, the table has 8"},
		{"a bonus flag dropped", func(b []byte) { unitAt(b, bonusPos[0])[5] = 0 }, ErrCounts, "units via the bonus, the header says"},
		{"a bonus flag added", func(b []byte) { unitAt(b, plain8[0])[5] = 1 }, ErrCounts, "tier 8 has 5 units via the bonus, the header says 4"},
		{"a loser via bonus", func(b []byte) { unitAt(b, pos[0][2])[5] = 1 }, ErrFormat,
			fmt.Sprintf("unit %d loses but is marked as revealed through the bonus", pos[0][2])},
		{"tier 9", func(b []byte) { unitAt(b, 42)[4] = 9 }, ErrFormat, "unit 42 has tier 9, the table has tiers 1 to 8"},
		{"unknown flag", func(b []byte) { unitAt(b, 42)[5] |= 4 }, ErrFormat, "unit 42 has unknown flags"},
		{"two units swapped", func(b []byte) {
			u0, u1 := clone(unitAt(b, 0)), clone(unitAt(b, 1))
			copy(unitAt(b, 0), u1)
			copy(unitAt(b, 1), u0)
		}, ErrFormat, "unit at position 0 has index 1"},
		{"a unit repeated", func(b []byte) { copy(unitAt(b, 10), unitAt(b, 9)) }, ErrFormat, "unit at position 10 has index 9"},
	}
	for _, c := range cases {
		b := clone(file)
		c.edit(b)
		_, err := scanSmall(b)
		requireRefused(t, err, c.name+", not re-signed")
		_, err = scanSmall(resign(b, testPriv))
		assert.ErrorIs(t, err, c.err, c.name)
		assert.ErrorContains(t, err, c.msg, c.name)
	}
}

// The stream stops at the first problem and says so again on every call;
// units before it were returned, none after.
func TestReaderErrorIsSticky(t *testing.T) {
	file := smallFile(t, 6)
	unitAt(file, 30)[4] = 77
	r, err := open(bytes.NewReader(file), testKeys, smallSpecs)
	require.NoError(t, err)
	for i := range 30 {
		u, err := r.Next()
		require.NoError(t, err)
		assert.Equal(t, uint32(i), u.Index)
	}
	_, err = r.Next()
	require.ErrorIs(t, err, ErrFormat)
	for range 3 {
		u, err2 := r.Next()
		assert.Equal(t, err, err2)
		assert.Zero(t, u)
	}
	assert.Zero(t, r.FileDigest())
}
