package block

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// A full block of each stake, generated with crypto/rand as the issuer
// does, written, read back unit by unit and verified: every tier holds
// exactly the lots of its Art. 3 row, the bonus lots are those of the
// header, and the file is laid out as the contract says.
func TestFullBlockEachStake(t *testing.T) {
	for i, stake := range game.Stakes {
		t.Run(stake.Money().Plain(), func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			p := Params{Emission: 1, Number: uint32(7 + i), Stake: stake, Created: testCreated}
			h, err := Generate(&buf, p, testPriv)
			require.NoError(t, err)
			file := buf.Bytes()
			require.Len(t, file, FileSize)

			tab := game.Table(stake)
			want := Header{
				Version: FormatVersion, Emission: 1, Number: uint32(7 + i), Stake: stake,
				Units: game.UnitsPerBlock, TableDigest: tab.Digest(),
				BonusLots: [game.NumTiers]uint32{1, 2, 15, 50, 300, 1500, 6400, 12000},
				Created:   testCreated, KeyID: KeyIDOf(testPub),
			}
			assert.Equal(t, want, h)

			r, err := NewReader(bytes.NewReader(file), testKeys)
			require.NoError(t, err)
			assert.Equal(t, want, r.Header())
			var tiers, bonus [game.NumTiers + 1]int
			n := 0
			for {
				u, err := r.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				require.Equal(t, uint32(n), u.Index)
				tiers[u.Tier]++
				if u.ViaBonus {
					require.True(t, u.Tier.Wins(), "unit %d loses via the bonus", n)
					bonus[u.Tier]++
				}
				n++
			}
			assert.Equal(t, game.UnitsPerBlock, n)
			_, err = r.Next()
			assert.Equal(t, io.EOF, err, "io.EOF again after the end")
			assert.Equal(t, sha256.Sum256(file), r.FileDigest())

			// Every row of the prize table, counted in the units.
			assert.Equal(t, tab.Losers(), tiers[game.TierLose])
			var total game.Money
			for _, p := range tab.Prizes {
				assert.Equal(t, p.Lots, tiers[p.Tier], "lots of tier %d", p.Tier)
				assert.Equal(t, int(h.BonusLots[p.Tier-1]), bonus[p.Tier], "bonus lots of tier %d", p.Tier)
				total += game.Money(tiers[p.Tier]) * p.Amount
			}
			assert.Equal(t, tab.Total(), total)

			s, err := Verify(bytes.NewReader(file), testKeys)
			require.NoError(t, err)
			assert.Equal(t, Summary{Header: want, TierCounts: tiers, BonusCounts: bonus, FileDigest: sha256.Sum256(file)}, s)
		})
	}
}

// The file layout and the signature scheme, checked byte by byte against
// the contract (block-api.md) without going through the package's decoder.
func TestFileLayoutMatchesContract(t *testing.T) {
	file := smallFile(t, 1)
	assert.Equal(t, "PHARAONB", string(file[:8]))
	be := binary.BigEndian
	p := file[8:]
	assert.Equal(t, uint16(1), be.Uint16(p[0:]), "version")
	assert.Equal(t, uint32(3), be.Uint32(p[2:]), "emission")
	assert.Equal(t, uint32(14), be.Uint32(p[6:]), "block number")
	assert.Equal(t, uint32(100), be.Uint32(p[10:]), "stake in cents")
	assert.Equal(t, uint32(smallUnits), be.Uint32(p[14:]), "units")
	sp, _ := smallSpecs(game.Stake100)
	assert.Equal(t, sp.digest[:], p[18:50], "table digest")
	assert.Equal(t, uint32(1), be.Uint32(p[50:]), "bonus lots of tier 1: 200‰ of 1, at least 1")
	assert.Equal(t, uint32(4), be.Uint32(p[50+4*7:]), "bonus lots of tier 8: 200‰ of 20")
	assert.Equal(t, uint64(testCreated.Unix()), be.Uint64(p[82:]), "created")
	id := sha256.Sum256(testPub)
	assert.Equal(t, id[:8], p[90:98], "key id")

	for i := range smallUnits {
		u := unitAt(file, i)
		assert.Equal(t, uint32(i), be.Uint32(u[0:]), "index")
		assert.LessOrEqual(t, u[4], byte(8), "tier")
		assert.LessOrEqual(t, u[5], byte(1), "flags")
		if u[5] == 1 {
			assert.NotZero(t, u[4], "a losing unit is never via the bonus")
		}
	}

	body, sig := file[:len(file)-64], file[len(file)-64:]
	sum := sha512.Sum512(body)
	opts := &ed25519.Options{Hash: crypto.SHA512, Context: "pharaon-block-v1"}
	assert.NoError(t, ed25519.VerifyWithOptions(testPub, sum[:], sig, opts), "Ed25519ph over magic+header+units")
}

