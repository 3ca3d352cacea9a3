package escpos

import (
	"bytes"
	"errors"
	"fmt"
)

// Control bytes of the ESC/POS command set.
const (
	lf  = 0x0A
	esc = 0x1B
	gs  = 0x1D
	dle = 0x10
	eot = 0x04
	enq = 0x05
	dc4 = 0x14
)

// Barcode and QR geometry, in printer dots (203 dpi: 8 dots per mm). A Code 128 module of 2 dots
// (0.25 mm) and 80 dots (10 mm) of height read reliably with any counter scanner; an 18-digit
// validation number in code set C is 134 modules, 268 dots: a third of an 80 mm roll. A QR module of
// 6 dots (0.75 mm) keeps a version-1 symbol about 16 mm wide, easy for a phone or a 2D scanner.
const (
	barcodeHeight = 80
	barcodeModule = 2
	hriBelow      = 2
	qrModule      = 6
	qrLevelM      = 49 // error correction M (15 %): survives a crease or a smudge
	maxQRData     = 512
	// A QR symbol needs 4 modules of white on every side. The printer prints the symbol alone
	// (Epson: "the user must secure the quiet zone"): above and below, the document feeds whole
	// lines of the default spacing, 1/6 inch, which is 30 dots or more on any TM printer.
	lineDots     = 30
	qrQuietLines = (4*qrModule + lineDots - 1) / lineDots
)

// ErrDoc is wrapped by every error a Doc records: a document that cannot be printed as asked
// (a size out of range, a barcode character Code 128 cannot carry). Nothing of it is sent.
var ErrDoc = errors.New("invalid print document")

// Align is a line's justification (ESC a).
type Align byte

const (
	Left Align = iota
	Center
	Right
)

func (a Align) String() string {
	switch a {
	case Left:
		return "left"
	case Center:
		return "center"
	case Right:
		return "right"
	}
	return fmt.Sprintf("Align(%d)", byte(a))
}

// Doc builds the byte stream of one printed document. Methods chain; the first mistake is kept and
// reported by Bytes (and Err), and the methods called after it do nothing, so a caller checks once.
// Text is always transcoded to code page PC858: a Doc never carries raw UTF-8 or a control byte
// that came from text.
type Doc struct {
	buf     []byte
	err     error
	midLine bool // text is waiting in the printer's line buffer
	fed     bool // the last thing printed is a blank line fed by Feed: a QR code's quiet zone above
}

// NewDoc returns an empty document. Start it with Init.
func NewDoc() *Doc {
	return &Doc{buf: make([]byte, 0, 1024)}
}

func (d *Doc) fail(format string, args ...any) *Doc {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrDoc, fmt.Sprintf(format, args...))
	}
	return d
}

// Init resets the printer (ESC @: styles, alignment, line buffer), then selects the USA
// international character set (ESC R 0) and code page PC858 (ESC t 19). Both are sent on purpose:
// a printer configured for France would otherwise print '{' as 'é', and one left on PC437 has no €.
func (d *Doc) Init() *Doc {
	if d.err != nil {
		return d
	}
	d.buf = append(d.buf, esc, '@', esc, 'R', 0, esc, 't', codeTablePC858)
	d.midLine, d.fed = false, false
	return d
}

// Align sets the justification of the lines that follow (ESC a n). The printer applies it at the
// start of a line, so set it before the line's text.
func (d *Doc) Align(a Align) *Doc {
	if d.err != nil {
		return d
	}
	if a > Right {
		return d.fail("alignment %d", byte(a))
	}
	d.buf = append(d.buf, esc, 'a', byte(a))
	return d
}

// Bold turns emphasis on or off (ESC E n).
func (d *Doc) Bold(on bool) *Doc {
	if d.err != nil {
		return d
	}
	d.buf = append(d.buf, esc, 'E', bit(on))
	return d
}

// Underline turns a one-dot underline on or off (ESC - n).
func (d *Doc) Underline(on bool) *Doc {
	if d.err != nil {
		return d
	}
	d.buf = append(d.buf, esc, '-', bit(on))
	return d
}

