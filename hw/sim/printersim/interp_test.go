package printersim

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/escpos"
)

func TestSampleVoucherReadsBack(t *testing.T) {
	in, a := newInterp(Config{})
	_, err := in.Write(sampleBytes(t))
	require.NoError(t, err)
	assert.Empty(t, a.got, "a document alone asks nothing")
	assert.Empty(t, in.Log(), "every command of the builder is understood")
	rs := in.Receipts()
	require.Len(t, rs, 1)
	r := rs[0]
	assert.True(t, r.Complete)
	assert.Equal(t, 1, r.Seq)

	plain := r.Plain()
	for _, want := range []string{
		"PHARAON", "Café de la Gare - Lyon 3?", "Borne n° 0007", "BON DE PAIEMENT",
		"Date : 14/03/2026   Heure : 18:42", "Séquence : 000123", "Montant : " + sampleAmount,
		sampleWords[:42], sampleWords[42:], "Validation : " + sampleNumber,
		"Valable jusqu'au 12/06/2026", "À présenter à un centre de paiement",
	} {
		assert.Contains(t, plain, want+"\n")
	}

	// Styles and layout as sent.
	title := r.Lines[0]
	assert.Equal(t, TextLine, title.Kind)
	assert.Equal(t, Center, title.Align)
	assert.Equal(t, []Run{{Text: "PHARAON", Bold: true, Width: 2, Height: 2}}, title.Runs)
	var amount, barcode, qrLine *Line
	for i := range r.Lines {
		l := &r.Lines[i]
		switch {
		case strings.HasPrefix(l.Text(), "Montant"):
			amount = l
		case l.Kind == BarcodeLine:
			barcode = l
		case l.Kind == QRLine:
			qrLine = l
		}
	}
	require.NotNil(t, amount)
	assert.Equal(t, Left, amount.Align)
	assert.Equal(t, []Run{
		{Text: "Montant : ", Width: 1, Height: 1},
		{Text: sampleAmount, Bold: true, Width: 2, Height: 2},
	}, amount.Runs)
	require.NotNil(t, barcode)
	assert.Equal(t, "CODE128", barcode.Barcode.Symbology)
	assert.Equal(t, sampleNumber, barcode.Barcode.HRI)
	assert.Equal(t, 2, barcode.Barcode.HRIPosition)
	assert.Equal(t, 80, barcode.Barcode.Height)
	assert.Equal(t, 2, barcode.Barcode.ModuleWidth)
	assert.Equal(t, Center, barcode.Align)
	require.NotNil(t, qrLine)
	assert.Equal(t, QRCode{Data: sampleNumber, Module: 6, Level: 'M'}, *qrLine.QR)

	// The text rendering: every line padded to 42 columns, centred lines centred, double width spaced.
	lines := strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n")
	for _, l := range lines {
		assert.Equal(t, 42, utf8.RuneCountInString(l), "%q", l)
	}
	assert.Equal(t, "              P H A R A O N               ", lines[0])
	assert.Contains(t, r.Text, "Montant : 3 \u00a0 7 5 0 , 5 0 \u00a0 €")
	assert.Contains(t, r.Text, "        ||| "+sampleNumber+" |||        \n")
	assert.Contains(t, r.Text, "            "+sampleNumber+"            \n")
	assert.Contains(t, r.Text, "[QR: "+sampleNumber+"]")
	assert.Contains(t, lines[len(lines)-1], "✂")
}