func TestKeyID(t *testing.T) {
	id := KeyIDOf(testPub)
	sum := sha256.Sum256(testPub)
	assert.Equal(t, sum[:8], id[:])
	assert.Regexp(t, `^[0-9a-f]{16}$`, id.String())
	assert.NotEqual(t, id, KeyIDOf(otherPub))
	ks := NewKeySet(testPub, otherPub)
	got, ok := ks.Lookup(KeyIDOf(otherPub))
	assert.True(t, ok)
	assert.Equal(t, otherPub, got)
	_, ok = ks.Lookup(KeyID{1})
	assert.False(t, ok)
}

func TestKeyPEM(t *testing.T) {
	privPEM, err := MarshalPrivateKey(testPriv)
	require.NoError(t, err)
	pubPEM, err := MarshalPublicKey(testPub)
	require.NoError(t, err)
	assert.Contains(t, string(privPEM), "-----BEGIN PRIVATE KEY-----")
	assert.Contains(t, string(pubPEM), "-----BEGIN PUBLIC KEY-----")
	priv, err := ParsePrivateKey(privPEM)
	require.NoError(t, err)
	assert.Equal(t, testPriv, priv)
	pub, err := ParsePublicKey(pubPEM)
	require.NoError(t, err)
	assert.Equal(t, testPub, pub)

	for name, b := range map[string][]byte{
		"empty":          nil,
		"garbage":        []byte("not a key"),
		"public as priv": pubPEM,
		"two blocks":     append(clone(privPEM), privPEM...),
	} {
		_, err := ParsePrivateKey(b)
		assert.ErrorIs(t, err, ErrKey, name)
	}
	_, err = ParsePublicKey(privPEM)
	assert.ErrorIs(t, err, ErrKey)
}

func TestDefaultBonusLots(t *testing.T) {
	for _, s := range game.Stakes {
		sp, _ := officialSpec(s)
		got, err := bonusLots(sp, DefaultBonusShare)
		require.NoError(t, err)
		assert.Equal(t, [game.NumTiers]uint32{1, 2, 15, 50, 300, 1500, 6400, 12000}, got)
	}
}