// Size sets the character magnification, width and height each 1 to 8 (GS ! n). A double-width
// line holds half as many characters: 21 instead of 42 on an 80 mm roll in font A.
func (d *Doc) Size(width, height int) *Doc {
	if d.err != nil {
		return d
	}
	if width < 1 || width > 8 || height < 1 || height > 8 {
		return d.fail("character size %dx%d (each must be 1 to 8)", width, height)
	}
	d.buf = append(d.buf, gs, '!', byte((width-1)<<4|(height-1)))
	return d
}

// Text adds text to the current line, transcoded to PC858: '\n' ends a line, '\r' is dropped, a tab
// becomes a space, any other control character and any rune PC858 lacks prints as '?'.
func (d *Doc) Text(s string) *Doc {
	if d.err != nil || s == "" {
		return d
	}
	before := len(d.buf)
	d.buf = appendText(d.buf, s)
	if len(d.buf) > before {
		d.midLine = d.buf[len(d.buf)-1] != lf
		d.fed = false
	}
	return d
}

// Line adds text and ends the line (LF prints it).
func (d *Doc) Line(s string) *Doc {
	if d.err != nil {
		return d
	}
	d.buf = appendText(d.buf, s)
	d.buf = append(d.buf, lf)
	d.midLine, d.fed = false, false
	return d
}

// Feed prints what is pending and feeds n more lines, 0 to 255 (ESC d n).
func (d *Doc) Feed(n int) *Doc {
	if d.err != nil {
		return d
	}
	if n < 0 || n > 255 {
		return d.fail("feed of %d lines (0 to 255)", n)
	}
	d.buf = append(d.buf, esc, 'd', byte(n))
	d.fed = d.fed && !d.midLine || n >= qrQuietLines
	d.midLine = false
	return d
}

// endLine prints pending text first: barcodes and QR codes are only taken at the start of a line.
func (d *Doc) endLine() {
	if d.midLine {
		d.buf = append(d.buf, lf)
		d.midLine = false
	}
}

// Barcode128 prints data as a Code 128 symbol with its digits printed below (HRI), centred by the
// current alignment. Digits are packed two per symbol character (code set C, so an 18-digit
// validation number stays short and scans fast); other printable ASCII uses code set B.
func (d *Doc) Barcode128(data string) *Doc {
	if d.err != nil {
		return d
	}
	payload, err := code128Payload(data)
	if err != nil {
		return d.fail("code 128 %q: %v", data, err)
	}
	d.endLine()
	d.buf = append(d.buf,
		gs, 'H', hriBelow, // HRI characters below the bars
		gs, 'h', barcodeHeight,
		gs, 'w', barcodeModule,
		gs, 'k', 73, byte(len(payload))) // m=73: CODE128, length-prefixed
	d.buf = append(d.buf, payload...)
	d.fed = false
	return d
}

// code128Payload is the GS k m=73 data: a code set selection ("{B", "{C") then the characters;
// in set C each byte is a pair of digits 0-99, and in set B a literal '{' is sent as "{{".
func code128Payload(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("empty")
	}
	digits := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7E {
			return nil, fmt.Errorf("byte %#02x at %d is not printable ASCII", c, i)
		}
		if c < '0' || c > '9' {
			digits = false
		}
	}
	var out []byte
	if digits && len(s) >= 2 {
		out = append(make([]byte, 0, 2+len(s)/2+3), '{', 'C')
		pair := func(i int) byte { return (s[i]-'0')*10 + s[i+1] - '0' }
		for i := 0; i+1 < len(s); i += 2 {
			// The pair 16 followed by 04, 05 or 20 would put DLE EOT, DLE ENQ or DLE DC4 on the
			// wire, which a printer acts on wherever it appears (an extra status byte, a recovery,
			// a buffer clear): those two digits go in code set B instead.
			if v := pair(i); v == dle && i+3 < len(s) && isRealTimeSecond(pair(i+2)) {
				out = append(out, '{', 'B', s[i], s[i+1], '{', 'C')
				continue
			}
			out = append(out, pair(i))
		}
		if len(s)%2 == 1 {
			out = append(out, '{', 'B', s[len(s)-1])
		}
	} else {
		out = append(make([]byte, 0, 2+len(s)), '{', 'B')
		for i := 0; i < len(s); i++ {
			if s[i] == '{' {
				out = append(out, '{')
			}
			out = append(out, s[i])
		}
	}
	if len(out) > 255 {
		return nil, fmt.Errorf("too long (%d bytes encoded, 255 at most)", len(out))
	}
	return out, nil
}

