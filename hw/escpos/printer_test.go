package escpos_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/sim/printersim"
)

const (
	number = "042917365018274639"
	amount = "3\u00a0750,50\u00a0€"
	words  = "trois mille sept cent cinquante euros et cinquante centimes"
)

var mode = hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1}

// The tests' timings. patient polls often and waits for answers as long as
// a loaded machine may take to give the simulator a processor (seconds,
// where a printer answers within milliseconds): a test whose printer
// answers never sees a timeout. The tests of a printer that does not answer
// shorten only the wait they are about: silent the status's (a status
// wanted after it is asked again until it comes), short the print's.
var (
	patient = escpos.Config{StatusTimeout: 5 * time.Second, PrintTimeout: 30 * time.Second, PollInterval: 20 * time.Millisecond}
	silent  = escpos.Config{StatusTimeout: 150 * time.Millisecond, PrintTimeout: 30 * time.Second, PollInterval: 20 * time.Millisecond}
	short   = escpos.Config{StatusTimeout: 5 * time.Second, PrintTimeout: 1500 * time.Millisecond, PollInterval: 20 * time.Millisecond}
)

func voucher() *escpos.Doc {
	return escpos.NewDoc().Init().
		Align(escpos.Center).Bold(true).Size(2, 2).Line("PHARAON").Size(1, 1).Bold(false).
		Line("Café de la Gare – Lyon").Line("Borne n° 0007").Feed(1).
		Align(escpos.Left).
		Line("Date : 14/03/2026   Heure : 18:42").
		Line("Séquence : 000123").
		Text("Montant : ").Bold(true).Size(2, 2).Line(amount).Size(1, 1).Bold(false).
		Line(words).
		Align(escpos.Center).Barcode128(number).QR(number).
		Line("Validation : " + number).
		Line("À présenter à un centre de paiement").
		Feed(2).Cut()
}

type rig struct {
	sim     *printersim.Printer
	printer *escpos.Printer
	link    string
}

func newRig(t *testing.T, cfg escpos.Config) *rig {
	t.Helper()
	link := filepath.Join(t.TempDir(), "printer")
	sim, err := printersim.Start(printersim.Config{Link: link})
	require.NoError(t, err)
	p := escpos.New(func() (hw.Port, error) { return hw.Open(link, mode) }, cfg)
	t.Cleanup(func() {
		assert.NoError(t, p.Close())
		assert.NoError(t, sim.Close())
	})
	return &rig{sim: sim, printer: p, link: link}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestPrintVoucherOverAPseudoTerminal(t *testing.T) {
	r := newRig(t, patient)
	st, err := r.printer.Print(ctx(t), voucher())
	require.NoError(t, err)
	assert.True(t, st.Ready())
	assert.False(t, st.PaperNearEnd)

	// The print is confirmed only once the printer has it all: the receipt is already there.
	rs := r.sim.Receipts()
	require.Len(t, rs, 1)
	rc := rs[0]
	assert.True(t, rc.Complete)
	plain := rc.Plain()
	for _, want := range []string{"PHARAON", "Café de la Gare - Lyon", "Borne n° 0007", "Séquence : 000123",
		"Montant : " + amount, "Validation : " + number, "À présenter à un centre de paiement"} {
		assert.Contains(t, plain, want+"\n")
	}
	assert.Contains(t, strings.ReplaceAll(plain, "\n", ""), words, "amount in words, wrapped over two lines")
	assert.Contains(t, rc.Text, "||| "+number+" |||")
	assert.Contains(t, rc.Text, "[QR: "+number+"]")
	assert.Empty(t, r.sim.Log(), "the printer understood every byte")

	png, err := rc.PNG()
	require.NoError(t, err)
	assert.Equal(t, 576, rc.Image().Bounds().Dx())
	assert.NotEmpty(t, png)
}

func TestStatusReadsEveryCondition(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*printersim.Printer)
		check func(escpos.Status) bool
		err   error
	}{
		{"ready", func(*printersim.Printer) {}, func(s escpos.Status) bool { return !s.Offline }, nil},
		{"paper near end", func(p *printersim.Printer) { p.SetPaper(printersim.PaperLow) }, func(s escpos.Status) bool { return s.PaperNearEnd && !s.PaperOut }, nil},
		{"paper out", func(p *printersim.Printer) { p.SetPaper(printersim.PaperEmpty) }, func(s escpos.Status) bool { return s.PaperOut && s.Offline }, escpos.ErrPaperOut},
		{"cover open", func(p *printersim.Printer) { p.SetCoverOpen(true) }, func(s escpos.Status) bool { return s.CoverOpen }, escpos.ErrCoverOpen},
		{"cutter", func(p *printersim.Printer) { p.SetCutterError(true) }, func(s escpos.Status) bool { return s.CutterError }, escpos.ErrCutter},
		{"unrecoverable", func(p *printersim.Printer) { p.SetUnrecoverable(true) }, func(s escpos.Status) bool { return s.Unrecoverable }, escpos.ErrUnrecoverable},
		{"head overheat", func(p *printersim.Printer) { p.SetOverheat(true) }, func(s escpos.Status) bool { return s.AutoRecoverable }, escpos.ErrPaused},
		{"offline", func(p *printersim.Printer) { p.SetOffline(true) }, func(s escpos.Status) bool { return s.Offline }, escpos.ErrOffline},
	}
	r := newRig(t, patient)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reset(r.sim)
			tt.set(r.sim)
			st, err := r.printer.Status(ctx(t))
			require.NoError(t, err)
			assert.True(t, tt.check(st), "%v", st)
			if tt.err == nil {
				assert.NoError(t, st.Err())
			} else {
				assert.ErrorIs(t, st.Err(), tt.err)
			}
		})
	}
}

