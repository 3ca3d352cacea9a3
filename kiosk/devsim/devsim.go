// Package devsim runs the kiosk's two cash devices as simulators on
// pseudo-terminals, in the kiosk's own process: the bill validator, a JCM
// ID-003 unit (hw/sim/id003sim) or an ITL eSSP one (hw/sim/esspsim), and
// the ESC/POS voucher printer (hw/sim/printersim). The development run and the tests point the kiosk's
// real drivers at their stable links (Devices.ValidatorPath and
// PrinterPath), so every machine runs the same code end to end as the
// kiosk on its hardware (DESIGN.md §9). The development panel inserts
// notes and causes faults through it; printed vouchers land as NNNN.txt and
// NNNN.png files.
//
// It must never be used by a production kiosk, and never reaches into the
// kiosk: everything goes through the simulated serial lines.
package devsim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"pharaon/game"
	"pharaon/hw/sim/esspsim"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/sim/printersim"
	"pharaon/hw/validator"
)

// Config says where the simulators live.
type Config struct {
	// Dir is where the stable links are made: Dir/validator and Dir/printer
	// (made if missing).
	Dir string
	// Receipts is where each printed voucher is written as NNNN.txt and
	// NNNN.png, numbered on from the files already there ("" = nowhere;
	// the data directory's vouchers/ in the development run).
	Receipts string
	// Family is the simulated bill validator's (default ID-003).
	Family validator.Family
	// Validator, ESSP and Printer tune the simulators (their links and
	// receipt directory are set here): Validator an ID-003 unit, ESSP an
	// eSSP one.
	Validator id003sim.Config
	ESSP      esspsim.Config
	Printer   printersim.Config
	// Logf receives what the printer found odd in its byte stream and the
	// receipt files it could not write (nil: dropped).
	Logf func(format string, args ...any)
}

// Devices are the two simulated devices, running.
type Devices struct {
	// Unit is the bill validator whatever its family; Validator is it
	// when it is an ID-003 unit, ESSP when an eSSP one (the other nil).
	Unit          Unit
	Validator     *id003sim.Sim
	ESSP          *esspsim.Sim
	Printer       *printersim.Printer
	ValidatorPath string // what the kiosk opens as its bill validator
	PrinterPath   string // what the kiosk opens as its voucher printer

	cfg       Config
	mu        sync.Mutex
	next      int            // the number of the next receipt file
	files     map[int]string // receipt Seq → file path without extension
	unplugged map[Fault]bool
}

// Start powers both simulators on.
func Start(cfg Config) (*Devices, error) {
	if cfg.Dir == "" {
		return nil, errors.New("devsim: no directory for the device links")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("devsim: %w", err)
	}
	d := &Devices{cfg: cfg, ValidatorPath: filepath.Join(cfg.Dir, "validator"),
		PrinterPath: filepath.Join(cfg.Dir, "printer"), unplugged: map[Fault]bool{}, files: map[int]string{}}
	if cfg.Receipts != "" {
		if err := os.MkdirAll(cfg.Receipts, 0o755); err != nil {
			return nil, fmt.Errorf("devsim: %w", err)
		}
		n, err := lastReceipt(cfg.Receipts)
		if err != nil {
			return nil, fmt.Errorf("devsim: %w", err)
		}
		d.next = n + 1
	}
	u, err := newUnit(cfg, d.ValidatorPath)
	if err != nil {
		return nil, fmt.Errorf("devsim: bill validator: %w", err)
	}
	d.Unit = u
	switch u := u.(type) {
	case id003Unit:
		d.Validator = u.Sim
	case esspUnit:
		d.ESSP = u.Sim
	}
	pcfg := cfg.Printer
	pcfg.Link, pcfg.Dir = d.PrinterPath, ""
	if pcfg.Logf == nil {
		pcfg.Logf = cfg.Logf
	}
	p, err := printersim.Start(pcfg)
	if err != nil {
		d.Unit.Close()
		return nil, fmt.Errorf("devsim: printer: %w", err)
	}
	d.Printer = p
	if cfg.Receipts != "" {
		p.OnReceipt(d.save)
	}
	return d, nil
}

