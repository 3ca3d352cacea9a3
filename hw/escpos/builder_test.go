package escpos

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDocCommandBytes(t *testing.T) {
	tests := []struct {
		name  string
		build func(*Doc) *Doc
		want  []byte
	}{
		{"init selects USA set and PC858", (*Doc).Init, []byte{0x1B, '@', 0x1B, 'R', 0, 0x1B, 't', 19}},
		{"align center", func(d *Doc) *Doc { return d.Align(Center) }, []byte{0x1B, 'a', 1}},
		{"align right", func(d *Doc) *Doc { return d.Align(Right) }, []byte{0x1B, 'a', 2}},
		{"bold on", func(d *Doc) *Doc { return d.Bold(true) }, []byte{0x1B, 'E', 1}},
		{"bold off", func(d *Doc) *Doc { return d.Bold(false) }, []byte{0x1B, 'E', 0}},
		{"underline", func(d *Doc) *Doc { return d.Underline(true) }, []byte{0x1B, '-', 1}},
		{"size 1x1", func(d *Doc) *Doc { return d.Size(1, 1) }, []byte{0x1D, '!', 0x00}},
		{"size 2x2", func(d *Doc) *Doc { return d.Size(2, 2) }, []byte{0x1D, '!', 0x11}},
		{"size 8x3", func(d *Doc) *Doc { return d.Size(8, 3) }, []byte{0x1D, '!', 0x72}},
		{"line", func(d *Doc) *Doc { return d.Line("Total") }, []byte("Total\n")},
		{"feed", func(d *Doc) *Doc { return d.Feed(3) }, []byte{0x1B, 'd', 3}},
		{"cut", (*Doc).Cut, []byte{0x1D, 'V', 65, 0}},
		{"cut ends a pending line", func(d *Doc) *Doc { return d.Text("x").Cut() }, []byte{'x', '\n', 0x1D, 'V', 65, 0}},
		{"code 128 even digits in set C", func(d *Doc) *Doc { return d.Barcode128("123456") },
			[]byte{0x1D, 'H', 2, 0x1D, 'h', 80, 0x1D, 'w', 2, 0x1D, 'k', 73, 5, '{', 'C', 12, 34, 56}},
		{"code 128 odd digits end in set B", func(d *Doc) *Doc { return d.Barcode128("12345") },
			[]byte{0x1D, 'H', 2, 0x1D, 'h', 80, 0x1D, 'w', 2, 0x1D, 'k', 73, 7, '{', 'C', 12, 34, '{', 'B', '5'}},
		{"code 128 text in set B with brace escaped", func(d *Doc) *Doc { return d.Barcode128("A{1") },
			[]byte{0x1D, 'H', 2, 0x1D, 'h', 80, 0x1D, 'w', 2, 0x1D, 'k', 73, 6, '{', 'B', 'A', '{', '{', '1'}},
		{"barcode starts its own line", func(d *Doc) *Doc { return d.Text("n°").Barcode128("7") },
			[]byte{'n', 0xF8, '\n', 0x1D, 'H', 2, 0x1D, 'h', 80, 0x1D, 'w', 2, 0x1D, 'k', 73, 3, '{', 'B', '7'}},
		{"qr code with a blank line above and below", func(d *Doc) *Doc { return d.QR("AB1") }, []byte{
			0x1B, 'd', 1,
			0x1D, '(', 'k', 4, 0, 49, 65, 50, 0,
			0x1D, '(', 'k', 3, 0, 49, 67, 6,
			0x1D, '(', 'k', 3, 0, 49, 69, 49,
			0x1D, '(', 'k', 6, 0, 49, 80, 48, 'A', 'B', '1',
			0x1D, '(', 'k', 3, 0, 49, 81, 48,
			0x1B, 'd', 1}},
		{"qr code after a feed: no second blank line", func(d *Doc) *Doc { return d.Text("x").Feed(1).Bold(true).QR("7") }, []byte{
			'x', 0x1B, 'd', 1, 0x1B, 'E', 1,
			0x1D, '(', 'k', 4, 0, 49, 65, 50, 0,
			0x1D, '(', 'k', 3, 0, 49, 67, 6,
			0x1D, '(', 'k', 3, 0, 49, 69, 49,
			0x1D, '(', 'k', 4, 0, 49, 80, 48, '7',
			0x1D, '(', 'k', 3, 0, 49, 81, 48,
			0x1B, 'd', 1}},
		{"feed 0 after text is no quiet zone", func(d *Doc) *Doc { return d.Feed(1).Text("x").Feed(0).QR("7") }, []byte{
			0x1B, 'd', 1, 'x', 0x1B, 'd', 0, 0x1B, 'd', 1,
			0x1D, '(', 'k', 4, 0, 49, 65, 50, 0,
			0x1D, '(', 'k', 3, 0, 49, 67, 6,
			0x1D, '(', 'k', 3, 0, 49, 69, 49,
			0x1D, '(', 'k', 4, 0, 49, 80, 48, '7',
			0x1D, '(', 'k', 3, 0, 49, 81, 48,
			0x1B, 'd', 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.build(NewDoc()).Bytes()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestQRStoreLengthUsesBothBytes(t *testing.T) {
	data := bytes.Repeat([]byte("9"), 300)
	got, err := NewDoc().QR(string(data)).Bytes()
	require.NoError(t, err)
	store := []byte{0x1D, '(', 'k', byte(303 & 0xFF), byte(303 >> 8), 49, 80, 48}
	i := bytes.Index(got, store)
	require.GreaterOrEqual(t, i, 0, "store function with pL pH = 303")
	assert.Equal(t, data, got[i+len(store):i+len(store)+300])
}

func TestTextIsTranscodedToPC858(t *testing.T) {
	tests := []struct {
		in   string
		want []byte
	}{
		{"é è à ç", []byte{0x82, ' ', 0x8A, ' ', 0x85, ' ', 0x87}},
		{"É À Ç Ê ô û ï", []byte{0x90, ' ', 0xB7, ' ', 0x80, ' ', 0xD2, ' ', 0x93, ' ', 0x96, ' ', 0x8B}},
		{"3\u00a0750,50\u00a0€", []byte{'3', 0xFF, '7', '5', '0', ',', '5', '0', 0xFF, 0xD5}},
		{"12\u202f€", []byte{'1', '2', 0xFF, 0xD5}}, // narrow no-break space → no-break space
		{"« DUPLICATA »", append(append([]byte{0xAE}, " DUPLICATA "...), 0xAF)},
		{"l’été – n°", []byte{'l', '\'', 0x82, 't', 0x82, ' ', '-', ' ', 'n', 0xF8}},
		{"a\r\nb", []byte{'a', '\n', 'b'}},
		{"a\tb", []byte{'a', ' ', 'b'}},
		{"\x1b@\x1dV\x00\x10\x04", []byte("?@?V???")}, // commands smuggled in text are neutralised
		{"\u0085", []byte{'?'}}, // C1 control
		{"日本 ✓", []byte{'?', '?', ' ', '?'}},
		{"a\xffb", []byte{'a', '?', 'b'}}, // invalid UTF-8
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NewDoc().Text(tt.in).Bytes()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want, Encode(tt.in))
		})
	}
}

// Whatever text a caller passes, the only control byte it can put in the stream is LF.
func TestTextNeverCarriesControlBytesOrRawUTF8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		runes := make([]rune, rng.IntN(40))
		for i := range runes {
			switch rng.IntN(3) {
			case 0:
				runes[i] = rune(rng.IntN(0x100))
			case 1:
				runes[i] = rune(rng.IntN(0x3000))
			default:
				runes[i] = rune(rng.IntN(utf8.MaxRune))
			}
		}
		s := string(runes)
		got := Encode(s)
		for i, b := range got {
			if b < 0x20 {
				require.Equal(t, byte('\n'), b, "control byte %#02x at %d for %q", b, i, s)
			}
			require.NotEqual(t, byte(0x7F), b)
		}
		assert.LessOrEqual(t, len(got), utf8.RuneCountInString(s), "one byte per rune at most")
	}
}

