package id003_test

import (
	"bytes"
	"testing"

	"pharaon/hw/id003"
)

// FuzzDecodeFrame: any bytes either decode to a frame that encodes back to exactly them, or give
// an error; never a panic.
func FuzzDecodeFrame(f *testing.F) {
	f.Add(id003.MustEncode(0x11))
	f.Add(id003.MustEncode(0x13, 0x63))
	f.Add([]byte{0xFC, 0x05, 0x11, 0x27, 0x57})
	f.Add([]byte{0xFC, 0x04, 0x11, 0x27})
	f.Add([]byte{0xFC})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := id003.DecodeFrame(b)
		if err != nil {
			return
		}
		again, err := id003.Encode(fr.Cmd, fr.Data...)
		if err != nil {
			t.Fatalf("decoded frame does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip: % X -> % X", b, again)
		}
	})
}

// FuzzDecoder: frames surrounded by arbitrary noise, fed in arbitrary pieces, come out intact and
// in order; the decoder never holds more than one maximal frame plus a read.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{}, []byte{0x13, 0x63}, uint8(1))
	f.Add([]byte{0xFC, 0xC8, 0x00}, []byte{0x11}, uint8(3))
	f.Add([]byte{0xFC, 0x05, 0x11, 0x27}, []byte{0x17, 0x71}, uint8(2))
	f.Fuzz(func(t *testing.T, noise, payload []byte, step uint8) {
		if len(payload) == 0 || len(payload) > id003.MaxDataLen+1 {
			return
		}
		frame := id003.MustEncode(payload[0], payload[1:]...)
		stream := append(append(bytes.Clone(noise), frame...), frame...)
		var d id003.Decoder
		var got []id003.Frame
		n := int(step%16) + 1
		for i := 0; i < len(stream); i += n {
			d.Feed(stream[i:min(i+n, len(stream))])
			for {
				fr, ok := d.Next()
				if !ok {
					break
				}
				got = append(got, fr)
			}
			if d.Buffered() > id003.MaxFrameLen+n {
				t.Fatalf("decoder holds %d bytes", d.Buffered())
			}
		}
		// Noise may hold a frame of its own (then it comes first); the two real frames must be
		// the last two out.
		if len(got) < 2 {
			t.Fatalf("got %d frames from % X", len(got), stream)
		}
		want := id003.Frame{Cmd: payload[0], Data: payload[1:]}
		for _, fr := range got[len(got)-2:] {
			if !fr.Equal(want) {
				t.Fatalf("got %v want %v (stream % X)", fr, want, stream)
			}
		}
	})
}

// FuzzParseStatus: a status either parses into a known state whose accessors hold, or is refused.
func FuzzParseStatus(f *testing.F) {
	f.Add(byte(0x13), []byte{0x63})
	f.Add(byte(0x15), []byte{})
	f.Add(byte(0x17), []byte{0x71})
	f.Add(byte(0x49), []byte{0xA2})
	f.Add(byte(0x13), []byte{})
	f.Add(byte(0x4B), []byte{})
	f.Fuzz(func(t *testing.T, code byte, data []byte) {
		s, err := id003.ParseStatus(id003.Frame{Cmd: code, Data: data})
		if err != nil {
			return
		}
		if s.State == id003.StateUnknown || s.State.Code() != code || s.Code != code {
			t.Fatalf("parsed %02X as %v", code, s.State)
		}
		if !bytes.Equal(s.Data, data) {
			t.Fatalf("data changed: % X -> % X", data, s.Data)
		}
		if d, ok := s.Denomination(); ok && d != data[0] {
			t.Fatalf("denomination %02X from % X", d, data)
		}
		if s.State == id003.StateEscrow {
			if _, ok := s.Denomination(); !ok {
				t.Fatal("escrow without denomination accepted")
			}
		}
		_ = s.String()
	})
}