func TestBonusLotsRounding(t *testing.T) {
	sp, _ := officialSpec(game.Stake050) // lots 5, 8, 75, 250, 1500, 7500, 32000, 60000
	cases := []struct {
		name  string
		share [game.NumTiers]uint16
		want  [game.NumTiers]uint32
	}{
		{"none on some tiers", [8]uint16{0, 0, 0, 0, 0, 0, 0, 1}, [8]uint32{0, 0, 0, 0, 0, 0, 0, 60}},
		{"at least one", [8]uint16{1, 1, 1, 1, 1, 1, 1, 1}, [8]uint32{1, 1, 1, 1, 2, 8, 32, 60}},
		{"halves up", [8]uint16{500, 500, 500, 2, 1, 1, 1, 1}, [8]uint32{3, 4, 38, 1, 2, 8, 32, 60}},
		{"all", [8]uint16{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, [8]uint32{5, 8, 75, 250, 1500, 7500, 32000, 60000}},
	}
	for _, c := range cases {
		got, err := bonusLots(sp, c.share)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
	_, err := bonusLots(sp, [8]uint16{0, 0, 1001})
	assert.ErrorIs(t, err, ErrHeader)
	assert.ErrorContains(t, err, "tier 3 is 1001‰")
}

// The bonus share of Params reaches the header and the units.
func TestGenerateBonusShare(t *testing.T) {
	p := smallParams(2)
	p.BonusShare = [8]uint16{1000, 0, 0, 0, 0, 0, 0, 500}
	var buf bytes.Buffer
	h, err := generate(&buf, p, testPriv, smallSpecs)
	require.NoError(t, err)
	assert.Equal(t, [8]uint32{1, 0, 0, 0, 0, 0, 0, 10}, h.BonusLots)
	s, err := scanSmall(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, [9]int{0, 1, 0, 0, 0, 0, 0, 0, 10}, s.BonusCounts)

	p.BonusShare = [8]uint16{2000}
	buf.Reset()
	_, err = generate(&buf, p, testPriv, smallSpecs)
	assert.ErrorIs(t, err, ErrHeader)
	assert.Zero(t, buf.Len(), "nothing written")
}

func TestGenerateRefusesBadParams(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"stake", func(p *Params) { p.Stake = 75 }, "stake of 75 cents"},
		{"emission", func(p *Params) { p.Emission = 0 }, "emission number is 0"},
		{"number", func(p *Params) { p.Number = 0 }, "block number is 0"},
	}
	for _, c := range cases {
		p := Params{Emission: 1, Number: 1, Stake: game.Stake050, Created: testCreated}
		c.edit(&p)
		var buf bytes.Buffer
		_, err := Generate(&buf, p, testPriv)
		assert.ErrorIs(t, err, ErrHeader, c.name)
		assert.ErrorContains(t, err, c.want, c.name)
		assert.Zero(t, buf.Len(), c.name)
	}
	var buf bytes.Buffer
	_, err := Generate(&buf, Params{Emission: 1, Number: 1, Stake: game.Stake050}, testPriv[:10])
	assert.ErrorIs(t, err, ErrKey)
}

// A seeded source replays a block byte for byte (Ed25519 signatures are
// deterministic); crypto/rand never does.
func TestGenerateReproducibleOnlyWhenSeeded(t *testing.T) {
	assert.Equal(t, smallFile(t, 5), smallFile(t, 5))
	assert.NotEqual(t, smallFile(t, 5), smallFile(t, 6))

	gen := func() []Unit {
		var buf bytes.Buffer
		p := smallParams(0)
		p.Rand = nil
		_, err := generate(&buf, p, testPriv, smallSpecs)
		require.NoError(t, err)
		r, err := open(bytes.NewReader(buf.Bytes()), testKeys, smallSpecs)
		require.NoError(t, err)
		var us []Unit
		for {
			u, err := r.Next()
			if err == io.EOF {
				return us
			}
			require.NoError(t, err)
			us = append(us, u)
		}
	}
	a, b := gen(), gen()
	require.Len(t, a, smallUnits)
	require.Len(t, b, smallUnits)
	sameOrder, seeds := true, map[uint64]bool{}
	for i := range a {
		sameOrder = sameOrder && a[i].Tier == b[i].Tier && a[i].ViaBonus == b[i].ViaBonus
		seeds[a[i].Seed], seeds[b[i].Seed] = true, true
	}
	assert.False(t, sameOrder, "two blocks from crypto/rand have the same order")
	assert.Len(t, seeds, 2*smallUnits, "reveal seeds repeat")
}

// Generate lays out the units in exactly the order the shuffle drew, with
// the seeds that follow in the random stream.
func TestGenerateUsesTheShuffle(t *testing.T) {
	sp, _ := smallSpecs(game.Stake100)
	bonus, err := bonusLots(sp, DefaultBonusShare)
	require.NoError(t, err)
	g := newDrawer(seeded(9))
	order, err := shuffled(sp, bonus, g)
	require.NoError(t, err)

	r, err := open(bytes.NewReader(smallFile(t, 9)), testKeys, smallSpecs)
	require.NoError(t, err)
	for i, b := range order {
		u, err := r.Next()
		require.NoError(t, err)
		seed, err := g.uint64()
		require.NoError(t, err)
		assert.Equal(t, Unit{Index: uint32(i), Tier: game.Tier(b &^ bonusFlag), ViaBonus: b&bonusFlag != 0, Seed: seed}, u)
	}
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
}