func TestCodeTableAndCharacterSet(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		data []byte
		want string
	}{
		{"PC858 selected", Config{}, []byte{esc, 't', 19, 0x82, 0x85, 0x87, 0xD5, 0xFF, 0xF8, lf}, "éàç€\u00a0°"},
		{"PC437 at power-on has no euro", Config{}, []byte{0x82, 0xD5, lf}, "é╒"},
		{"WPC1252", Config{}, []byte{esc, 't', 16, 0xE9, 0x80, lf}, "é€"},
		{"unsupported table keeps the current one", Config{CodeTable: 19}, []byte{esc, 't', 99, 0xD5, lf}, "€"},
		{"memory switch table survives ESC @", Config{CodeTable: 19}, []byte{esc, '@', 0xD5, lf}, "€"},
		{"France set replaces braces", Config{Charset: 1}, []byte("{@}|\n"), "éàèù"},
		{"ESC R 0 restores USA", Config{Charset: 1}, []byte("\x1bR\x00{@}\n"), "{@}"},
		{"builder text is right on a French-configured printer", Config{Charset: 1},
			mustBytes(t, escpos.NewDoc().Init().Line("{é} 5 €")), "{é} 5 €"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := newInterp(tt.cfg)
			in.Write(append(tt.data, gs, 'V', 0))
			rs := in.Receipts()
			require.Len(t, rs, 1)
			assert.Equal(t, tt.want+"\n", rs[0].Plain())
		})
	}
}

func mustBytes(t *testing.T, d *escpos.Doc) []byte {
	t.Helper()
	b, err := d.Bytes()
	require.NoError(t, err)
	return b
}

func TestLinesWrapAtThePaperWidth(t *testing.T) {
	in, _ := newInterp(Config{})
	long := strings.Repeat("0123456789", 5) // 50 characters
	in.Write(mustBytes(t, escpos.NewDoc().Init().Line(long).Size(2, 1).Line(long[:30]).Cut()))
	r := in.Receipts()[0]
	var texts []string
	for _, l := range r.Lines {
		texts = append(texts, l.Text())
	}
	assert.Equal(t, []string{long[:42], long[42:], long[:21], long[21:30]}, texts)
}

// HT pads with spaces to the next stop, every 8 columns, in the current size; it must end at any
// size, including one whose columns never land on a stop (a host's 4 bytes once hung the printer).
func TestTabMovesToTheNextStop(t *testing.T) {
	forty := strings.Repeat("a", 40)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"from the start", []byte("\tx\n"), "        x\n"},
		{"mid-way to a stop", []byte("ab\tx\n"), "ab      x\n"},
		{"from a stop to the next", []byte("01234567\tx\n"), "01234567        x\n"},
		{"past the last stop: the line's end", []byte(forty + "\tx\n"), forty + "  \nx\n"},
		{"double width", []byte{gs, '!', 0x10, 'a', ht, 'x', lf}, "a   x\n"},
		{"width 7 never lands on a stop", []byte{gs, '!', 0x60, ht, 'x', lf}, " x\n"},
		{"width 8", []byte{gs, '!', 0x70, 'a', ht, ht, 'x', lf}, "a  x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := newInterp(Config{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				in.Write(append(tt.data, gs, 'V', 0))
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("HT never returned")
			}
			rs := in.Receipts()
			require.Len(t, rs, 1)
			assert.Equal(t, tt.want, rs[0].Plain())
		})
	}
}

func TestInitDropsPendingTextAndStyles(t *testing.T) {
	in, _ := newInterp(Config{})
	in.Write([]byte("lost\x1bE\x01\x1da\x1d!\x11\x1b@kept\n\x1dV\x00"))
	r := in.Receipts()[0]
	require.Len(t, r.Lines, 1)
	assert.Equal(t, []Run{{Text: "kept", Width: 1, Height: 1}}, r.Lines[0].Runs)
}

func TestForeignCommandsAreSkippedByLength(t *testing.T) {
	in, a := newInterp(Config{})
	var b []byte
	b = append(b, esc, '@')
	// A raster image whose data holds DLE EOT 1 and GS V: the GS V is image data; the DLE EOT is
	// image data too, and a real printer answers it all the same (see realtime.go).
	b = append(b, gs, 'v', '0', 0, 3, 0, 2, 0, dle, eot, 1, gs, 'V', 0)
	b = append(b, esc, '*', 33, 1, 0, 0x10, 0x04, 0x02) // 24-dot bit image, one column
	b = append(b, esc, 'p', 0, 50, 250)                 // drawer pulse
	b = append(b, esc, '3', 40, esc, ' ', 2, gs, 'B', 1, gs, 'L', 0, 0, esc, 'D', 8, 16, 0)
	b = append(b, gs, '(', 'k', 3, 0, 48, 65, 0) // PDF417 setting
	b = append(b, esc, 'z', 0x02, gs, 0x01)      // unknown commands and a stray control byte
	b = append(b, "still in step\n"...)
	b = append(b, gs, 'V', 66, 0)
	in.Write(b)
	assert.Equal(t, []byte{0x12, 0x12}, a.got, "the DLE EOT 1 and 2 in image data are answered")
	rs := in.Receipts()
	require.Len(t, rs, 1)
	assert.Equal(t, "still in step\n", rs[0].Plain())
	log := strings.Join(in.Log(), "\n")
	assert.Contains(t, log, "unknown command ESC 0x7a")
	assert.Contains(t, log, "unknown byte 0x02")
	assert.Contains(t, log, "unknown command GS 0x01")
	assert.Contains(t, log, "ignored GS")
}