// QR prints data as a QR code (model 2, error correction M), aligned like text, with its quiet
// zone: a blank line above (unless Feed just made one) and one below. data is printable ASCII (a
// validation number, a URL), at most 512 bytes: the printer stores bytes, not runes, and a scanner
// must read back exactly what the kiosk recorded.
func (d *Doc) QR(data string) *Doc {
	if d.err != nil {
		return d
	}
	if data == "" || len(data) > maxQRData {
		return d.fail("qr code of %d bytes (1 to %d)", len(data), maxQRData)
	}
	for i := 0; i < len(data); i++ {
		if c := data[i]; c < 0x20 || c > 0x7E {
			return d.fail("qr code byte %#02x at %d is not printable ASCII", c, i)
		}
	}
	d.endLine()
	if !d.fed {
		d.buf = append(d.buf, esc, 'd', qrQuietLines)
	}
	store := len(data) + 3
	d.buf = append(d.buf,
		gs, '(', 'k', 4, 0, 49, 65, 50, 0, // fn 165: model 2
		gs, '(', 'k', 3, 0, 49, 67, qrModule, // fn 167: module size in dots
		gs, '(', 'k', 3, 0, 49, 69, qrLevelM, // fn 169: error correction level
		gs, '(', 'k', byte(store), byte(store>>8), 49, 80, 48) // fn 180: store the data
	d.buf = append(d.buf, data...)
	d.buf = append(d.buf, gs, '(', 'k', 3, 0, 49, 81, 48) // fn 181: print the stored symbol
	d.buf = append(d.buf, esc, 'd', qrQuietLines)
	d.fed = true
	return d
}

// Cut prints what is pending, feeds the paper to the cutter and cuts it fully (GS V 65 0).
func (d *Doc) Cut() *Doc {
	if d.err != nil {
		return d
	}
	d.endLine()
	d.buf = append(d.buf, gs, 'V', 65, 0)
	d.fed = false
	return d
}

// Err is the first mistake recorded, or nil.
func (d *Doc) Err() error { return d.err }

// Len is the number of bytes built so far.
func (d *Doc) Len() int { return len(d.buf) }

// Bytes returns the document's byte stream, or the first mistake recorded (wrapping ErrDoc). The
// slice is the Doc's own: do not change it. A stream holding the start of a real-time command is a
// mistake: no builder method should ever make one (see realTimeAt).
func (d *Doc) Bytes() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	if i := realTimeAt(d.buf); i >= 0 {
		d.fail("bytes % x at %d would be a real-time command", d.buf[i:i+2], i)
		return nil, d.err
	}
	return d.buf, nil
}

// isRealTimeSecond tells the bytes that make DLE the start of a real-time command: EOT, ENQ, DC4.
func isRealTimeSecond(b byte) bool { return b == eot || b == enq || b == dc4 }

// realTimeAt returns where b holds DLE followed by EOT, ENQ or DC4, or -1. A printer acts on a
// real-time command the moment its bytes arrive, wherever they stand: inside a barcode's or a QR
// code's data, or as a command's parameter, they would make it answer a status nobody asked for,
// recover from an error or clear its buffers in the middle of a voucher. A document never sends a
// real-time command, so it never holds these two bytes in a row.
func realTimeAt(b []byte) int {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], dle)
		if i < 0 {
			return -1
		}
		off += i + 1
		if off < len(b) && isRealTimeSecond(b[off]) {
			return off - 1
		}
	}
}

func bit(on bool) byte {
	if on {
		return 1
	}
	return 0
}