func reset(p *printersim.Printer) {
	p.SetPaper(printersim.PaperOK)
	p.SetCoverOpen(false)
	p.SetCutterError(false)
	p.SetUnrecoverable(false)
	p.SetOverheat(false)
	p.SetOffline(false)
	p.SetSilent(false)
}

func TestPrintRefusedBeforeSendingAnything(t *testing.T) {
	tests := []struct {
		name string
		set  func(*printersim.Printer)
		err  error
	}{
		{"paper out", func(p *printersim.Printer) { p.SetPaper(printersim.PaperEmpty) }, escpos.ErrPaperOut},
		{"cover open", func(p *printersim.Printer) { p.SetCoverOpen(true) }, escpos.ErrCoverOpen},
		{"cutter", func(p *printersim.Printer) { p.SetCutterError(true) }, escpos.ErrCutter},
		{"unrecoverable", func(p *printersim.Printer) { p.SetUnrecoverable(true) }, escpos.ErrUnrecoverable},
		{"overheat", func(p *printersim.Printer) { p.SetOverheat(true) }, escpos.ErrPaused},
		{"offline", func(p *printersim.Printer) { p.SetOffline(true) }, escpos.ErrOffline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, patient)
			tt.set(r.sim)
			st, err := r.printer.Print(ctx(t), voucher())
			require.ErrorIs(t, err, tt.err)
			var pe *escpos.PrintError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, escpos.StageBefore, pe.Stage)
			assert.ErrorIs(t, pe.Status.Err(), tt.err)
			assert.Equal(t, pe.Status, st)
			// Only the four status requests went over the wire.
			assert.Equal(t, []byte{0x10, 4, 1, 0x10, 4, 2, 0x10, 4, 3, 0x10, 4, 4}, r.sim.Received())
			reset(r.sim)
			assert.Empty(t, r.sim.Receipts(), "nothing comes out once the fault is cleared")
		})
	}
}

func TestPaperNearEndPrintsWithAWarning(t *testing.T) {
	r := newRig(t, patient)
	r.sim.SetPaper(printersim.PaperLow)
	st, err := r.printer.Print(ctx(t), voucher())
	require.NoError(t, err)
	assert.True(t, st.PaperNearEnd)
	require.Len(t, r.sim.Receipts(), 1)
	assert.True(t, r.sim.Receipts()[0].Complete)
}