func TestDocRejectsWhatItCannotPrint(t *testing.T) {
	tests := []struct {
		name  string
		build func(*Doc) *Doc
	}{
		{"size 0", func(d *Doc) *Doc { return d.Size(0, 1) }},
		{"size 9", func(d *Doc) *Doc { return d.Size(1, 9) }},
		{"align", func(d *Doc) *Doc { return d.Align(Align(3)) }},
		{"feed -1", func(d *Doc) *Doc { return d.Feed(-1) }},
		{"feed 256", func(d *Doc) *Doc { return d.Feed(256) }},
		{"empty barcode", func(d *Doc) *Doc { return d.Barcode128("") }},
		{"barcode with é", func(d *Doc) *Doc { return d.Barcode128("café") }},
		{"barcode with control", func(d *Doc) *Doc { return d.Barcode128("a\nb") }},
		{"barcode too long", func(d *Doc) *Doc { return d.Barcode128(string(bytes.Repeat([]byte("x"), 254))) }},
		{"empty qr", func(d *Doc) *Doc { return d.QR("") }},
		{"qr too long", func(d *Doc) *Doc { return d.QR(string(bytes.Repeat([]byte("x"), 513))) }},
		{"qr not ascii", func(d *Doc) *Doc { return d.QR("é") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.build(NewDoc().Init())
			_, err := d.Bytes()
			require.ErrorIs(t, err, ErrDoc)
			assert.ErrorIs(t, d.Err(), ErrDoc)
		})
	}
}