// Writer and Reader round-trip arbitrary valid units, including extreme
// seeds, and Created is kept to the second in UTC.
func TestWriterReaderRoundTrip(t *testing.T) {
	sp, _ := smallSpecs(game.Stake200)
	paris := time.FixedZone("CEST", 2*3600)
	h := Header{Emission: 9, Number: 99, Stake: game.Stake200, BonusLots: [8]uint32{1, 0, 2, 0, 0, 0, 0, 20},
		Created: time.Date(2026, 7, 14, 12, 0, 0, 999, paris)}
	var buf bytes.Buffer
	w, err := newWriter(&buf, h, testPriv, smallSpecs)
	require.NoError(t, err)
	var units []Unit
	pos := uint32(0)
	add := func(t game.Tier, n, nb uint32) {
		for i := range n {
			units = append(units, Unit{Index: pos, Tier: t, ViaBonus: i < nb, Seed: uint64(pos) * 0x9e3779b97f4a7c15})
			pos++
		}
	}
	for tier := game.Tier(1); tier <= game.NumTiers; tier++ {
		add(tier, sp.lots[tier-1], h.BonusLots[tier-1])
	}
	add(game.TierLose, sp.losers(), 0)
	units[0].Seed, units[len(units)-1].Seed = 0, ^uint64(0)
	for _, u := range units {
		require.NoError(t, w.Write(u))
	}
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "Close again is harmless")
	assert.Equal(t, buf.Len(), prefixSize+smallUnits*unitSize+sigSize, "one signature")

	wh := w.Header()
	assert.Equal(t, time.Date(2026, 7, 14, 10, 0, 0, 0, time.UTC), wh.Created)
	assert.Equal(t, uint16(FormatVersion), wh.Version)
	assert.Equal(t, sp.digest, wh.TableDigest)
	assert.Equal(t, uint32(smallUnits), wh.Units)
	assert.Equal(t, KeyIDOf(testPub), wh.KeyID)

	r, err := open(bytes.NewReader(buf.Bytes()), testKeys, smallSpecs)
	require.NoError(t, err)
	assert.Equal(t, wh, r.Header())
	for _, want := range units {
		got, err := r.Next()
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err = r.Next()
	assert.Equal(t, io.EOF, err)
	assert.Equal(t, sha256.Sum256(buf.Bytes()), r.FileDigest())
}

// FileDigest is zero until the file is fully checked.
func TestFileDigestOnlyAfterEOF(t *testing.T) {
	file := smallFile(t, 1)
	r, err := open(bytes.NewReader(file), testKeys, smallSpecs)
	require.NoError(t, err)
	_, err = r.Next()
	require.NoError(t, err)
	assert.Zero(t, r.FileDigest())

	bad := clone(file)
	bad[len(bad)-1] ^= 1
	r, err = open(bytes.NewReader(bad), testKeys, smallSpecs)
	require.NoError(t, err)
	for err == nil {
		_, err = r.Next()
	}
	assert.ErrorIs(t, err, ErrSignature)
	assert.Zero(t, r.FileDigest())
}