// The host's bytes arrive in any chunks: a byte at a time must print exactly what one write does.
func TestSplitDeliveryPrintsTheSame(t *testing.T) {
	whole, _ := newInterp(Config{})
	whole.Write(sampleBytes(t))
	split, _ := newInterp(Config{})
	for _, c := range sampleBytes(t) {
		split.Write([]byte{c})
	}
	require.Len(t, split.Receipts(), 1)
	assert.Equal(t, whole.Receipts()[0].Text, split.Receipts()[0].Text)
	assert.Equal(t, whole.Receipts()[0].Lines, split.Receipts()[0].Lines)
}

func TestRealTimeStatusFromState(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Interpreter)
		want [4]byte
	}{
		{"ready", func(*Interpreter) {}, [4]byte{0x12, 0x12, 0x12, 0x12}},
		{"paper near end", func(in *Interpreter) { in.SetPaper(PaperLow) }, [4]byte{0x12, 0x12, 0x12, 0x1E}},
		{"paper out", func(in *Interpreter) { in.SetPaper(PaperEmpty) }, [4]byte{0x1A, 0x32, 0x12, 0x7E}},
		{"cover open", func(in *Interpreter) { in.SetCoverOpen(true) }, [4]byte{0x1A, 0x16, 0x12, 0x12}},
		{"cutter", func(in *Interpreter) { in.SetCutterError(true) }, [4]byte{0x3A, 0x52, 0x1A, 0x12}},
		{"unrecoverable", func(in *Interpreter) { in.SetUnrecoverable(true) }, [4]byte{0x1A, 0x52, 0x32, 0x12}},
		{"overheat", func(in *Interpreter) { in.SetOverheat(true) }, [4]byte{0x1A, 0x52, 0x52, 0x12}},
		{"offline", func(in *Interpreter) { in.SetOffline(true) }, [4]byte{0x1A, 0x12, 0x12, 0x12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, a := newInterp(Config{})
			tt.set(in)
			in.Write([]byte{dle, eot, 1, dle, eot, 2, dle, eot, 3, dle, eot, 4})
			assert.Equal(t, tt.want[:], a.take())
			in.Write([]byte{dle, eot, 5, dle, eot, 7, 1})
			assert.Empty(t, a.got, "other DLE EOT requests are not answered")
		})
	}
}

func TestPaperOutMidReceiptHoldsTheRestUntilReload(t *testing.T) {
	in, a := newInterp(Config{})
	in.Inject(AfterLines(3), PaperOut)
	in.Write(append(sampleBytes(t), gs, 'r', 1, dle, eot, 4))
	rs := in.Receipts()
	require.Len(t, rs, 1, "the printed part came out")
	r := rs[0]
	assert.False(t, r.Complete)
	assert.Equal(t, PaperOut, r.Fault)
	assert.Len(t, r.Lines, 3)
	assert.Contains(t, r.Text, "REÇU INCOMPLET : papier épuisé")
	assert.Equal(t, []byte{0x7E}, a.take(), "DLE EOT answered at once; GS r waits")
	assert.Positive(t, in.Held())
	assert.Equal(t, PaperEmpty, in.State().Paper)

	in.SetPaper(PaperOK) // a new roll: the printer goes on where it stopped
	assert.Equal(t, []byte{0x00}, a.take(), "GS r answered once everything before it is printed")
	rs = in.Receipts()
	require.Len(t, rs, 2)
	assert.True(t, rs[1].Complete)
	assert.Contains(t, rs[1].Plain(), sampleNumber)
	assert.NotContains(t, rs[1].Plain(), "PHARAON")
	assert.Zero(t, in.Held())
}