func TestFaultWhilePrintingIsNotConfirmed(t *testing.T) {
	tests := []struct {
		name    string
		trigger printersim.Trigger
		fault   printersim.Fault
		err     error
		stage   escpos.Stage
	}{
		{"paper runs out mid-voucher", printersim.AfterLines(4), printersim.PaperOut, escpos.ErrPaperOut, escpos.StageDuring},
		{"cover opened mid-voucher", printersim.AfterLines(6), printersim.CoverOpen, escpos.ErrCoverOpen, escpos.StageDuring},
		{"cutter jams", printersim.AtCut(), printersim.CutterJam, escpos.ErrCutter, escpos.StageDuring},
		{"printer dies mid-voucher", printersim.AfterLines(1), printersim.Unrecoverable, escpos.ErrUnrecoverable, escpos.StageDuring},
		{"head overheats", printersim.AfterLines(2), printersim.Overheat, escpos.ErrPaused, escpos.StageDuring},
		{"cover opened right after", printersim.AfterSync(), printersim.CoverOpen, escpos.ErrCoverOpen, escpos.StageAfter},
		{"paper out right after", printersim.AfterSync(), printersim.PaperOut, escpos.ErrPaperOut, escpos.StageAfter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, patient)
			r.sim.Inject(tt.trigger, tt.fault)
			st, err := r.printer.Print(ctx(t), voucher())
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.err)
			var pe *escpos.PrintError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.stage, pe.Stage)
			assert.ErrorIs(t, st.Err(), tt.err)

			rs := r.sim.Receipts()
			require.Len(t, rs, 1)
			if tt.stage == escpos.StageDuring {
				assert.False(t, rs[0].Complete, "the voucher is cut short")
				assert.Zero(t, r.sim.Held(), "the driver cleared the rest of the voucher")
				reset(r.sim)
				assert.Len(t, r.sim.Receipts(), 1, "nothing more prints once the fault is cleared")
			} else {
				assert.True(t, rs[0].Complete)
			}
		})
	}
}

func TestSilentPrinterTimesOut(t *testing.T) {
	r := newRig(t, silent)
	r.sim.SetSilent(true)
	_, err := r.printer.Status(ctx(t))
	require.ErrorIs(t, err, hw.ErrTimeout)

	_, err = r.printer.Print(ctx(t), voucher())
	require.ErrorIs(t, err, hw.ErrTimeout)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageBefore, pe.Stage)
	assert.Empty(t, r.sim.Receipts())

	r.sim.SetSilent(false)
	// The printer answers at once, but a loaded machine may give the
	// simulator its processor later than the short wait: asked again.
	var st escpos.Status
	require.Eventually(t, func() bool { st, err = r.printer.Status(ctx(t)); return err == nil }, 10*time.Second, time.Millisecond,
		"the printer answers again on the same port: %v", err)
	assert.True(t, st.Ready())
}

func TestPrinterThatNeverFinishesTimesOut(t *testing.T) {
	r := newRig(t, short)
	// Real-time status answered, GS r never: the printer is "printing" forever.
	r.sim.Tamper(func(req, normal []byte) []byte {
		if req[0] == 0x1D {
			return nil
		}
		return normal
	})
	start := time.Now()
	_, err := r.printer.Print(ctx(t), voucher())
	require.ErrorIs(t, err, hw.ErrTimeout)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageDuring, pe.Stage)
	assert.GreaterOrEqual(t, time.Since(start), short.PrintTimeout)
}

func TestGarbageAnswersAreProtocolErrors(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(req, normal []byte) []byte
		stage  escpos.Stage
	}{
		{"status without fixed bits", func(req, normal []byte) []byte {
			if req[0] == 0x10 && req[2] == 3 {
				return []byte{0xFF}
			}
			return normal
		}, escpos.StageBefore},
		{"zero for a status", func(req, normal []byte) []byte {
			if req[0] == 0x10 {
				return []byte{0x00}
			}
			return normal
		}, escpos.StageBefore},
		{"garbage for the print confirmation", func(req, normal []byte) []byte {
			if req[0] == 0x1D {
				return []byte{0xDA} // bit 7 is clear in every byte a printer sends
			}
			return normal
		}, escpos.StageDuring},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, patient)
			r.sim.Tamper(tt.tamper)
			_, err := r.printer.Print(ctx(t), voucher())
			require.ErrorIs(t, err, hw.ErrProtocol)
			var pe *escpos.PrintError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.stage, pe.Stage)
		})
	}
}

