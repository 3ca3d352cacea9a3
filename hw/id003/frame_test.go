package id003_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
)

func TestCRCIsKermit(t *testing.T) {
	// The catalogued check value of CRC-16/KERMIT.
	assert.Equal(t, uint16(0x2189), id003.CRC([]byte("123456789")))
	assert.Equal(t, uint16(0), id003.CRC(nil))
}

// Frames as published in ID-003 host implementations and traces (status request and ACK are the
// two every host sends); the others follow from the same rule.
func TestEncodeGoldenFrames(t *testing.T) {
	tests := []struct {
		name string
		cmd  byte
		data []byte
		want []byte
	}{
		{"status request", id003.CmdStatusRequest, nil, []byte{0xFC, 0x05, 0x11, 0x27, 0x56}},
		{"ack", id003.CmdAck, nil, []byte{0xFC, 0x05, 0x50, 0xAA, 0x05}},
		{"reset", id003.CmdReset, nil, []byte{0xFC, 0x05, 0x40, 0x2B, 0x15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := id003.Encode(tt.cmd, tt.data...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 2, 10, id003.MaxDataLen} {
		data := bytes.Repeat([]byte{0xFC}, n) // sync bytes inside data are legal
		b, err := id003.Encode(0x8A, data...)
		require.NoError(t, err)
		require.Len(t, b, id003.MinFrameLen+n)
		assert.Equal(t, byte(len(b)), b[1], "LNG counts the whole frame")
		f, err := id003.DecodeFrame(b)
		require.NoError(t, err)
		assert.Equal(t, byte(0x8A), f.Cmd)
		assert.Equal(t, n, len(f.Data))
	}
	_, err := id003.Encode(0x8A, make([]byte, id003.MaxDataLen+1)...)
	assert.ErrorIs(t, err, id003.ErrTooLong)
}

func TestDecodeFrameErrors(t *testing.T) {
	good := id003.MustEncode(0x13, 0x63)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-2] ^= 1
	badLen := bytes.Clone(good)
	badLen[1]++
	badSync := bytes.Clone(good)
	badSync[0] = 0xFD
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, id003.ErrShortFrame},
		{"short", good[:4], id003.ErrShortFrame},
		{"sync", badSync, id003.ErrSync},
		{"length", badLen, id003.ErrLength},
		{"trailing byte", append(bytes.Clone(good), 0), id003.ErrLength},
		{"crc", badCRC, id003.ErrCRC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := id003.DecodeFrame(tt.in)
			assert.ErrorIs(t, err, tt.want)
			assert.ErrorIs(t, err, hw.ErrProtocol, "every frame error is a protocol error")
		})
	}
}

func collect(d *id003.Decoder) []id003.Frame {
	var out []id003.Frame
	for {
		f, ok := d.Next()
		if !ok {
			return out
		}
		out = append(out, f)
	}
}

func TestDecoderStream(t *testing.T) {
	escrow := id003.MustEncode(0x13, 0x63)
	idle := id003.MustEncode(0x11)
	corrupt := bytes.Clone(escrow)
	corrupt[3] ^= 0xFF
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name    string
		chunks  [][]byte
		want    []id003.Frame
		skipped int
		badCRC  int
	}{
		{"one frame", [][]byte{escrow}, []id003.Frame{{Cmd: 0x13, Data: []byte{0x63}}}, 0, 0},
		{"split byte by byte", splitEach(escrow), []id003.Frame{{Cmd: 0x13, Data: []byte{0x63}}}, 0, 0},
		{"merged", [][]byte{cat(idle, escrow)}, []id003.Frame{{Cmd: 0x11}, {Cmd: 0x13, Data: []byte{0x63}}}, 0, 0},
		{"garbage before", [][]byte{cat([]byte{0x00, 0x13, 0x55}, idle)}, []id003.Frame{{Cmd: 0x11}}, 3, 0},
		{"garbage between", [][]byte{cat(idle, []byte{0xAA, 0xBB}, idle)}, []id003.Frame{{Cmd: 0x11}, {Cmd: 0x11}}, 2, 0},
		// A stray sync whose length byte announces 200 bytes must not swallow the real answer.
		{"false sync with long length", [][]byte{cat([]byte{0xFC, 200, 1, 2}, idle)}, []id003.Frame{{Cmd: 0x11}}, 4, 0},
		{"false sync with short length", [][]byte{cat([]byte{0xFC, 0x02}, idle)}, []id003.Frame{{Cmd: 0x11}}, 2, 0},
		{"bad crc then good", [][]byte{cat(corrupt, idle)}, []id003.Frame{{Cmd: 0x11}}, len(corrupt), 1},
		{"split across garbage", [][]byte{{0x01, 0xFC}, {0x05}, {0x11, 0x27}, {0x56}}, []id003.Frame{{Cmd: 0x11}}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d id003.Decoder
			var got []id003.Frame
			for _, c := range tt.chunks {
				d.Feed(c)
				got = append(got, collect(&d)...)
			}
			require.Len(t, got, len(tt.want))
			for i := range got {
				assert.True(t, tt.want[i].Equal(got[i]), "frame %d: got %v want %v", i, got[i], tt.want[i])
			}
			assert.Equal(t, tt.skipped, d.Skipped, "skipped bytes")
			assert.Equal(t, tt.badCRC, d.BadCRC, "bad crc count")
			assert.Zero(t, d.Buffered())
		})
	}
}

func TestDecoderKeepsIncompleteFrame(t *testing.T) {
	var d id003.Decoder
	b := id003.MustEncode(0x88, []byte("VERSION")...)
	d.Feed(b[:6])
	_, ok := d.Next()
	assert.False(t, ok)
	assert.Equal(t, 6, d.Buffered())
	d.Feed(b[6:])
	f, ok := d.Next()
	require.True(t, ok)
	assert.Equal(t, "VERSION", string(f.Data))
	d.Feed([]byte{0xFC})
	d.Reset()
	assert.Zero(t, d.Buffered())
	assert.Equal(t, 1, d.Skipped)
}

func TestDecoderReturnsCopies(t *testing.T) {
	var d id003.Decoder
	d.Feed(id003.MustEncode(0x13, 0x63))
	f, ok := d.Next()
	require.True(t, ok)
	d.Feed(id003.MustEncode(0x13, 0x64))
	_, ok = d.Next()
	require.True(t, ok)
	assert.Equal(t, []byte{0x63}, f.Data, "a frame must not change when the decoder reads on")
}

func splitEach(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func TestFrameErrorsAreProtocolErrors(t *testing.T) {
	for _, err := range []error{id003.ErrShortFrame, id003.ErrSync, id003.ErrLength, id003.ErrCRC,
		id003.ErrUnknownStatus, id003.ErrStatusData, id003.ErrRefused, id003.ErrCurrencyMismatch} {
		assert.True(t, errors.Is(err, hw.ErrProtocol), "%v", err)
	}
}
