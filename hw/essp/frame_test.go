package essp

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SYNC frame and the OK answer as the manufacturer's documents print them.
func TestKnownFrames(t *testing.T) {
	assert.Equal(t, []byte{0x7F, 0x80, 0x01, 0x11, 0x65, 0x82}, Encode(Frame{Seq: true, Data: []byte{CmdSync}}))
	assert.Equal(t, []byte{0x7F, 0x80, 0x01, 0xF0, 0x23, 0x80}, Encode(Frame{Seq: true, Data: []byte{RespOK}}))
}

func TestStuffing(t *testing.T) {
	f := Frame{Seq: false, Data: []byte{0x7F, 0x01, 0x7F}}
	b := Encode(f)
	// Every 0x7F after STX is doubled: the frame is STX, SEQ, LEN, 0x7F 0x7F, 0x01, 0x7F 0x7F, CRC.
	assert.Equal(t, []byte{STX, 0x00, 0x03, 0x7F, 0x7F, 0x01, 0x7F, 0x7F}, b[:8])
	assert.Equal(t, 0, bytes.Count(b[1:], []byte{0x7F})%2, "no single 0x7F after STX")
	got, err := DecodeFrame(b)
	require.NoError(t, err)
	assert.Equal(t, f.Data, got.Data)
}

func TestDecoderResynchronises(t *testing.T) {
	good := Encode(Frame{Seq: true, Data: []byte{RespOK, EvReadNote, 0x02}})
	bad := bytes.Clone(good)
	bad[len(bad)-1] ^= 0xFF
	var d Decoder
	// Noise, a frame cut short by a new STX, a frame with a bad CRC, then a good frame.
	d.Feed([]byte{0x00, 0x13, 0x7F, 0x80})
	d.Feed(bad)
	d.Feed(good)
	var frames []Frame
	var errs []error
	for {
		f, ok, err := d.Next()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok {
			break
		}
		frames = append(frames, f)
	}
	require.Len(t, frames, 1)
	assert.Equal(t, []byte{RespOK, EvReadNote, 0x02}, frames[0].Data)
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], ErrFrame))
}

func TestParseEvents(t *testing.T) {
	evs, err := ParseEvents([]byte{EvSlaveReset, EvReadNote, 0x00, EvCreditNote, 0x03, EvNoteStacked, EvDisabled})
	require.NoError(t, err)
	assert.Equal(t, []Event{{Code: EvSlaveReset}, {Code: EvReadNote}, {Code: EvCreditNote, Channel: 3},
		{Code: EvNoteStacked}, {Code: EvDisabled}}, evs)
	_, err = ParseEvents([]byte{EvCreditNote})
	assert.Error(t, err, "a credit without its channel")
	_, err = ParseEvents([]byte{EvDisabled, 0x42})
	assert.ErrorIs(t, err, ErrUnknownEvent)
}

func TestSetupRoundTrip(t *testing.T) {
	got, err := ParseSetup(AppendSetup(nil, testSetup))
	require.NoError(t, err)
	assert.Equal(t, testSetup, got)
	c, ok := got.Cents(4)
	assert.True(t, ok)
	assert.Equal(t, int64(5000), c)
	assert.Equal(t, byte(2), got.Channel(1000, "EUR"))
	_, err = ParseSetup(AppendSetup(nil, testSetup)[:20])
	assert.Error(t, err)
}

func TestKeyExchangeAgrees(t *testing.T) {
	g, p, err := drawPrimes(seeded(1))
	require.NoError(t, err)
	assert.True(t, IsPrime(g) && IsPrime(p) && g < p)
	a, b := uint64(0x1234567), uint64(0x7654321)
	assert.Equal(t, PowMod(PowMod(g, a, p), b, p), PowMod(PowMod(g, b, p), a, p))
	// PowMod is exact near 2^64, where a naive product would overflow.
	const big = 0xFFFFFFFFFFFFFFC5 // the largest 64-bit prime
	assert.Equal(t, uint64(1), PowMod(3, big-1, big), "Fermat")
}

func TestSealOpen(t *testing.T) {
	s := NewSession(DefaultFixedKey, 0x1122334455667788)
	for n := 1; n <= MaxPlainLen; n += 37 {
		data := bytes.Repeat([]byte{0x7F}, n)
		ct, err := s.Seal(42, data, seeded(3))
		require.NoError(t, err)
		assert.Equal(t, 0, (len(ct)-1)%16)
		assert.LessOrEqual(t, len(ct), MaxDataLen)
		c, got, err := s.Open(ct)
		require.NoError(t, err)
		assert.Equal(t, uint32(42), c)
		assert.Equal(t, data, got)
		// One bit flipped anywhere: the CRC or the length fails.
		ct[1+len(ct)/2] ^= 0x01
		_, _, err = s.Open(ct)
		assert.ErrorIs(t, err, ErrCrypto)
	}
	// Another key does not open it.
	ct, _ := s.Seal(1, []byte{RespOK}, seeded(3))
	_, _, err := NewSession(DefaultFixedKey, 1).Open(ct)
	assert.ErrorIs(t, err, ErrCrypto)
}