func TestClearBuffersDropsWhatIsHeld(t *testing.T) {
	in, a := newInterp(Config{})
	in.Inject(AfterLines(2), PaperOut)
	in.Write(append(sampleBytes(t), gs, 'r', 1))
	require.Len(t, in.Receipts(), 1)
	in.Write([]byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 8})
	assert.Equal(t, []byte{0x37, 0x25, 0x00}, a.take())
	assert.Zero(t, in.Held())
	in.SetPaper(PaperOK)
	assert.Len(t, in.Receipts(), 1, "the rest of the voucher never prints")
	assert.Empty(t, a.got, "the GS r was cleared too")

	// A wrong DLE DC4 8 sequence is not a clear.
	in.Write([]byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 9})
	assert.Empty(t, a.got)
}

func TestCutterJamLeavesTheReceiptUncut(t *testing.T) {
	in, a := newInterp(Config{})
	in.Inject(AtCut(), CutterJam)
	in.Write(append(sampleBytes(t), gs, 'r', 1))
	rs := in.Receipts()
	require.Len(t, rs, 1)
	assert.False(t, rs[0].Complete)
	assert.Equal(t, CutterJam, rs[0].Fault)
	assert.Contains(t, rs[0].Plain(), sampleNumber, "everything printed, only the cut failed")
	assert.Empty(t, a.got)
	in.Write([]byte{dle, eot, 3})
	assert.Equal(t, []byte{0x1A}, a.take())

	in.Write([]byte{dle, enq, 2}) // recover, clearing the buffers
	assert.False(t, in.State().CutterError)
	assert.Zero(t, in.Held())
	assert.Empty(t, a.got, "the GS r was cleared with the buffers")
}

func TestFaultAfterSync(t *testing.T) {
	in, a := newInterp(Config{})
	in.Inject(AfterSync(), CoverOpen)
	in.Write(append(sampleBytes(t), gs, 'r', 1, dle, eot, 2))
	assert.Equal(t, []byte{0x00, 0x16}, a.take())
	require.Len(t, in.Receipts(), 1)
	assert.True(t, in.Receipts()[0].Complete)
}

func TestPaperNearEndKeepsPrinting(t *testing.T) {
	in, a := newInterp(Config{})
	in.Inject(AfterLines(1), PaperNearEnd)
	in.Write(append(sampleBytes(t), gs, 'r', 1))
	assert.Equal(t, []byte{0x03}, a.take(), "GS r reports the near end")
	require.Len(t, in.Receipts(), 1)
	assert.True(t, in.Receipts()[0].Complete)
}

func TestTamperAndSilence(t *testing.T) {
	in, a := newInterp(Config{})
	in.Tamper(func(req, normal []byte) []byte {
		if req[0] == dle {
			return []byte{0xFF}
		}
		return normal
	})
	in.Write([]byte{dle, eot, 1, gs, 'r', 1})
	assert.Equal(t, []byte{0xFF, 0x00}, a.take())
	in.SetSilent(true)
	in.Write([]byte{dle, eot, 1, gs, 'r', 1, gs, 'I', 1})
	assert.Empty(t, a.got)
	in.SetSilent(false)
	in.Write([]byte{dle, eot, 1})
	assert.Equal(t, []byte{0x12}, a.take())
}

func TestIdentification(t *testing.T) {
	in, a := newInterp(Config{})
	in.Write([]byte{gs, 'I', 2, gs, 'I', 66})
	assert.Equal(t, append([]byte{0x02}, "_PHARAON\x00"...), a.take())
}

