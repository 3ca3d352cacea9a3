package block

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// validUnits is a small block's units in tier order: lots of tier 1 first,
// bonus lots first within a tier, losers last.
func validUnits(bonus [game.NumTiers]uint32) []Unit {
	sp, _ := smallSpecs(game.Stake050)
	var us []Unit
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		for i := range sp.lots[t-1] {
			us = append(us, Unit{Index: uint32(len(us)), Tier: t, ViaBonus: i < bonus[t-1], Seed: uint64(len(us))})
		}
	}
	for len(us) < smallUnits {
		us = append(us, Unit{Index: uint32(len(us)), Seed: uint64(len(us))})
	}
	return us
}

// The writer signs only a block a reader accepts: every mistake is refused
// at the unit that makes it, sticks, and leaves the file unsigned.
func TestWriterRefusesWrongUnits(t *testing.T) {
	bonus := [game.NumTiers]uint32{1, 0, 1, 0, 0, 0, 0, 2}
	cases := []struct {
		name string
		edit func([]Unit) []Unit
		err  error
		msg  string
	}{
		{"index out of order", func(us []Unit) []Unit { us[5].Index = 6; return us }, ErrFormat, "block 4/2: unit at position 5 has index 6"},
		{"tier 9", func(us []Unit) []Unit { us[3].Tier = 9; return us }, ErrFormat, "unit 3 has tier 9, the table has tiers 1 to 8"},
		{"loser via bonus", func(us []Unit) []Unit { us[99].ViaBonus = true; return us }, ErrFormat, "unit 99 loses but is marked as revealed through the bonus"},
		{"one lot too many", func(us []Unit) []Unit { us[99].Tier = 3; return us }, ErrCounts, "unit 99 would be lot 3 of tier 3, the table has 2"},
		{"one loser too many", func(us []Unit) []Unit { us[1].Tier = 0; return us }, ErrCounts, "unit 99 would be losing unit 48, the table leaves 47"},
		{"one unit too many", func(us []Unit) []Unit { return append(us, Unit{Index: 100}) }, ErrCounts, "unit 100 is beyond the 100 units of a block"},
		{"bonus beyond the header", func(us []Unit) []Unit { us[3].ViaBonus = true; return us }, ErrCounts, "unit 3 would be lot 2 of tier 3 via the bonus, the header says 1"},
		{"bonus below the header", func(us []Unit) []Unit { us[0].ViaBonus = false; return us }, ErrCounts, "tier 1 has 0 units via the bonus, the header says 1"},
		{"short block", func(us []Unit) []Unit { return us[:99] }, ErrCounts, "closed after 99 of 100 units"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := Header{Emission: 4, Number: 2, Stake: game.Stake050, BonusLots: bonus, Created: testCreated}
			w, err := newWriter(&buf, h, testPriv, smallSpecs)
			require.NoError(t, err)
			var werr error
			for _, u := range c.edit(validUnits(bonus)) {
				if werr = w.Write(u); werr != nil {
					break
				}
			}
			cerr := w.Close()
			err = werr
			if err == nil {
				err = cerr
			}
			assert.ErrorIs(t, err, c.err)
			assert.ErrorContains(t, err, c.msg)
			assert.Equal(t, err, cerr, "Close returns the first error")
			assert.Equal(t, err, w.Write(Unit{Index: 100}), "the error sticks")
			assert.LessOrEqual(t, buf.Len(), prefixSize+smallUnits*unitSize, "no signature")
			_, verr := scanSmall(buf.Bytes())
			assert.Error(t, verr)
		})
	}
	// And the unedited units make a block.
	var buf bytes.Buffer
	w, err := newWriter(&buf, Header{Emission: 4, Number: 2, Stake: game.Stake050, BonusLots: bonus}, testPriv, smallSpecs)
	require.NoError(t, err)
	for _, u := range validUnits(bonus) {
		require.NoError(t, w.Write(u))
	}
	require.NoError(t, w.Close())
	assert.ErrorContains(t, w.Write(Unit{Index: 100}), "block writer closed")
	_, err = scanSmall(buf.Bytes())
	require.NoError(t, err)
}

type failingWriter struct{ after int }

var errDiskFull = errors.New("no space left on device")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.after {
		n := f.after
		f.after = 0
		return n, errDiskFull
	}
	f.after -= len(p)
	return len(p), nil
}

// An error of the underlying writer is returned (wrapped), whichever part
// it hits.
func TestWriterPassesWriteErrors(t *testing.T) {
	for _, after := range []int{0, 50, prefixSize + 10, prefixSize + smallUnits*unitSize + 3} {
		var err error
		fw := &failingWriter{after: after}
		_, err = generate(fw, smallParams(1), testPriv, smallSpecs)
		assert.ErrorIs(t, err, errDiskFull, "after %d bytes", after)
		assert.ErrorContains(t, err, "block 3/14: write", "after %d bytes", after)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errDiskFull
	}
	k := min(len(p), f.n)
	for i := range k {
		p[i] = byte(i)
	}
	f.n -= k
	return k, nil
}

func TestGeneratePassesRandomSourceErrors(t *testing.T) {
	for _, n := range []int{0, 100, 99 * 8} {
		p := smallParams(1)
		p.Rand = &failingReader{n: n}
		var buf bytes.Buffer
		_, err := generate(&buf, p, testPriv, smallSpecs)
		assert.ErrorIs(t, err, errDiskFull)
		assert.ErrorContains(t, err, "random source")
	}
}