// Verify and Inspect: Verify gives nothing on error; Inspect gives what it
// read, and without keys skips only the signature.
func TestVerifyAndInspect(t *testing.T) {
	var buf bytes.Buffer
	_, err := Generate(&buf, Params{Emission: 2, Number: 5, Stake: game.Stake200, Created: testCreated}, testPriv)
	require.NoError(t, err)
	file := buf.Bytes()

	good, err := Verify(bytes.NewReader(file), testKeys)
	require.NoError(t, err)
	for _, keys := range []Keys{nil, testKeys} {
		s, err := Inspect(bytes.NewReader(file), keys)
		require.NoError(t, err)
		assert.Equal(t, good, s)
	}

	// No key at all is said as such (a configuration to complete), and is
	// still an untrusted key for the callers that ask only that.
	for _, none := range []Keys{nil, KeySet{}, KeySet(nil)} {
		_, err = Verify(bytes.NewReader(file), none)
		assert.ErrorIs(t, err, ErrUnknownKey)
		assert.ErrorIs(t, err, ErrNoKeys)
		assert.ErrorContains(t, err, "no issuer key configured")
		_, err = NewReader(bytes.NewReader(file), none)
		assert.ErrorIs(t, err, ErrUnknownKey)
		assert.ErrorIs(t, err, ErrNoKeys)
		assert.NotContains(t, err.Error(), "not trusted")
	}

	other := NewKeySet(otherPub)
	s, err := Verify(bytes.NewReader(file), other)
	assert.ErrorIs(t, err, ErrUnknownKey)
	assert.ErrorContains(t, err, "block 2/5: signed by key "+KeyIDOf(testPub).String()+", which is not trusted")
	assert.Zero(t, s)
	s, err = Inspect(bytes.NewReader(file), other)
	assert.ErrorIs(t, err, ErrUnknownKey)
	assert.Equal(t, good.Header, s.Header)

	// A re-signed file with another key under the trusted key's id.
	forged := clone(file)
	s, err = Inspect(bytes.NewReader(resign(forged, otherPriv)), nil)
	require.NoError(t, err, "without keys the signature is not checked")
	_, err = Verify(bytes.NewReader(resign(forged, otherPriv)), testKeys)
	assert.ErrorIs(t, err, ErrSignature)
	assert.ErrorContains(t, err, "block 2/5: signature does not match the content for key")

	// Units are counted even when the file is cut short.
	s, err = Inspect(bytes.NewReader(file[:prefixSize+1000*unitSize+3]), nil)
	assert.ErrorIs(t, err, ErrTruncated)
	assert.ErrorContains(t, err, "block 2/5: file ends in unit 1000 of 350000")
	n := 0
	for _, c := range s.TierCounts {
		n += c
	}
	assert.Equal(t, 1000, n)
	assert.Zero(t, s.FileDigest)
}

// A key set that maps an id to a key of another id, or to a key of the
// wrong size, is refused rather than trusted (and never panics).
type badKeys map[KeyID]ed25519.PublicKey

func (b badKeys) Lookup(id KeyID) (ed25519.PublicKey, bool) { p, ok := b[id]; return p, ok }

func TestReaderRefusesInconsistentKeys(t *testing.T) {
	file := smallFile(t, 1)
	id := KeyIDOf(testPub)
	for name, keys := range map[string]Keys{
		"other key under the id": badKeys{id: otherPub},
		"short key":              badKeys{id: testPub[:31]},
		"nil KeySet":             KeySet(nil),
	} {
		_, err := scanWith(file, keys)
		assert.ErrorIs(t, err, ErrUnknownKey, name)
	}
}

func scanWith(file []byte, keys Keys) (Summary, error) {
	return scan(bytes.NewReader(file), keys, smallSpecs)
}

// Created survives the file to the second whatever it is, the zero time
// included (a caller that leaves it unset reads back an unset time).
func TestCreatedRoundTrip(t *testing.T) {
	for _, c := range []time.Time{{}, time.Unix(-1, 0), time.Unix(0, 0), testCreated, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)} {
		p := smallParams(1)
		p.Created = c
		var buf bytes.Buffer
		h, err := generate(&buf, p, testPriv, smallSpecs)
		require.NoError(t, err)
		s, err := scanSmall(buf.Bytes())
		require.NoError(t, err)
		assert.True(t, c.Equal(s.Header.Created), "%v read back as %v", c, s.Header.Created)
		assert.Equal(t, h, s.Header)
		assert.Equal(t, c.IsZero(), s.Header.Created.IsZero())
	}
}