func TestBadSymbolsAreNotPrinted(t *testing.T) {
	in, _ := newInterp(Config{})
	var b []byte
	b = append(b, gs, 'k', 73, 3, 'x', 'y', 'z')         // no code set selection
	b = append(b, gs, 'k', 73, 3, '{', 'C', 100)         // 100 is not a digit pair
	b = append(b, gs, 'w', 6, gs, 'k', 73, 42, '{', 'B') // 40 characters at 6 dots: too wide
	b = append(b, []byte(strings.Repeat("W", 40))...)    //
	b = append(b, gs, '(', 'k', 3, 0, 49, 81, 48)        // QR print with nothing stored
	b = append(b, gs, 'k', 70, 4, '1', '2', '3', '4')    // ITF: kept as text only
	b = append(b, "ok\n"...)                             //
	b = append(b, gs, 'V', 0)                            //
	in.Write(b)
	r := in.Receipts()[0]
	require.Len(t, r.Lines, 2)
	assert.Equal(t, "ITF", r.Lines[0].Barcode.Symbology)
	assert.Equal(t, "ok", r.Lines[1].Text())
	log := strings.Join(in.Log(), "\n")
	assert.Contains(t, log, "no code set selection")
	assert.Contains(t, log, "byte 0x64 in code set C")
	assert.Contains(t, log, "wider than the print area")
	assert.Contains(t, log, "QR print with no data")
}

func TestCode128Decoding(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		values []int
		hri    string
	}{
		// Start C (105), 12, 34, 56; check (105 + 1*12 + 2*34 + 3*56) mod 103 = 353 mod 103 = 44.
		{"set C", []byte{'{', 'C', 12, 34, 56}, []int{105, 12, 34, 56, 44, 106}, "123456"},
		// Start B (104), 'P'=48, 'J'=42; check (104 + 48 + 84) mod 103 = 236 mod 103 = 30.
		{"set B", []byte("{BPJ"), []int{104, 48, 42, 30, 106}, "PJ"},
		// C then B: 105, 12, code B 100, '5'=21; check (105+12+200+63) mod 103 = 380 mod 103 = 71.
		{"set C then B", []byte{'{', 'C', 12, '{', 'B', '5'}, []int{105, 12, 100, 21, 71, 106}, "125"},
		// Literal brace in B: 104, '{'=91; check (104+91) mod 103 = 92.
		{"escaped brace", []byte("{B{{"), []int{104, 91, 92, 106}, "{"},
		// Set A with a control character: 103, TAB = 9+64 = 73; check (103+73) mod 103 = 73.
		{"set A control", []byte{'{', 'A', 0x09}, []int{103, 73, 73, 106}, " "},
		// FNC1 then digits: 105, 102, 42; check (105+102+84) mod 103 = 291 mod 103 = 85.
		{"FNC1", []byte{'{', 'C', '{', '1', 42}, []int{105, 102, 42, 85, 106}, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseCode128(tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.values, c.Values)
			assert.Equal(t, tt.hri, c.HRI)
			assert.Len(t, c.modules(), 11*(len(tt.values)-1)+13)
		})
	}
	for _, bad := range [][]byte{nil, []byte("{"), []byte("{D1"), []byte("{B"), []byte("{B{"), []byte("{C{2"), {'{', 'A', 0x60}, []byte("{A{{")} {
		_, err := parseCode128(bad)
		assert.ErrorIs(t, err, errCode128, "%q", bad)
	}
}

func TestCode128TableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for v, w := range code128Widths {
		sum, bars := 0, 0
		for i, c := range w {
			sum += int(c - '0')
			if i%2 == 0 {
				bars += int(c - '0')
			}
		}
		if v == c128Stop {
			assert.Equal(t, 13, sum)
			continue
		}
		assert.Equal(t, 11, sum, "value %d", v)
		assert.Zero(t, bars%2, "value %d: bar modules are even", v)
		assert.False(t, seen[w], "value %d duplicates a pattern", v)
		seen[w] = true
	}
}

func TestDisarmDropsPendingInjections(t *testing.T) {
	in, _ := newInterp(Config{})
	in.Inject(AfterLines(1), PaperOut)
	in.Inject(AtCut(), CutterJam)
	in.Disarm()
	in.Write([]byte("one\ntwo\n\x1dV\x00"))
	assert.Equal(t, State{}, in.State(), "nothing fired after Disarm")
}
