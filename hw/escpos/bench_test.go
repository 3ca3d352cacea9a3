package escpos

import (
	"context"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"pharaon/hw"
)

const benchWords = "trois mille sept cent cinquante euros et cinquante centimes — à présenter à un centre de paiement"

func benchVoucher() *Doc {
	return NewDoc().Init().
		Align(Center).Bold(true).Size(2, 2).Line("PHARAON").Size(1, 1).Bold(false).
		Line("Café de la Gare – Lyon 3e").Line("Borne n° 0007").Feed(1).
		Align(Left).Line("Date : 14/03/2026   Heure : 18:42").Line("Séquence : 000123").
		Text("Montant : ").Bold(true).Size(2, 2).Line("3\u00a0750,50\u00a0€").Size(1, 1).Bold(false).
		Line(benchWords).
		Align(Center).Barcode128("042917365018274639").QR("042917365018274639").
		Line("Validation : 042917365018274639").Line("Valable jusqu'au 12/06/2026").
		Feed(2).Cut()
}

// BenchmarkVoucherDoc builds and encodes a whole voucher. Its baseline, BenchmarkVoucherCopy,
// only copies the finished bytes into a fresh buffer: the difference is the builder's own cost.
func BenchmarkVoucherDoc(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := benchVoucher().Bytes(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVoucherCopy(b *testing.B) {
	done, err := benchVoucher().Bytes()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out := make([]byte, 0, 1024)
		sink = append(out, done...)
	}
}

var sink []byte

// BenchmarkEncodeText is the transcoder alone; its baseline, BenchmarkEncodeTextXText, is
// golang.org/x/text's own PC858 encoder on the same (mappable) text.
func BenchmarkEncodeText(b *testing.B) {
	b.SetBytes(int64(len(benchWords)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Encode(benchWords)
	}
}

func BenchmarkEncodeTextXText(b *testing.B) {
	enc := charmap.CodePage858.NewEncoder()
	s := "trois mille sept cent cinquante euros et cinquante centimes - à présenter à un centre de paiement"
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := enc.String(s); err != nil {
			b.Fatal(err)
		}
	}
}

// readyPort is a printer that is always ready: it answers 0x12 to every DLE EOT n, at once.
type readyPort struct{ pending int }

func (p *readyPort) Read(b []byte) (int, error) {
	if p.pending == 0 || len(b) == 0 {
		return 0, nil
	}
	p.pending--
	b[0] = 0x12
	return 1, nil
}

func (p *readyPort) Write(b []byte) (int, error) {
	if len(b) == 3 && b[0] == dle && b[1] == eot {
		p.pending++
	}
	return len(b), nil
}

func (p *readyPort) SetReadTimeout(time.Duration) error { return nil }
func (p *readyPort) ResetInputBuffer() error            { p.pending = 0; return nil }
func (p *readyPort) Close() error                       { return nil }

// BenchmarkStatus is one status read as the kiosk does it between vouchers (and every poll
// interval while one prints), on a port that costs nothing: the driver's own cost, allocations
// included. Its baseline, BenchmarkStatusExchange, is the same four requests and answers made on
// the port directly.
func BenchmarkStatus(b *testing.B) {
	port := &readyPort{}
	p := New(func() (hw.Port, error) { return port, nil }, Config{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Status(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatusExchange(b *testing.B) {
	port := &readyPort{}
	var raw [4]byte
	b.ReportAllocs()
	for b.Loop() {
		_ = port.ResetInputBuffer()
		for i := range raw {
			_, _ = port.Write(cmdStatus[i])
			_, _ = port.Read(raw[i : i+1])
		}
		if _, err := ParseStatus(raw[:]); err != nil {
			b.Fatal(err)
		}
	}
}