// lastReceipt is the highest NNNN of the NNNN.txt files in dir (0: none),
// so that a new run does not write over the vouchers of the last one.
func lastReceipt(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	last := 0
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(name); err == nil && n > last {
			last = n
		}
	}
	return last, nil
}

// save writes a finished receipt (called by the printer with its lock held:
// it reads only the receipt).
func (d *Devices) save(r *printersim.Receipt) {
	d.mu.Lock()
	n := d.next
	d.next++
	d.mu.Unlock()
	base := filepath.Join(d.cfg.Receipts, fmt.Sprintf("%04d", n))
	err := os.WriteFile(base+".txt", []byte(r.Text), 0o644)
	if err == nil {
		d.mu.Lock()
		d.files[r.Seq] = base
		d.mu.Unlock()
	}
	if err == nil {
		var img []byte
		if img, err = r.PNG(); err == nil {
			err = os.WriteFile(base+".png", img, 0o644)
		}
	}
	if err != nil && d.cfg.Logf != nil {
		d.cfg.Logf("devsim: receipt %d: %v", n, err)
	}
}

// ReceiptFile is the path, without its .txt or .png extension, where the
// printer's receipt number seq (printersim.Receipt.Seq) was written, or ""
// if it was not.
func (d *Devices) ReceiptFile(seq int) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.files[seq]
}

// Notes are the bank notes the development panel offers: those the kiosk
// takes by default (5, 10, 20, 50 €) and one it refuses (100 €).
var Notes = []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro, 100 * game.Euro}

// RefusalCode names why the devices refused an action of the development
// panel; the panel's words for it are in the screens' catalogue
// (kiosk/ui/i18n.go).
type RefusalCode string

// The refusals of the simulated devices.
const (
	RefusedDisabled     RefusalCode = "disabled"      // the validator takes no note now
	RefusedBusy         RefusalCode = "busy"          // a note is already in the validator
	RefusedUnplugged    RefusalCode = "unplugged"     // the validator's cable is out
	RefusedUnknownNote  RefusalCode = "unknown_note"  // a note the validator does not know
	RefusedUnknownFault RefusalCode = "unknown_fault" // not one of Faults
	RefusedReplug       RefusalCode = "replug"        // a cable could not be plugged back
)

