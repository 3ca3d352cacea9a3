package block

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func validHeader() Header {
	tab := game.Table(game.Stake100)
	return Header{
		Version: FormatVersion, Emission: 1, Number: 7, Stake: game.Stake100,
		Units: game.UnitsPerBlock, TableDigest: tab.Digest(),
		BonusLots: [game.NumTiers]uint32{1, 2, 15, 50, 300, 1500, 6400, 12000},
		Created:   testCreated, KeyID: KeyIDOf(testPub),
	}
}

// headerCases are headers that no reader accepts and no writer writes.
var headerCases = []struct {
	name string
	edit func(*Header)
	err  error
	msg  string
}{
	{"stake 0,75 €", func(h *Header) { h.Stake = 75 }, ErrHeader, "block 1/7: stake of 75 cents is not a stake of the game"},
	{"stake 0", func(h *Header) { h.Stake = 0 }, ErrHeader, "stake of 0 cents"},
	{"units 349 999", func(h *Header) { h.Units = game.UnitsPerBlock - 1 }, ErrHeader, "block 1/7: 349999 units, a block has 350000"},
	{"units 350 001", func(h *Header) { h.Units = game.UnitsPerBlock + 1 }, ErrHeader, "350001 units"},
	{"table of another stake", func(h *Header) { h.TableDigest = game.Table(game.Stake200).Digest() }, ErrHeader, "is not the one of the prize table at 1\u00a0€"},
	{"table digest one bit off", func(h *Header) { h.TableDigest[31] ^= 1 }, ErrHeader, "table digest"},
	{"bonus lots above the tier's lots", func(h *Header) { h.BonusLots[2] = 76 }, ErrHeader, "block 1/7: 76 lots of tier 3 via the bonus, the table has 75"},
	{"bonus lots of tier 8", func(h *Header) { h.BonusLots[7] = 60_001 }, ErrHeader, "tier 8"},
	{"emission 0", func(h *Header) { h.Emission = 0 }, ErrHeader, "block 0/7: emission number is 0"},
	{"block number 0", func(h *Header) { h.Number = 0 }, ErrHeader, "block 1/0: block number is 0"},
	{"version 2", func(h *Header) { h.Version = 2 }, ErrVersion, "format version 2, this software reads version 1"},
	{"version 0", func(h *Header) { h.Version = 0 }, ErrVersion, "format version 0"},
	{"untrusted key", func(h *Header) { h.KeyID = KeyIDOf(otherPub) }, ErrUnknownKey, "block 1/7: signed by key " + KeyIDOf(otherPub).String() + ", which is not trusted"},
}

// NewReader checks the header before reading any unit: each bad header is
// refused from its 106 bytes alone.
func TestNewReaderRefusesBadHeaders(t *testing.T) {
	p := validHeader().marshalPrefix()
	r, err := NewReader(bytes.NewReader(p[:]), testKeys)
	require.NoError(t, err, "the valid header")
	assert.Equal(t, validHeader(), r.Header())

	for _, c := range headerCases {
		t.Run(c.name, func(t *testing.T) {
			h := validHeader()
			c.edit(&h)
			p := h.marshalPrefix()
			r, err := NewReader(bytes.NewReader(p[:]), testKeys)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, c.err)
			assert.ErrorContains(t, err, c.msg)
		})
	}
}

// The writer refuses the same headers, and writes nothing.
func TestNewWriterRefusesBadHeaders(t *testing.T) {
	for _, c := range headerCases {
		t.Run(c.name, func(t *testing.T) {
			h := validHeader()
			c.edit(&h)
			if h.Version == 0 || h.KeyID != KeyIDOf(testPub) {
				// The writer fills a zero version in and knows its key:
				// see TestNewWriterFillsAndChecksKey.
				return
			}
			var buf bytes.Buffer
			w, err := NewWriter(&buf, h, testPriv)
			assert.Nil(t, w)
			assert.ErrorIs(t, err, c.err)
			assert.ErrorContains(t, err, c.msg)
			assert.Zero(t, buf.Len())
		})
	}
}

func TestNewWriterFillsAndChecksKey(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Emission: 1, Number: 7, Stake: game.Stake100,
		BonusLots: validHeader().BonusLots, Created: testCreated}, testPriv)
	require.NoError(t, err)
	assert.Equal(t, validHeader(), w.Header())
	assert.Equal(t, prefixSize, buf.Len()+w.bw.Buffered(), "magic and header, nothing more")

	h := validHeader()
	h.KeyID = KeyIDOf(otherPub)
	buf.Reset()
	_, err = NewWriter(&buf, h, testPriv)
	assert.ErrorIs(t, err, ErrHeader)
	assert.ErrorContains(t, err, "header names key "+KeyIDOf(otherPub).String())
	assert.Zero(t, buf.Len())
}

// The start of the file: what is not a block file, what is cut inside the
// header, what is of another version.
func TestNewReaderPrefix(t *testing.T) {
	p := validHeader().marshalPrefix()
	v2 := p
	binary.BigEndian.PutUint16(v2[magicSize:], 2)
	cases := []struct {
		name string
		in   []byte
		err  error
		msg  string
	}{
		{"empty", nil, ErrTruncated, "block file: empty"},
		{"start of the magic", []byte("PHAR"), ErrTruncated, "ends in the magic after 4 bytes"},
		{"other file", []byte("%PDF-1.7\n"), ErrFormat, `starts with "%PDF-1.7", not "PHARAONB"`},
		{"short other file", []byte("GIF"), ErrFormat, `starts with "GIF"`},
		{"lower case magic", append([]byte("pharaonb"), p[8:]...), ErrFormat, "not \"PHARAONB\""},
		{"magic only", p[:8], ErrTruncated, "file ends in the header"},
		{"cut in the header", p[:50], ErrTruncated, "file ends in the header"},
		{"one byte short", p[:prefixSize-1], ErrTruncated, "file ends in the header"},
		{"version 2 cut short", v2[:10], ErrVersion, "format version 2"},
	}
	for _, c := range cases {
		_, err := NewReader(bytes.NewReader(c.in), testKeys)
		assert.ErrorIs(t, err, c.err, c.name)
		assert.ErrorContains(t, err, c.msg, c.name)
	}
}