// A status byte in place of the GS r answer is not a confirmation: the print is not confirmed.
func TestStatusByteInsteadOfTheConfirmationTimesOut(t *testing.T) {
	r := newRig(t, short)
	r.sim.Tamper(func(req, normal []byte) []byte {
		if req[0] == 0x1D {
			return []byte{0x5A}
		}
		return normal
	})
	_, err := r.printer.Print(ctx(t), voucher())
	require.ErrorIs(t, err, hw.ErrTimeout)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageDuring, pe.Stage)
}

func TestUnpluggedPrinterFailsThenComesBack(t *testing.T) {
	r := newRig(t, patient)
	_, err := r.printer.Status(ctx(t))
	require.NoError(t, err)

	require.NoError(t, r.sim.Unplug())
	_, err = r.printer.Print(ctx(t), voucher())
	require.Error(t, err)
	assert.True(t, errors.Is(err, hw.ErrIO) || errors.Is(err, hw.ErrNotFound), "%v", err)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageBefore, pe.Stage)

	_, err = r.printer.Status(ctx(t))
	assert.ErrorIs(t, err, hw.ErrNotFound, "re-open finds no device")

	require.NoError(t, r.sim.Replug())
	_, err = r.printer.Print(ctx(t), voucher())
	require.NoError(t, err, "re-opened at the same stable path")
	assert.Len(t, r.sim.Receipts(), 1)
}

func TestUnplugMidPrintIsNotConfirmed(t *testing.T) {
	r := newRig(t, patient)
	r.sim.Inject(printersim.AfterLines(3), printersim.Offline) // the printer stalls...
	done := make(chan error, 1)
	go func() {
		_, err := r.printer.Print(ctx(t), voucher())
		done <- err
	}()
	_, err := r.sim.WaitReceipt(ctx(t), 1) // the print under way
	require.NoError(t, err)
	err = <-done
	require.ErrorIs(t, err, escpos.ErrOffline)

	// ... and a stalled print whose cable is pulled while waiting fails with an i/o error.
	reset(r.sim)
	r.sim.Tamper(func(req, normal []byte) []byte {
		if req[0] == 0x1D {
			return nil
		}
		return normal
	})
	go func() {
		_, err := r.printer.Print(ctx(t), voucher())
		done <- err
	}()
	_, err = r.sim.WaitReceipt(ctx(t), 2)
	require.NoError(t, err)
	require.NoError(t, r.sim.Unplug())
	err = <-done
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageDuring, pe.Stage)
	assert.True(t, errors.Is(err, hw.ErrIO) || errors.Is(err, hw.ErrTimeout), "%v", err)
}

func TestCancelledContextStopsWaiting(t *testing.T) {
	r := newRig(t, escpos.Config{StatusTimeout: time.Second, PrintTimeout: time.Minute, PollInterval: 20 * time.Millisecond})
	r.sim.Tamper(func(req, normal []byte) []byte {
		if req[0] == 0x1D {
			return nil
		}
		return normal
	})
	c, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := r.printer.Print(c, voucher())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageDuring, pe.Stage)
}

func TestInvalidDocumentSendsNothing(t *testing.T) {
	r := newRig(t, patient)
	_, err := r.printer.Print(ctx(t), escpos.NewDoc().Init().Barcode128("café"))
	require.ErrorIs(t, err, escpos.ErrDoc)
	var pe *escpos.PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, escpos.StageBefore, pe.Stage)
	assert.Empty(t, r.sim.Received())
}

func TestDialFailureIsReported(t *testing.T) {
	p := escpos.New(func() (hw.Port, error) { return hw.Open(filepath.Join(t.TempDir(), "absent"), mode) }, patient)
	_, err := p.Status(ctx(t))
	assert.ErrorIs(t, err, hw.ErrNotFound)
	_, err = p.Print(ctx(t), voucher())
	assert.ErrorIs(t, err, hw.ErrNotFound)
	assert.NoError(t, p.Close())
}

