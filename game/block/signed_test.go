package block

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// readSmall reads a small block file whole: its header, units and
// signature, as a store keeps them.
func readSmall(t *testing.T, file []byte) (Header, []Unit, [SignatureSize]byte) {
	t.Helper()
	r, err := open(bytes.NewReader(file), testKeys, smallSpecs)
	require.NoError(t, err)
	var units []Unit
	for {
		u, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.Equal(t, [SignatureSize]byte{}, r.Signature(), "no signature before the whole file is checked")
		units = append(units, u)
	}
	return r.Header(), units, r.Signature()
}

// TestSignedUnits: the signature kept from a file verifies the header and
// units rebuilt from what a store holds, and nothing else.
func TestSignedUnits(t *testing.T) {
	file := smallFile(t, 1)
	h, units, sig := readSmall(t, file)
	require.Equal(t, file[len(file)-sigSize:], sig[:])
	check := func(h Header, units []Unit, keys Keys, sig []byte) error {
		c := newSignedUnits(h, smallSpecs)
		for _, u := range units {
			c.Add(u)
		}
		return c.Verify(keys, sig)
	}
	require.NoError(t, check(h, units, testKeys, sig[:]))

	edited := func(f func(us []Unit)) []Unit {
		us := append([]Unit(nil), units...)
		f(us)
		return us
	}
	var loser, winner int
	for i, u := range units {
		if u.Tier == game.TierLose {
			loser = i
		} else if u.Tier == 1 {
			winner = i
		}
	}
	moved := edited(func(us []Unit) {
		us[loser].Tier, us[winner].Tier = us[winner].Tier, us[loser].Tier
		us[loser].ViaBonus, us[winner].ViaBonus = us[winner].ViaBonus, false
	})
	otherHeader := h
	otherHeader.Created = h.Created.Add(1e9)
	bonus := h
	bonus.BonusLots[len(bonus.BonusLots)-1]--
	badSig := sig
	badSig[0] ^= 1
	for _, c := range []struct {
		name  string
		h     Header
		units []Unit
		keys  Keys
		sig   []byte
		want  error
	}{
		{"a prize moved", h, moved, testKeys, sig[:], ErrSignature},
		{"a seed changed", h, edited(func(us []Unit) { us[3].Seed++ }), testKeys, sig[:], ErrSignature},
		{"the creation time changed", otherHeader, units, testKeys, sig[:], ErrSignature},
		{"the bonus lots changed", bonus, units, testKeys, sig[:], ErrSignature},
		{"a unit missing", h, units[:len(units)-1], testKeys, sig[:], ErrCounts},
		{"a unit out of place", h, edited(func(us []Unit) { us[5].Index = 6 }), testKeys, sig[:], ErrFormat},
		{"the signature altered", h, units, testKeys, badSig[:], ErrSignature},
		{"the signature cut", h, units, testKeys, sig[:63], ErrSignature},
		{"the key no longer trusted", h, units, NewKeySet(otherPub), sig[:], ErrUnknownKey},
		{"no keys", h, units, nil, sig[:], ErrUnknownKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := check(c.h, c.units, c.keys, c.sig)
			assert.ErrorIs(t, err, c.want)
			assert.ErrorContains(t, err, "block 3/14")
		})
	}
}
