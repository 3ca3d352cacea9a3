package essp

import (
	"bytes"
	"testing"
)

// FuzzDecodeFrame: any bytes either decode to a frame that encodes back to exactly them, or give
// an error; never a panic.
func FuzzDecodeFrame(f *testing.F) {
	f.Add(Encode(Frame{Seq: true, Data: []byte{CmdSync}}))
	f.Add(Encode(Frame{Data: []byte{RespOK, EvCreditNote, 0x7F}}))
	f.Add([]byte{0x7F, 0x80, 0x01, 0xF0, 0x23})
	f.Add([]byte{0x7F, 0x7F, 0x7F})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		again, err := AppendFrame(nil, fr)
		if err != nil {
			t.Fatalf("decoded frame does not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip: % X -> % X", b, again)
		}
	})
}

// FuzzDecoder: two frames after arbitrary noise, fed in arbitrary pieces. The decoder's memory
// stays bounded, every frame it returns stands in the stream as sent, and when the noise holds no
// STX exactly the two frames come out.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{}, []byte{RespOK}, uint8(1))
	f.Add([]byte{0x7F, 0x80, 0x05}, []byte{RespOK, EvReadNote, 0x02}, uint8(3))
	f.Add([]byte{0x00, 0xFF}, []byte{0x7F, 0x7F}, uint8(2))
	f.Fuzz(func(t *testing.T, noise, payload []byte, step uint8) {
		if len(payload) == 0 || len(payload) > MaxDataLen {
			return
		}
		frame := Encode(Frame{Seq: true, Data: payload})
		stream := append(append(bytes.Clone(noise), frame...), frame...)
		var d Decoder
		var got []Frame
		n := int(step%16) + 1
		for i := 0; i < len(stream); i += n {
			d.Feed(stream[i:min(i+n, len(stream))])
			for {
				fr, ok, err := d.Next()
				if err != nil {
					continue
				}
				if !ok {
					break
				}
				got = append(got, fr)
			}
			if d.Buffered() > n || len(d.body) > 2+MaxDataLen+2 {
				t.Fatalf("decoder holds %d bytes and a frame of %d", d.Buffered(), len(d.body))
			}
		}
		pos := 0
		for _, fr := range got {
			enc := Encode(fr)
			i := bytes.Index(stream[pos:], enc[1:])
			if i < 0 {
				t.Fatalf("frame %v is not in the stream after offset %d", fr, pos)
			}
			pos += i + len(enc) - 1
		}
		if bytes.IndexByte(noise, STX) >= 0 {
			return
		}
		if len(got) != 2 || !bytes.Equal(got[0].Data, payload) || !bytes.Equal(got[1].Data, payload) {
			t.Fatalf("got %v, want twice % X", got, payload)
		}
	})
}

// FuzzOpen: the decryptor takes any bytes: it returns an error or a packet that seals back to the
// same plaintext; never a panic, never data beyond the packet.
func FuzzOpen(f *testing.F) {
	s := NewSession(DefaultFixedKey, 0xDEADBEEF)
	good, _ := s.Seal(5, []byte{RespOK, EvCreditNote, 0x01}, seeded(4))
	f.Add(good)
	f.Add([]byte{STEX})
	f.Add(append([]byte{STEX}, make([]byte, 16)...))
	f.Add(append([]byte{STEX}, make([]byte, 17)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		count, data, err := s.Open(b)
		if err != nil {
			return
		}
		if len(data) == 0 || 1+4+len(data)+2 > len(b)-1 {
			t.Fatalf("opened %d data bytes from %d", len(data), len(b))
		}
		again, err := s.Seal(count, data, seeded(5))
		if err != nil {
			t.Fatalf("opened packet does not seal: %v", err)
		}
		c2, d2, err := s.Open(again)
		if err != nil || c2 != count || !bytes.Equal(d2, data) {
			t.Fatalf("reseal: %v %d % X", err, c2, d2)
		}
	})
}

// FuzzParseEvents: a poll's answer parses or is refused whole; what parses encodes back.
func FuzzParseEvents(f *testing.F) {
	f.Add([]byte{EvSlaveReset, EvReadNote, 0x00, EvCreditNote, 0x03})
	f.Add([]byte{EvCreditNote})
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := ParseEvents(b)
		if err != nil {
			return
		}
		if !bytes.Equal(AppendEvents(nil, evs...), b) {
			t.Fatalf("round trip % X", b)
		}
	})
}