// A validation number whose digit pairs in Code 128 set C are 16 04 01 holds, as bytes, the
// printer's DLE EOT 1: a real printer answers it in the middle of the barcode. The voucher must
// still print whole, scan back to its number, and be confirmed.
func TestVoucherNumberHoldingARealTimeSequencePrints(t *testing.T) {
	for _, n := range []string{"042916040118274639", "160501000000000000", "000000001620010001"} {
		t.Run(n, func(t *testing.T) {
			r := newRig(t, patient)
			doc := escpos.NewDoc().Init().Align(escpos.Center).Line("Bon").Barcode128(n).QR(n).Line(n).Feed(2).Cut()
			_, err := r.printer.Print(ctx(t), doc)
			require.NoError(t, err)
			rs := r.sim.Receipts()
			require.Len(t, rs, 1)
			assert.True(t, rs[0].Complete)
			assert.Contains(t, rs[0].Text, "||| "+n+" |||")
			assert.Contains(t, rs[0].Text, "[QR: "+n+"]")
			assert.Empty(t, r.sim.Log())
		})
	}
}

// Bytes a printer sends unasked, or with undefined bits set, do not void a voucher that printed:
// flow control (XON 0x11, XOFF 0x13), a status answer nobody asked for (a real-time sequence that
// reached the printer another way), an Automatic Status Back block, a GS r answer with bits set
// that Epson leaves undefined (its recognition pattern is 0xx0xxxx).
func TestStrayBytesFromThePrinterAreTolerated(t *testing.T) {
	wrap := func(pre, post []byte) func(req, normal []byte) []byte {
		return func(req, normal []byte) []byte {
			return append(append(append([]byte{}, pre...), normal...), post...)
		}
	}
	onSync := func(f func(normal []byte) []byte) func(req, normal []byte) []byte {
		return func(req, normal []byte) []byte {
			if req[0] == 0x1D && req[1] == 'r' {
				return f(normal)
			}
			return normal
		}
	}
	tests := []struct {
		name   string
		tamper func(req, normal []byte) []byte
	}{
		{"XOFF and XON around every answer", wrap([]byte{0x13}, []byte{0x11})},
		{"XON before every answer", wrap([]byte{0x11}, nil)},
		{"an unasked status before the GS r answer", onSync(func(n []byte) []byte { return append([]byte{0x12}, n...) })},
		{"an ASB block before the GS r answer", onSync(func(n []byte) []byte { return append([]byte{0x10, 0x00, 0x00, 0x00}, n...) })},
		{"an ASB block split by XOFF", onSync(func(n []byte) []byte { return append([]byte{0x18, 0x13, 0x00, 0x03, 0x11, 0x00}, n...) })},
		{"GS r answer with undefined bits", onSync(func([]byte) []byte { return []byte{0x60} })},
		{"GS r answer 0x0F", onSync(func([]byte) []byte { return []byte{0x0F} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, patient)
			r.sim.Tamper(tt.tamper)
			st, err := r.printer.Print(ctx(t), voucher())
			require.NoError(t, err)
			assert.True(t, st.Ready())
			require.Len(t, r.sim.Receipts(), 1)
			assert.True(t, r.sim.Receipts()[0].Complete)
		})
	}
}

// A printer another host left with ASB enabled, or set for XON/XOFF, reports a fault mid-voucher
// with those bytes among the answers: the fault is what the driver reports, not a protocol error.
func TestFaultReportedThroughASBAndFlowControl(t *testing.T) {
	for _, cfg := range []printersim.Config{{}, {XonXoff: true}} {
		t.Run(fmt.Sprintf("xonxoff=%v", cfg.XonXoff), func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "printer")
			cfg.Link = link
			sim, err := printersim.Start(cfg)
			require.NoError(t, err)
			p := escpos.New(func() (hw.Port, error) { return hw.Open(link, mode) }, patient)
			t.Cleanup(func() {
				assert.NoError(t, p.Close())
				assert.NoError(t, sim.Close())
			})
			_, err = sim.Write([]byte{0x1D, 'a', 0x0F}) // as if another program had sent GS a 15
			require.NoError(t, err)
			sim.Inject(printersim.AfterLines(4), printersim.PaperOut)
			_, err = p.Print(ctx(t), voucher())
			require.ErrorIs(t, err, escpos.ErrPaperOut)
			var pe *escpos.PrintError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, escpos.StageDuring, pe.Stage)

			reset(sim)
			st, err := p.Status(ctx(t))
			require.NoError(t, err)
			assert.True(t, st.Ready())
			_, err = p.Print(ctx(t), voucher())
			require.NoError(t, err)
		})
	}
}
