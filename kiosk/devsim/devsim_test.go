package devsim

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/sim/printersim"
)

func start(t *testing.T, receipts string) *Devices {
	t.Helper()
	d, err := Start(Config{Dir: filepath.Join(t.TempDir(), "dev"), Receipts: receipts,
		Validator: id003sim.Config{StartIdle: true}})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

// unitState asks the simulated validator its status, as a host would.
func unitState(t *testing.T, d *Devices) id003.State {
	t.Helper()
	b, _ := d.Validator.Handle(id003.Frame{Cmd: id003.CmdStatusRequest})
	f, err := id003.DecodeFrame(b)
	require.NoError(t, err)
	st, err := id003.ParseStatus(f)
	require.NoError(t, err)
	return st.State
}

func printText(t *testing.T, d *Devices, text string) {
	t.Helper()
	p := escpos.New(func() (hw.Port, error) {
		return hw.Open(d.PrinterPath, hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1})
	}, escpos.Config{})
	defer p.Close()
	_, err := p.Print(context.Background(), escpos.NewDoc().Init().Line(text).Cut())
	require.NoError(t, err)
}

func TestLinksAndReceiptFiles(t *testing.T) {
	receipts := filepath.Join(t.TempDir(), "vouchers")
	require.NoError(t, os.MkdirAll(receipts, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(receipts, "0007.txt"), []byte("an earlier run"), 0o644))
	d := start(t, receipts)
	for _, p := range []string{d.ValidatorPath, d.PrinterPath} {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "%s is a stable link", p)
	}

	printText(t, d, "BON UN")
	printText(t, d, "BON DEUX")
	for i, want := range []string{"BON UN", "BON DEUX"} {
		base := d.ReceiptFile(i + 1)
		assert.Equal(t, filepath.Join(receipts, []string{"0008", "0009"}[i]), base, "numbered after the earlier run's")
		txt, err := os.ReadFile(base + ".txt")
		require.NoError(t, err)
		assert.Contains(t, string(txt), want)
		png, err := os.ReadFile(base + ".png")
		require.NoError(t, err)
		assert.Equal(t, "\x89PNG", string(png[:4]))
	}
	old, err := os.ReadFile(filepath.Join(receipts, "0007.txt"))
	require.NoError(t, err)
	assert.Equal(t, "an earlier run", string(old), "never written over")
	assert.Empty(t, d.ReceiptFile(3))
}

func TestNotes(t *testing.T) {
	d, err := Start(Config{Dir: filepath.Join(t.TempDir(), "dev")})
	require.NoError(t, err)
	defer d.Close()
	// No host has enabled the unit: it takes nothing, as a real one.
	require.ErrorIs(t, d.InsertNote(Notes[0]), id003sim.ErrDisabled)
	require.ErrorIs(t, d.InsertCounterfeit(), id003sim.ErrDisabled)
	assert.Empty(t, d.ReceiptFile(1), "no receipts directory, no files")
}

func TestFaultsAndRepair(t *testing.T) {
	d := start(t, "")
	validator := map[Fault]id003.State{
		ValidatorJam:         id003.StateJamInAcceptor,
		ValidatorStackerFull: id003.StateStackerFull,
		ValidatorStackerOpen: id003.StateStackerOpen,
		ValidatorFailure:     id003.StateFailure,
	}
	for f, want := range validator {
		require.NoError(t, d.Cause(f), f)
		assert.Equal(t, want, unitState(t, d), f)
		require.NoError(t, d.Repair())
		assert.False(t, unitState(t, d).Fault(), "%s repaired", f)
	}
	printer := map[Fault]func(printersim.State) bool{
		PrinterPaperOut:  func(s printersim.State) bool { return s.Paper == printersim.PaperEmpty },
		PrinterPaperLow:  func(s printersim.State) bool { return s.Paper == printersim.PaperLow },
		PrinterCoverOpen: func(s printersim.State) bool { return s.CoverOpen },
		PrinterOffline:   func(s printersim.State) bool { return s.Offline },
	}
	for f, in := range printer {
		require.NoError(t, d.Cause(f), f)
		assert.True(t, in(d.Printer.State()), f)
		require.NoError(t, d.Repair())
		assert.Equal(t, printersim.State{}, d.Printer.State(), "%s repaired", f)
	}

	require.NoError(t, d.Cause(ValidatorUnplugged))
	require.NoError(t, d.Cause(ValidatorUnplugged), "twice is once")
	require.NoError(t, d.Cause(PrinterUnplugged))
	_, err := os.Stat(d.PrinterPath)
	assert.Error(t, err, "an unplugged printer's link leads nowhere")
	_, err = os.Stat(d.ValidatorPath)
	assert.Error(t, err)
	require.NoError(t, d.Repair())
	_, err = os.Stat(d.PrinterPath)
	assert.NoError(t, err, "plugged back at the same link")
	_, err = os.Stat(d.ValidatorPath)
	assert.NoError(t, err)

	// The paper runs out in the middle of the next voucher.
	require.NoError(t, d.Cause(PrinterPaperRunsOut))
	p := escpos.New(func() (hw.Port, error) {
		return hw.Open(d.PrinterPath, hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1})
	}, escpos.Config{PollInterval: 10 * time.Millisecond})
	defer p.Close()
	doc := escpos.NewDoc().Init()
	for i := 0; i < 10; i++ {
		doc.Line("ligne")
	}
	_, err = p.Print(context.Background(), doc.Cut())
	require.ErrorIs(t, err, escpos.ErrPaperOut)

	require.ErrorIs(t, d.Cause("smoke"), ErrUnknownFault)
	seen := map[Fault]bool{}
	for _, f := range Faults {
		assert.False(t, seen[f], "%s listed twice", f)
		seen[f] = true
	}
}

// A fault armed for a later print (the paper running out during it, the
// cutter jamming at its cut) is staff's to clear like any other: after
// Repair the next voucher prints whole.
func TestRepairDisarmsLaterFaults(t *testing.T) {
	for _, f := range []Fault{PrinterPaperRunsOut, PrinterCutterJam} {
		t.Run(string(f), func(t *testing.T) {
			d := start(t, "")
			require.NoError(t, d.Cause(f))
			require.NoError(t, d.Repair())
			p := escpos.New(func() (hw.Port, error) {
				return hw.Open(d.PrinterPath, hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1})
			}, escpos.Config{PollInterval: 10 * time.Millisecond})
			defer p.Close()
			doc := escpos.NewDoc().Init()
			for i := 0; i < 10; i++ {
				doc.Line("ligne")
			}
			_, err := p.Print(context.Background(), doc.Cut())
			require.NoError(t, err, "the print after Tout réparer")
			assert.Equal(t, printersim.State{}, d.Printer.State())
		})
	}
}

// The panel's refusals carry a code (the screens hold its words), and still
// match the simulator's errors.
func TestRefusalReasons(t *testing.T) {
	d, err := Start(Config{Dir: filepath.Join(t.TempDir(), "dev")})
	require.NoError(t, err)
	defer d.Close()
	for _, err := range []error{d.InsertNote(Notes[0]), d.InsertCounterfeit(), d.Cause("smoke")} {
		var r *Refusal
		require.ErrorAs(t, err, &r)
		assert.NotEmpty(t, r.RefusalCode())
	}
	assert.ErrorIs(t, d.InsertNote(Notes[0]), id003sim.ErrDisabled)
}