// Refusal is an action of the development panel the devices refused, with
// its code for the panel's header (the wrapped error is for the log).
type Refusal struct {
	Code RefusalCode
	Err  error
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// RefusalCode is why, as a code.
func (r *Refusal) RefusalCode() string { return string(r.Code) }

// refusal names the validator's known refusals; other errors pass as they
// are.
func (d *Devices) refusal(err error) error {
	code := d.Unit.refusal(err)
	if code == "" {
		return err
	}
	return &Refusal{Code: code, Err: err}
}

// InsertNote inserts a genuine note. It fails while the validator is not
// taking notes (RefusedDisabled: the kiosk inhibits it) or already holds
// one (RefusedBusy), with a *Refusal.
func (d *Devices) InsertNote(amount game.Money) error {
	if err := d.Unit.InsertNote(int64(amount)); err != nil {
		return d.refusal(fmt.Errorf("insert %s: %w", amount.Plain(), err))
	}
	return nil
}

// InsertCounterfeit inserts a note the validator rejects (its optical
// pattern is wrong).
func (d *Devices) InsertCounterfeit() error {
	if err := d.Unit.InsertCounterfeit(); err != nil {
		return d.refusal(fmt.Errorf("insert counterfeit: %w", err))
	}
	return nil
}

// Fault is a device fault the development panel can cause.
type Fault string

const (
	ValidatorJam         Fault = "validator-jam"          // a note jams in the acceptor
	ValidatorStackerFull Fault = "validator-stacker-full" // the cash box is full
	ValidatorStackerOpen Fault = "validator-stacker-open" // the cash box is out
	ValidatorFailure     Fault = "validator-failure"      // a motor fails
	ValidatorUnplugged   Fault = "validator-unplugged"    // the cable is out
	PrinterPaperOut      Fault = "printer-paper-out"      // no paper
	PrinterPaperLow      Fault = "printer-paper-low"      // the roll is nearly done (a warning)
	PrinterPaperRunsOut  Fault = "printer-paper-runs-out" // the paper ends in the middle of the next voucher
	PrinterCoverOpen     Fault = "printer-cover-open"     // the cover is open
	PrinterCutterJam     Fault = "printer-cutter-jam"     // the cutter jams at the next cut
	PrinterOffline       Fault = "printer-offline"        // the printer is offline
	PrinterUnplugged     Fault = "printer-unplugged"      // the cable is out
)

// Faults lists the faults the panel offers, in its order (their names are
// in the screens' catalogue).
var Faults = []Fault{
	ValidatorJam, ValidatorStackerFull, ValidatorStackerOpen, ValidatorFailure, ValidatorUnplugged,
	PrinterPaperOut, PrinterPaperLow, PrinterPaperRunsOut, PrinterCoverOpen, PrinterCutterJam,
	PrinterOffline, PrinterUnplugged,
}

// ErrUnknownFault: not one of Faults.
var ErrUnknownFault = errors.New("devsim: unknown fault")

// Cause puts a device in the fault.
func (d *Devices) Cause(f Fault) error {
	var err error
	switch f {
	case ValidatorJam, ValidatorStackerFull, ValidatorStackerOpen, ValidatorFailure:
		err = d.Unit.cause(f)
	case ValidatorUnplugged:
		err = d.unplug(f, d.Unit.Unplug)
	case PrinterPaperOut:
		d.Printer.SetPaper(printersim.PaperEmpty)
	case PrinterPaperLow:
		d.Printer.SetPaper(printersim.PaperLow)
	case PrinterPaperRunsOut:
		d.Printer.Inject(printersim.AfterLines(5), printersim.PaperOut)
	case PrinterCoverOpen:
		d.Printer.SetCoverOpen(true)
	case PrinterCutterJam:
		d.Printer.Inject(printersim.AtCut(), printersim.CutterJam)
	case PrinterOffline:
		d.Printer.SetOffline(true)
	case PrinterUnplugged:
		err = d.unplug(f, d.Printer.Unplug)
	default:
		return &Refusal{Code: RefusedUnknownFault, Err: fmt.Errorf("%q: %w", f, ErrUnknownFault)}
	}
	if err != nil {
		return d.refusal(fmt.Errorf("devsim: %s: %w", f, err))
	}
	return nil
}

func (d *Devices) unplug(f Fault, pull func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.unplugged[f] {
		return nil
	}
	if err := pull(); err != nil {
		return err
	}
	d.unplugged[f] = true
	return nil
}

// Repair is staff fixing everything: the validator's condition cleared and
// the note in its path taken out, paper loaded, cover closed, cutter
// freed, head cooled, printer online and repaired, both cables back, and
// the faults armed for later (PrinterPaperRunsOut, PrinterCutterJam, the
// validator's line faults) disarmed: staff who serviced a device do not
// expect its next voucher to fail on a fault caused before.
func (d *Devices) Repair() error {
	var errs []error
	d.mu.Lock()
	if d.unplugged[ValidatorUnplugged] {
		errs = append(errs, d.Unit.Replug())
		delete(d.unplugged, ValidatorUnplugged)
	}
	if d.unplugged[PrinterUnplugged] {
		errs = append(errs, d.Printer.Replug())
		delete(d.unplugged, PrinterUnplugged)
	}
	d.mu.Unlock()
	d.Unit.repair()
	d.Printer.Disarm()
	d.Printer.SetPaper(printersim.PaperOK)
	d.Printer.SetCoverOpen(false)
	d.Printer.SetCutterError(false)
	d.Printer.SetOffline(false)
	d.Printer.SetUnrecoverable(false)
	d.Printer.SetOverheat(false)
	if err := errors.Join(errs...); err != nil {
		return &Refusal{Code: RefusedReplug, Err: fmt.Errorf("devsim: repair: %w", err)}
	}
	return nil
}

// Close powers both simulators off.
func (d *Devices) Close() error {
	return errors.Join(d.Unit.Close(), d.Printer.Close())
}
