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

// FuzzDecoder: two frames after arbitrary noise, fed in arbitrary pieces. The decoder never
// holds more than one maximal frame plus a read, and every frame it returns stands in the stream
// as sent, in order and without overlap. When the noise holds no sync byte, exactly the two frames
// come out, intact. (Noise that holds one may start a frame whose CRC happens to hold across the
// first real frame: the stream is then ambiguous for any decoder, and the first good frame wins.)
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
		pos := 0
		for _, fr := range got {
			enc := id003.MustEncode(fr.Cmd, fr.Data...)
			i := bytes.Index(stream[pos:], enc)
			if i < 0 {
				t.Fatalf("frame %v is not in the stream after offset %d (stream % X)", fr, pos, stream)
			}
			pos += i + len(enc)
		}
		if bytes.IndexByte(noise, id003.Sync) >= 0 {
			return
		}
		want := id003.Frame{Cmd: payload[0], Data: payload[1:]}
		if len(got) != 2 || !got[0].Equal(want) || !got[1].Equal(want) {
			t.Fatalf("got %v, want twice %v (stream % X)", got, want, stream)
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
