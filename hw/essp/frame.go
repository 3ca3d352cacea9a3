package essp

import (
	"errors"
	"fmt"
)

// STX starts every SSP frame. Inside a frame (SEQ, length, data, CRC) every 0x7F is sent twice, so
// a single 0x7F always starts a frame.
const STX = 0x7F

// MaxDataLen is the most data one frame carries: its length is one byte.
const MaxDataLen = 255

// MaxFrameLen bounds an encoded frame: STX, then SEQ, length, data and CRC each possibly doubled.
const MaxFrameLen = 1 + 2*(2+MaxDataLen+2)

// seqBit is the sequence flag in the SEQ/address byte; the low seven bits are the address.
const seqBit = 0x80

// Frame is one SSP packet: the SEQ/address byte split in two, and the data (a command and its
// parameters from the host, a generic response and its data from the unit).
type Frame struct {
	Seq  bool // the sequence flag: toggled by the host for each new command, kept on a retry
	Addr byte // the unit's address, 0 for a note validator
	Data []byte
}

func (f Frame) String() string {
	s := 0
	if f.Seq {
		s = 1
	}
	return fmt.Sprintf("[seq %d addr %d % X]", s, f.Addr, f.Data)
}

// ErrFrame: bytes that are not a valid SSP frame (bad CRC, empty data).
var ErrFrame = errors.New("essp: bad frame")

// CRC is SSP's CRC-16: polynomial 0x8005, seed 0xFFFF, most significant bit first, no final xor.
// It is sent low byte first.
func CRC(b []byte) uint16 { return crcUpdate(0xFFFF, b) }

func crcUpdate(crc uint16, b []byte) uint16 {
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x8005
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// AppendFrame appends the encoded frame to dst: STX, then SEQ/address, length, data and CRC with
// every 0x7F doubled.
func AppendFrame(dst []byte, f Frame) ([]byte, error) {
	if len(f.Data) == 0 || len(f.Data) > MaxDataLen {
		return dst, fmt.Errorf("%w: %d data bytes", ErrFrame, len(f.Data))
	}
	if f.Addr > 0x7F {
		return dst, fmt.Errorf("%w: address %d", ErrFrame, f.Addr)
	}
	seq := f.Addr
	if f.Seq {
		seq |= seqBit
	}
	crc := crcUpdate(0xFFFF, []byte{seq, byte(len(f.Data))})
	crc = crcUpdate(crc, f.Data)
	dst = append(dst, STX)
	put := func(b byte) {
		dst = append(dst, b)
		if b == STX {
			dst = append(dst, STX)
		}
	}
	put(seq)
	put(byte(len(f.Data)))
	for _, b := range f.Data {
		put(b)
	}
	put(byte(crc))
	put(byte(crc >> 8))
	return dst, nil
}

// Encode returns the encoded frame, or panics on a frame that cannot be encoded: for tests and
// constant frames.
func Encode(f Frame) []byte {
	b, err := AppendFrame(nil, f)
	if err != nil {
		panic(err)
	}
	return b
}

// DecodeFrame decodes exactly one encoded frame.
func DecodeFrame(b []byte) (Frame, error) {
	var d Decoder
	d.Feed(b)
	f, ok, err := d.Next()
	switch {
	case err != nil:
		return Frame{}, err
	case !ok:
		return Frame{}, fmt.Errorf("%w: incomplete", ErrFrame)
	}
	// One frame exactly: no noise before it, nothing after it, nothing cut short inside it.
	if again, _ := AppendFrame(nil, f); string(again) != string(b) {
		return Frame{}, fmt.Errorf("%w: not exactly one frame", ErrFrame)
	}
	return f, nil
}

// Decoder cuts a byte stream into frames. Bytes before a STX are dropped; a single 0x7F inside a
// frame starts a new frame (the one under way was cut short); a frame whose CRC fails is reported
// as an error and dropped, and decoding starts again at the next STX. Its memory is bounded: one
// frame under way plus the bytes fed and not yet decoded.
type Decoder struct {
	in      []byte
	body    []byte // SEQ, length, data, CRC of the frame under way, unstuffed
	inFrame bool
	sawSTX  bool // the last byte was a 0x7F inside a frame: doubled (data) or single (new frame)
	noise   int  // bytes dropped outside frames since the last frame
}

// Feed adds bytes read from the line.
func (d *Decoder) Feed(b []byte) { d.in = append(d.in, b...) }

// Buffered is the number of bytes fed and not yet decoded.
func (d *Decoder) Buffered() int { return len(d.in) }

// Noise is the number of bytes dropped outside frames since the last good frame.
func (d *Decoder) Noise() int { return d.noise }

// Reset drops everything: the next frame starts at the next STX.
func (d *Decoder) Reset() {
	d.in = d.in[:0]
	d.body = d.body[:0]
	d.inFrame, d.sawSTX = false, false
	d.noise = 0
}

// Next returns the next frame (ok), or an error for a frame that failed its check, or neither
// when more bytes are needed.
func (d *Decoder) Next() (f Frame, ok bool, err error) {
	for len(d.in) > 0 {
		b := d.in[0]
		d.in = d.in[1:]
		if !d.inFrame {
			if b == STX {
				d.inFrame, d.sawSTX, d.body = true, false, d.body[:0]
			} else {
				d.noise++
			}
			continue
		}
		if d.sawSTX {
			d.sawSTX = false
			if b != STX {
				// A single 0x7F: the frame under way was cut short, this is a new one.
				d.noise += 1 + len(d.body)
				d.body = append(d.body[:0], b)
				continue
			}
			d.body = append(d.body, STX)
		} else if b == STX {
			d.sawSTX = true
			continue
		} else {
			d.body = append(d.body, b)
		}
		if len(d.body) < 2 || len(d.body) < 2+int(d.body[1])+2 {
			continue
		}
		d.inFrame = false
		return d.finish()
	}
	return Frame{}, false, nil
}

func (d *Decoder) finish() (Frame, bool, error) {
	body := d.body
	n := int(body[1])
	got := uint16(body[2+n]) | uint16(body[3+n])<<8
	if want := CRC(body[:2+n]); got != want {
		d.noise += 1 + len(body)
		return Frame{}, false, fmt.Errorf("%w: crc %04X, want %04X", ErrFrame, got, want)
	}
	if n == 0 {
		d.noise += 1 + len(body)
		return Frame{}, false, fmt.Errorf("%w: no data", ErrFrame)
	}
	d.noise = 0
	f := Frame{Seq: body[0]&seqBit != 0, Addr: body[0] &^ seqBit, Data: append([]byte(nil), body[2:2+n]...)}
	return f, true, nil
}