func TestDocKeepsFirstMistakeAndStopsBuilding(t *testing.T) {
	d := NewDoc().Init()
	n := d.Len()
	d.Size(9, 9).Line("after").Cut()
	assert.Equal(t, n, d.Len(), "nothing is appended after a mistake")
	_, err := d.Bytes()
	assert.ErrorContains(t, err, "9x9")
}

func TestCode128PayloadLimits(t *testing.T) {
	// 254 digits pack into 127 bytes: far under the 255-byte limit of GS k.
	p, err := code128Payload(string(bytes.Repeat([]byte("7"), 254)))
	require.NoError(t, err)
	assert.Len(t, p, 2+127)
	_, err = code128Payload(string(bytes.Repeat([]byte("x"), 253)))
	require.NoError(t, err)
	_, err = code128Payload(string(bytes.Repeat([]byte("{"), 127)))
	assert.Error(t, err, "escaped braces count twice")
}

// decode128 reads a GS k 73 payload back to its text, for the code sets the builder uses.
func decode128(t *testing.T, p []byte) string {
	t.Helper()
	var out []byte
	set := byte(0)
	for i := 0; i < len(p); i++ {
		if p[i] == '{' && i+1 < len(p) && p[i+1] != '{' {
			set = p[i+1]
			i++
			continue
		}
		switch set {
		case 'C':
			out = append(out, '0'+p[i]/10, '0'+p[i]%10)
		case 'B':
			if p[i] == '{' {
				i++
			}
			out = append(out, p[i])
		default:
			t.Fatalf("data before a code set in % x", p)
		}
	}
	return string(out)
}

// Digit pairs 16 then 04, 05 or 20 in code set C are DLE EOT, DLE ENQ and DLE DC4 on the wire:
// they must never be sent, at any place in the number, and the number must read back the same.
func TestCode128NeverCarriesARealTimeSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	digits := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		return b
	}
	var numbers []string
	for _, seq := range []string{"1604", "1605", "1620", "160401", "16041604", "161604", "1616200"} {
		for n := 2; n <= 20; n++ {
			for at := 0; at+len(seq) <= n; at++ {
				b := digits(n)
				copy(b[at:], seq)
				numbers = append(numbers, string(b))
			}
		}
	}
	for v := range 100000 {
		numbers = append(numbers, fmt.Sprintf("%05d", v))
	}
	for _, s := range numbers {
		p, err := code128Payload(s)
		require.NoError(t, err, s)
		require.Equal(t, -1, realTimeAt(p), "%s: % x", s, p)
		require.Equal(t, s, decode128(t, p))
		doc, err := NewDoc().Init().Barcode128(s).QR(s).Bytes()
		require.NoError(t, err, s)
		require.Equal(t, -1, realTimeAt(doc), s)
	}
	// The validation number the kiosk prints stays in set C apart from the one pair.
	p, err := code128Payload("042916040118274639")
	require.NoError(t, err)
	assert.Equal(t, []byte{'{', 'C', 4, 29, '{', 'B', '1', '6', '{', 'C', 4, 1, 18, 27, 46, 39}, p)
}

// Whatever a caller builds with valid arguments, the bytes never hold DLE followed by EOT, ENQ or
// DC4 (a size of 2x1 is 0x10, a feed of 16 lines too: what follows them is never 04, 05 or 0x14).
func TestNoDocumentHoldsARealTimeSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	printable := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(0x20 + rng.IntN(0x5F))
		}
		return string(b)
	}
	for range 3000 {
		d := NewDoc().Init()
		for range 30 {
			switch rng.IntN(9) {
			case 0:
				d.Size(1+rng.IntN(8), 1+rng.IntN(8))
			case 1:
				d.Feed(rng.IntN(256))
			case 2:
				d.Text(string([]rune{rune(rng.IntN(0x300)), rune(rng.IntN(0x20)), 0x10, 0x04, 0x14}))
			case 3:
				d.Line(printable(rng.IntN(10)))
			case 4:
				d.Barcode128(fmt.Sprint(rng.Int64N(1e18)) + "16" + []string{"04", "05", "20"}[rng.IntN(3)])
			case 5:
				d.QR(printable(1 + rng.IntN(300)))
			case 6:
				d.Align(Align(rng.IntN(3))).Bold(rng.IntN(2) == 0).Underline(rng.IntN(2) == 0)
			case 7:
				d.Barcode128(printable(1 + rng.IntN(40)))
			default:
				d.Cut()
			}
		}
		b, err := d.Bytes()
		require.NoError(t, err)
		require.Equal(t, -1, realTimeAt(b), "% x", b)
	}
}

func TestBytesRefusesARealTimeSequence(t *testing.T) {
	d := NewDoc().Init()
	d.buf = append(d.buf, 0x1D, 'k', 73, 4, '{', 'C', 16, 4) // as a builder without the guard made it
	_, err := d.Bytes()
	require.ErrorIs(t, err, ErrDoc)
	assert.ErrorContains(t, err, "real-time")
}
