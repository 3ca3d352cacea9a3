package printersim

import (
	"testing"
)

// The simulator's cost per voucher, each against its baseline in the same run:
//   - BenchmarkFrameVoucher: framing only, the floor for any interpreter of this stream;
//   - BenchmarkInterpretVoucher: framing, executing and the text rendering of the receipt;
//   - BenchmarkDrawVoucher: the PNG picture (glyphs cached, as in a long run) and its encoding.
func BenchmarkFrameVoucher(b *testing.B) {
	doc := sampleBytes(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(doc); {
			n, _ := frame(doc[off:])
			off += n
		}
	}
}

func BenchmarkInterpretVoucher(b *testing.B) {
	doc := sampleBytes(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		in := NewInterpreter(Config{}, nil)
		in.Write(doc)
		if len(in.receipts) != 1 {
			b.Fatal("no receipt")
		}
	}
}

func BenchmarkDrawVoucher(b *testing.B) {
	in := NewInterpreter(Config{}, nil)
	in.Write(sampleBytes(b))
	r := in.receipts[0]
	r.Image()
	b.ReportAllocs()
	for b.Loop() {
		c := &Receipt{Lines: r.Lines, Complete: true, layout: r.layout}
		if _, err := c.PNG(); err != nil {
			b.Fatal(err)
		}
	}
}
