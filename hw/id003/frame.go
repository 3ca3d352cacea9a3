package id003

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"pharaon/hw"
)

// Frame errors; each wraps hw.ErrProtocol.
var (
	ErrShortFrame = fmt.Errorf("%w: frame too short", hw.ErrProtocol)
	ErrSync       = fmt.Errorf("%w: frame does not start with 0xFC", hw.ErrProtocol)
	ErrLength     = fmt.Errorf("%w: frame length byte does not match", hw.ErrProtocol)
	ErrCRC        = fmt.Errorf("%w: frame crc mismatch", hw.ErrProtocol)
	ErrTooLong    = errors.New("frame data too long")
)

// Frame is one ID-003 message: a command (host to unit) or a status/answer byte (unit to host)
// and its data.
type Frame struct {
	Cmd  byte
	Data []byte
}

func (f Frame) String() string {
	if len(f.Data) == 0 {
		return fmt.Sprintf("%02X", f.Cmd)
	}
	return fmt.Sprintf("%02X %s", f.Cmd, hex.EncodeToString(f.Data))
}

// Equal compares command and data.
func (f Frame) Equal(g Frame) bool { return f.Cmd == g.Cmd && bytes.Equal(f.Data, g.Data) }

// crcTable is CRC-16/Kermit (CCITT polynomial 0x1021 reflected = 0x8408, init 0, no final xor),
// the checksum of ID-003, processed least significant bit first.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0x8408
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC returns the CRC-16/Kermit of b. CRC([]byte("123456789")) is 0x2189.
func CRC(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c>>8 ^ crcTable[byte(c)^x]
	}
	return c
}

// AppendFrame appends the encoded frame to dst: SYNC, LNG, cmd, data, then the CRC of everything
// before it, low byte first.
func AppendFrame(dst []byte, cmd byte, data []byte) ([]byte, error) {
	if len(data) > MaxDataLen {
		return dst, fmt.Errorf("encode %02X: %w (%d bytes)", cmd, ErrTooLong, len(data))
	}
	start := len(dst)
	dst = append(dst, Sync, byte(MinFrameLen+len(data)), cmd)
	dst = append(dst, data...)
	c := CRC(dst[start:])
	return append(dst, byte(c), byte(c>>8)), nil
}

// Encode returns the encoded frame.
func Encode(cmd byte, data ...byte) ([]byte, error) {
	return AppendFrame(make([]byte, 0, MinFrameLen+len(data)), cmd, data)
}

// MustEncode is Encode for constant frames; it panics on data too long.
func MustEncode(cmd byte, data ...byte) []byte {
	b, err := Encode(cmd, data...)
	if err != nil {
		panic(err)
	}
	return b
}

// DecodeFrame decodes exactly one frame occupying all of b. The returned data is a copy.
func DecodeFrame(b []byte) (Frame, error) {
	if len(b) < MinFrameLen {
		return Frame{}, ErrShortFrame
	}
	if b[0] != Sync {
		return Frame{}, ErrSync
	}
	if int(b[1]) != len(b) {
		return Frame{}, fmt.Errorf("%w: says %d, got %d bytes", ErrLength, b[1], len(b))
	}
	n := len(b)
	want := CRC(b[:n-2])
	got := uint16(b[n-2]) | uint16(b[n-1])<<8
	if want != got {
		return Frame{}, fmt.Errorf("%w: got %04X, want %04X", ErrCRC, got, want)
	}
	f := Frame{Cmd: b[2]}
	if n > MinFrameLen {
		f.Data = append([]byte(nil), b[3:n-2]...)
	}
	return f, nil
}

// Decoder cuts frames out of a byte stream that may hold garbage, frames split across reads,
// several frames in one read, and frames with a bad CRC. It resynchronises on every 0xFC: the
// first position where a complete frame with a good CRC starts wins, and everything before it is
// counted as skipped. A candidate that is still incomplete is kept until it completes or a later
// position proves to be a good frame, so a stray 0xFC with a large length byte in front of a real
// answer cannot swallow it. The buffer stays bounded (a candidate is decided after 255 bytes).
type Decoder struct {
	buf []byte
	// Skipped counts bytes dropped as not part of any good frame; BadCRC counts complete
	// candidates whose CRC failed (a corrupted frame, or a 0xFC inside garbage).
	Skipped int
	BadCRC  int
	// ENQBytes counts single ENQ bytes (05) dropped outside any frame: a unit in an interrupt mode
	// calling the host in ENQByte's form. Garbage holding a 05 counts too; an ENQ only ever costs
	// the host a status request.
	ENQBytes int
}

// Feed adds bytes read from the line.
func (d *Decoder) Feed(p []byte) { d.buf = append(d.buf, p...) }

// Buffered is the number of bytes held, waiting for the rest of a frame.
func (d *Decoder) Buffered() int { return len(d.buf) }

// Reset drops what is buffered (counted as skipped): before a new command, anything left over
// is a stale answer.
func (d *Decoder) Reset() {
	d.Skipped += len(d.buf)
	d.buf = d.buf[:0]
}

type candidate int

const (
	candGood candidate = iota
	candBad
	candIncomplete
)

func (d *Decoder) check(p int) (candidate, int) {
	b := d.buf[p:]
	if len(b) < 2 {
		return candIncomplete, 0
	}
	n := int(b[1])
	if n < MinFrameLen {
		return candBad, 0
	}
	if len(b) < n {
		return candIncomplete, n
	}
	if CRC(b[:n-2]) != uint16(b[n-2])|uint16(b[n-1])<<8 {
		return candBad, n
	}
	return candGood, n
}

// Next returns the next good frame, or false when more bytes are needed.
func (d *Decoder) Next() (Frame, bool) {
scan:
	for {
		i := bytes.IndexByte(d.buf, Sync)
		if i < 0 {
			d.drop(len(d.buf))
			return Frame{}, false
		}
		d.drop(i)
		// Try the candidate at every sync byte, front first.
		for p := 0; ; {
			kind, n := d.check(p)
			switch {
			case kind == candGood:
				f := Frame{Cmd: d.buf[p+2]}
				if n > MinFrameLen {
					f.Data = append([]byte(nil), d.buf[p+3:p+n-2]...)
				}
				d.drop(p)                              // what came before the frame was skipped
				d.buf = d.buf[:copy(d.buf, d.buf[n:])] // the frame itself was not
				return f, true
			case kind == candBad && p == 0:
				// Decided only at the front, so each bad candidate is counted once.
				if n > 0 {
					d.BadCRC++
				}
				d.drop(1)
				continue scan
			}
			j := bytes.IndexByte(d.buf[p+1:], Sync)
			if j < 0 {
				return Frame{}, false
			}
			p += 1 + j
		}
	}
}

func (d *Decoder) drop(n int) {
	if n <= 0 {
		return
	}
	d.Skipped += n
	d.ENQBytes += bytes.Count(d.buf[:n], []byte{ENQ})
	d.buf = d.buf[:copy(d.buf, d.buf[n:])]
}
