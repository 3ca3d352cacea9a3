// Package harness runs the real kiosk without its screens (ServeKiosk, the
// headless kiosk) and a fault harness around it (Run): a scripted player
// with seeded randomness puts notes in, plays Jouer and Auto at every
// stake, main wall and bonus, cashes out, and staff pay vouchers and empty
// the cash box; meanwhile the harness kills the kiosk's process (kill -9)
// at random moments, unplugs and garbles the bill validator and the
// voucher printer, powers the validator off and on with a note in it,
// fills the disk, makes it read-only and jumps the clock. After each fault
// the kiosk restarts and the invariants are checked against the store and
// against the simulated devices' own counts (docs/fault-harness.md).
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"pharaon/game"
	"pharaon/hw/sim/esspsim"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/sim/printersim"
	"pharaon/hw/validator"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
	"pharaon/store/powercut"
)

// Kind is a kind of fault.
type Kind string

// The faults.
const (
	KillCashIn      Kind = "kill-cash-in"       // kill -9 while a note goes in
	KillPlay        Kind = "kill-play"          // kill -9 during a game (mostly its main wall)
	KillBonus       Kind = "kill-bonus"         // kill -9 on a bonus wall
	KillCashOut     Kind = "kill-cash-out"      // kill -9 while a voucher prints
	KillMaintenance Kind = "kill-maintenance"   // kill -9 while staff pay a voucher or empty the cash box
	ValidatorUnplug Kind = "validator-unplug"   // the validator's cable out, with a note going in
	ValidatorGarble Kind = "validator-garble"   // the validator's answers garbled (CRC, noise, split, silence, lost ACK)
	ValidatorPower  Kind = "validator-power"    // the validator's power cut and back with a note in it
	PrinterUnplug   Kind = "printer-unplug"     // the printer's cable out during a cash-out
	PrinterGarble   Kind = "printer-garble"     // the printer's status answers garbled during a cash-out
	DiskFull        Kind = "disk-full"          // no space left while the player plays
	ReadOnly        Kind = "read-only"          // the data file system read-only at a start
	ClockJump       Kind = "clock-jump"         // the clock jumps forward or back
	KillIdle        Kind = "kill-after-restart" // kill -9 right after a start (the recovery itself interrupted)
)

// Kinds are all the faults, in the report's order.
var Kinds = []Kind{KillCashIn, KillPlay, KillBonus, KillCashOut, KillMaintenance, KillIdle, ValidatorUnplug,
	ValidatorGarble, ValidatorPower, PrinterUnplug, PrinterGarble, DiskFull, ReadOnly, ClockJump}

// PowerCutKinds are the faults of a power-cut run (Config.PowerCut): the
// kills, each of which is a power cut.
var PowerCutKinds = []Kind{KillCashIn, KillPlay, KillBonus, KillCashOut, KillMaintenance, KillIdle}

// Config is a harness run.
type Config struct {
	// Dir is the run's work directory (made; the database, the device
	// links and the vouchers go there).
	Dir string
	// Family is the simulated bill validator's (default ID-003): the
	// kiosk's core drives either through the same calls.
	Family validator.Family
	// Faults is how many faults to cause; Seed the run's randomness.
	Faults int
	Seed   uint64
	// Command makes the command of a headless kiosk process (this
	// program re-executed, or cmd/pharaon-harness kiosk); its environment
	// gets the kiosk's configuration (KioskConfig.env) appended.
	Command func() *exec.Cmd
	// Template is the database to start from, anchored (its anchor and
	// trust root beside it, as the headless kiosk opens it); nil: one is
	// made (kiosktest.AnchoredTemplate with every outcome at the head of
	// each block).
	Template kiosktest.TemplateFiles
	// Tmpfs mounts a tmpfs for the data directory if it can (as root),
	// which the disk-full and read-only faults need; without it, a full
	// disk is a file size limit on the kiosk process and read-only is
	// skipped.
	Tmpfs bool
	// Kinds are the faults to draw from (nil: all of Kinds, or
	// PowerCutKinds with PowerCut).
	Kinds []Kind
	// PowerCut puts the data directory (the database, its WAL and the
	// anchor files) on the power-cut file system (store/powercut, which
	// needs root and /dev/fuse): every kill -9 is then a power cut, the
	// writes the kiosk had not synced thrown away, or, half the time, some
	// of them written (a torn cut). Tmpfs is then ignored.
	PowerCut bool
	// Sync weakens the kiosk's store: "" keeps synchronous=FULL, as the
	// kiosk runs; OFF or NORMAL, with a kiosk built with the tag
	// pharaon_weaksync, is the power-cut harness's proof that it sees
	// what a store that does not sync loses.
	Sync string
	// Logf receives a line per fault (nil: none).
	Logf func(format string, args ...any)
}

// Report is what a run found.
type Report struct {
	Seed     uint64
	Family   validator.Family // the bill validator's
	Faults   map[Kind]int     // caused, by kind
	Skipped  map[Kind]int     // drawn but not possible here (read-only without a tmpfs)
	Restarts int
	Kills    int
	// What the player and staff did.
	Notes, Plays, Bonus, Resumed, Vouchers, Paid, Collections, HeldCredited, HandPays int
	// Unsettled counts the checks that found notes in the cash box not
	// credited yet but accounted for: held for staff who could not count
	// yet, or still open after a lost line (the kiosk holds them at the
	// next note).
	Unsettled int
	// The invariants: each must stay 0.
	CentsLost     game.Money // money the player or the operator lost
	DoubleCredits int        // notes credited more than once, or credit out of nothing
	UnitsLost     int        // units sold twice or skipped
	Problems      []string   // every broken invariant, in words
	// AckLost counts the operations the kiosk acknowledged (a game's
	// result shown, a note's credit, a voucher printed or paid, a hand-pay)
	// that its store no longer holds after a restart: must stay 0.
	AckLost int
	// The power cuts (Config.PowerCut): each kill -9 is one; torn cuts
	// wrote some pending pages. PagesDropped and PagesKept count the
	// pending pages thrown away and written by the cuts.
	Cuts, TornCuts          int
	PagesDropped, PagesKept int
	// The anchor a cut left, against the database the kiosk opened:
	// AnchorWindow counts the cuts that left a transaction's announcement
	// newest with the database at its announced heads (the commit done, its
	// confirmation not on the disk: the window of DESIGN.md §4), in which
	// the kiosk accepts the announced heads; AnchorBefore those that left
	// an announcement with the database at the heads before it (the
	// commit not done, never acknowledged).
	AnchorWindow, AnchorBefore int
	Elapsed                    time.Duration
}

// OK says whether every invariant held.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// String is the report as the documentation shows it.
func (r *Report) String() string {
	var b strings.Builder
	fam := r.Family
	if fam == "" {
		fam = validator.FamilyID003
	}
	fmt.Fprintf(&b, "%s bill validator, seed %d, %d faults in %s, %d restarts (%d kill -9)\n", fam.Label(), r.Seed, r.total(),
		r.Elapsed.Round(time.Second), r.Restarts, r.Kills)
	for _, k := range Kinds {
		if r.Faults[k] > 0 || r.Skipped[k] > 0 {
			fmt.Fprintf(&b, "  %-20s %5d", k, r.Faults[k])
			if r.Skipped[k] > 0 {
				fmt.Fprintf(&b, "  (%d skipped)", r.Skipped[k])
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "player: %d notes, %d games (%d through the bonus, %d resumed after a fault), %d vouchers; staff: %d vouchers paid, %d hand-pays, %d collections, %d held notes credited\n",
		r.Notes, r.Plays, r.Bonus, r.Resumed, r.Vouchers, r.Paid, r.HandPays, r.Collections, r.HeldCredited)
	fmt.Fprintf(&b, "checks with notes held or unsettled, accounted for %d\n", r.Unsettled)
	if r.Cuts > 0 {
		fmt.Fprintf(&b, "power cuts %d (%d torn): %d pending pages thrown away, %d written by torn cuts; "+
			"anchor: %d cuts in the window (commit done, confirmation lost: the announced heads accepted), %d with the announced commit not done\n",
			r.Cuts, r.TornCuts, r.PagesDropped, r.PagesKept, r.AnchorWindow, r.AnchorBefore)
	}
	fmt.Fprintf(&b, "cents lost %d, double credits %d, units lost %d, acknowledged operations lost %d, problems %d\n",
		int64(r.CentsLost), r.DoubleCredits, r.UnitsLost, r.AckLost, len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "  PROBLEM %s\n", p)
	}
	return b.String()
}

func (r *Report) total() int {
	n := 0
	for _, c := range r.Faults {
		n += c
	}
	return n
}

// run is a harness run in progress.
type run struct {
	cfg  Config
	rep  *Report
	rng  *rand.Rand
	devs *devsim.Devices
	kc   KioskConfig
	p    *proc
	data string // the data directory
	tmpf bool   // data is a tmpfs of the harness's
	// The power cuts: disk is the backing directory of the power-cut file
	// system fs mounted at data; cutAnchor the anchor the last cut left on
	// it, compared with the heads the next start opens at.
	disk      string
	fs        *cutProc
	cutAnchor *store.AnchorOnDisk
	// ack are the operations the kiosk acknowledged, which its store
	// must hold after every restart.
	ack struct {
		plays    map[int64]Played // games whose result was shown, by play id
		vouchers map[int64]bool   // vouchers printed (a cash-out answered), by number
		paid     map[int64]bool   // vouchers staff paid
		handPays int
		notes    int // notes whose credit the player saw
	}
	// typical durations of the operations, to draw kill moments in
	typical map[string]time.Duration
	// validations are the validation numbers of the vouchers printed;
	// unknownPaper those whose paper the store was found not to know.
	validations, unknownPaper map[string]bool
	// bonusMisses counts bonus kills drawn on games without a bonus.
	bonusMisses int
	garble      struct {
		sync.Mutex
		rng *rand.Rand
	}
}

// Run causes cfg.Faults faults and reports. The error is a failure of the
// harness itself (it could not start a kiosk); broken invariants are in
// the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	t0 := time.Now()
	r := &run{cfg: cfg, rep: &Report{Seed: cfg.Seed, Family: cfg.Family, Faults: map[Kind]int{}, Skipped: map[Kind]int{}},
		rng: rand.New(rand.NewPCG(cfg.Seed, 0xfa017)), typical: map[string]time.Duration{},
		validations: map[string]bool{}, unknownPaper: map[string]bool{}}
	r.ack.plays, r.ack.vouchers, r.ack.paid = map[int64]Played{}, map[int64]bool{}, map[int64]bool{}
	r.garble.rng = rand.New(rand.NewPCG(cfg.Seed, 0x9a4b1e))
	if r.cfg.Logf == nil {
		r.cfg.Logf = func(string, ...any) {}
	}
	if err := r.setup(); err != nil {
		r.teardown()
		return nil, err
	}
	defer r.teardown()
	if err := r.start(); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Faults; i++ {
		if err := ctx.Err(); err != nil {
			return r.rep, err
		}
		kinds := cfg.Kinds
		if len(kinds) == 0 {
			kinds = Kinds
			if cfg.PowerCut {
				kinds = PowerCutKinds
			}
		}
		k := kinds[r.rng.IntN(len(kinds))]
		if k == ReadOnly && !r.tmpf {
			r.rep.Skipped[k]++
			k = ClockJump
		}
		if k == KillBonus && r.bonusMisses > 5 {
			k = KillPlay
		}
		if err := r.fault(i, k); err != nil {
			return r.rep, fmt.Errorf("fault %d (%s): %w", i, k, err)
		}
	}
	if r.p != nil {
		js, err := r.p.call("events", 2*time.Minute)
		if err != nil {
			return r.rep, err
		}
		r.secrets("the event log", js)
		if err := r.p.quit(); err != nil {
			return r.rep, err
		}
		r.secrets("the kiosk's stderr", r.p.stderr.String())
		r.p = nil
	}
	r.rep.Elapsed = time.Since(t0)
	return r.rep, nil
}

// setup makes the data directory (a tmpfs if asked), the database and the
// simulated devices, which live in the harness's process: they keep their
// state — a note in escrow, the paper printed — across the kiosk's deaths.
func (r *run) setup() error {
	if err := os.MkdirAll(r.cfg.Dir, 0o700); err != nil {
		return err
	}
	tmpl := r.cfg.Template
	if tmpl == nil {
		var err error
		dir := filepath.Join(r.cfg.Dir, "template")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if tmpl, err = Template(filepath.Join(dir, "pharaon.db")); err != nil {
			return err
		}
	}
	r.data = filepath.Join(r.cfg.Dir, "data")
	if err := os.MkdirAll(r.data, 0o700); err != nil {
		return err
	}
	if r.cfg.Tmpfs && !r.cfg.PowerCut {
		n := 0
		for _, b := range tmpl {
			n += len(b)
		}
		size := n*3 + 64<<20
		if err := syscall.Mount("tmpfs", r.data, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
			r.cfg.Logf("no tmpfs for the data directory (%v): a full disk is a file size limit, no read-only file system", err)
		} else {
			r.tmpf = true
		}
	}
	var db string
	var err error
	if r.cfg.PowerCut {
		// The template on the disk, durable; the kiosk sees it through the
		// power-cut file system mounted on the data directory.
		r.disk = filepath.Join(r.cfg.Dir, "disk")
		if err := os.MkdirAll(r.disk, 0o700); err != nil {
			return err
		}
		on, err := kiosktest.CopyTemplate(tmpl, r.disk)
		if err != nil {
			return err
		}
		if err := powercut.Available(); err != nil {
			return err
		}
		if r.fs, err = r.mountPowerCut(); err != nil {
			return err
		}
		db = filepath.Join(r.data, filepath.Base(on))
	} else if db, err = kiosktest.CopyTemplate(tmpl, r.data); err != nil {
		return err
	}
	r.devs, err = devsim.Start(devsim.Config{Dir: filepath.Join(r.cfg.Dir, "dev"), Family: r.cfg.Family,
		Validator: id003sim.Config{Seed: r.cfg.Seed}, ESSP: esspsim.Config{Seed: r.cfg.Seed}})
	if err != nil {
		return err
	}
	r.kc = KioskConfig{DB: db, Validator: r.devs.ValidatorPath, Family: r.devs.Unit.Family(), Printer: r.devs.PrinterPath,
		Seed: r.cfg.Seed, Sync: r.cfg.Sync}
	return nil
}

func (r *run) teardown() {
	if r.p != nil {
		r.p.kill()
		r.p = nil
	}
	if r.devs != nil {
		r.devs.Close()
	}
	if r.tmpf {
		_ = syscall.Unmount(r.data, syscall.MNT_DETACH)
	}
	if r.fs != nil {
		_, _ = r.fs.cut(false, 0)
		r.fs = nil
	}
}

// powerCut: the kiosk is dead; the power goes. Half the cuts find that the
// disk wrote none of the pending writes, the others that it wrote some,
// each pending page with one chance in two. The harness reads the anchor
// the cut left on the disk, and the power comes back: the file system is
// mounted again on what the disk kept.
func (r *run) powerCut() error {
	torn := r.rng.IntN(2) == 0
	if torn {
		r.rep.TornCuts++
	}
	st, err := r.fs.cut(torn, r.rng.Uint64())
	r.fs = nil
	if err != nil {
		return fmt.Errorf("power cut: %w", err)
	}
	r.rep.Cuts++
	r.rep.PagesDropped += st.PagesDropped
	r.rep.PagesKept += st.PagesKept
	r.cutAnchor = nil
	if rec, err := store.ReadAnchor(store.DefaultAnchor(filepath.Join(r.disk, filepath.Base(r.kc.DB)))); err == nil {
		r.cutAnchor = &rec
	} else {
		r.cfg.Logf("power cut %d: no anchor on the disk (%v)", r.rep.Cuts, err)
	}
	r.fs, err = r.mountPowerCut()
	return err
}

// Template makes the harness's database at path: one test block per
// stake, each beginning with every outcome, the units won through the
// bonus first, between losers, so that the bonus wall comes early.
func Template(path string) (kiosktest.TemplateFiles, error) {
	var bonus, other []kiosktest.Unit
	for _, u := range kiosktest.EveryOutcome() {
		if u.ViaBonus {
			bonus = append(bonus, u)
		} else {
			other = append(other, u)
		}
	}
	var head []kiosktest.Unit
	for i, u := range bonus {
		head = append(head, u)
		if i < len(other) {
			head = append(head, other[i])
		}
	}
	if len(other) > len(bonus) {
		head = append(head, other[len(bonus):]...)
	}
	heads := map[game.Stake][]kiosktest.Unit{}
	for _, s := range game.Stakes {
		heads[s] = head
	}
	return kiosktest.AnchoredTemplate(path, heads)
}

// start starts a kiosk and checks what it recovered.
func (r *run) start() error {
	cmd := r.cfg.Command()
	cmd.Env = append(append(cmd.Environ(), r.kc.env()...),
		// Under -race a process that exits sleeps 1 s first (for late
		// race reports); a kiosk that quits does not need that long.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=50"))
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	r.p = p
	r.rep.Restarts++
	js, err := p.answer(60*time.Second, nil)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	var ready Ready
	if err := json.Unmarshal([]byte(js), &ready); err != nil {
		return err
	}
	if ready.State == "out_of_service" {
		// The boot check (Store.Verify, the blocks' signatures) or the
		// recovery failed.
		r.problem("start %d: out of service: %s", r.rep.Restarts, ready.Fault)
	}
	if rec := r.cutAnchor; rec != nil {
		// The database the kiosk opened against the anchor the cut left:
		// at its heads, or at the heads its newest record announced.
		r.cutAnchor = nil
		switch {
		case ready.AnchorErr != "":
			r.problem("after power cut %d: the database does not match its anchor: %s", r.rep.Cuts, ready.AnchorErr)
		case rec.Pending != nil && store.SameHeads(ready.Heads, rec.Pending):
			r.rep.AnchorWindow++
		case store.SameHeads(ready.Heads, rec.Committed):
			if rec.Pending != nil {
				r.rep.AnchorBefore++
			}
		default:
			r.problem("after power cut %d: the store opened at heads its anchor (record %d) never held", r.rep.Cuts, rec.Seq)
		}
	}
	if g := ready.Resumed; g != nil {
		r.ack.plays[g.ID] = *g
		r.rep.Resumed++
		r.rep.Plays++
		if g.Won != g.Prize || g.Mismatch {
			r.problem("resumed play %d credited %s for a unit whose prize is %s (mismatch %v)", g.ID, g.Won, g.Prize, g.Mismatch)
		}
	}
	return nil
}

// restart stops the kiosk (kill -9 or cleanly) and starts it again.
func (r *run) restart(kill bool) error {
	if r.p != nil {
		defer r.secrets("the kiosk's stderr", r.p.stderr.String())
		if kill {
			r.p.kill()
			r.rep.Kills++
			if r.fs != nil {
				if err := r.powerCut(); err != nil {
					return err
				}
			}
		} else if err := r.p.quit(); err != nil {
			r.problem("%v", err)
		}
		r.p = nil
	}
	return r.start()
}

// secrets: no PIN (right or wrong) and no validation number of a voucher
// is in text (a log): either opens the money.
func (r *run) secrets(where, text string) {
	words := strings.FieldsFunc(text, func(c rune) bool { return c < '0' || c > '9' })
	pins := map[string]bool{StaffPIN: true, TechnicianPIN: true, WrongPIN: true}
	for _, w := range words {
		switch {
		case pins[w]:
			r.problem("a PIN (%s) is in %s", w, where)
			return
		case r.validations[w]:
			r.problem("a voucher's validation number is in %s", where)
			return
		}
	}
}

func (r *run) problem(format string, args ...any) {
	r.rep.Problems = append(r.rep.Problems, fmt.Sprintf(format, args...))
}

// timed runs a kiosk command and learns how long such a command takes.
func (r *run) timed(what, line string, timeout time.Duration, onEvent func(string)) (string, error) {
	t0 := time.Now()
	if err := r.p.send(line); err != nil {
		return "", err
	}
	js, err := r.p.answer(timeout, onEvent)
	if err == nil {
		r.learn(what, time.Since(t0))
	}
	return js, err
}

func (r *run) learn(what string, d time.Duration) {
	if t, ok := r.typical[what]; ok {
		r.typical[what] = (3*t + d) / 4
	} else {
		r.typical[what] = d
	}
}

// moment is a random moment within a typical what.
func (r *run) moment(what string) time.Duration {
	t := r.typical[what]
	if t <= 0 {
		t = 20 * time.Millisecond
	}
	return time.Duration(r.rng.Int64N(int64(t)*5/4 + 1))
}

// idle waits until the kiosk takes notes again.
func (r *run) idle(printer bool) error {
	if err := r.handPay(); err != nil {
		return err
	}
	arg := ""
	if printer {
		arg = " printer"
	}
	_, err := r.p.call("idle"+arg, 30*time.Second)
	return err
}

var notes = []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro}

// refused reports whether err is the devices' refusal of one of codes.
func refused(err error, codes ...devsim.RefusalCode) bool {
	var r *devsim.Refusal
	return errors.As(err, &r) && slices.Contains(codes, r.Code)
}

// insert puts a note in the validator.
func (r *run) insert() error {
	n := notes[r.rng.IntN(len(notes))]
	// The kiosk says it takes notes a little before the unit has left its
	// initialisation: the player tries again, as a player would.
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := r.devs.InsertNote(n)
		if err == nil {
			break
		}
		if !refused(err, devsim.RefusedDisabled, devsim.RefusedBusy) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.rep.Notes++
	return nil
}

// handPay: staff pay the hand-pay the kiosk is locked for (a win or a
// cash-out above the payout limit), if any.
func (r *run) handPay() error {
	js, err := r.p.call("state", 10*time.Second)
	if err != nil {
		return err
	}
	var s struct{ HandPay bool }
	if err := json.Unmarshal([]byte(js), &s); err != nil || !s.HandPay {
		return err
	}
	js, err = r.timed("maintenance", "handpay", time.Minute, nil)
	if err != nil {
		return err
	}
	var hp struct{ Amount game.Money }
	if json.Unmarshal([]byte(js), &hp) == nil && hp.Amount > 0 {
		r.ack.handPays++
	}
	r.rep.HandPays++
	return nil
}

// credit is the kiosk's credit now.
func (r *run) credit() (game.Money, error) {
	js, err := r.p.call("state", 10*time.Second)
	if err != nil {
		return 0, err
	}
	var s struct{ Credit game.Money }
	return s.Credit, json.Unmarshal([]byte(js), &s)
}

// feed puts notes in until the credit reaches at least c, timing the
// notes' way in.
func (r *run) feed(c game.Money) error {
	if err := r.handPay(); err != nil {
		return err
	}
	for range 20 {
		have, err := r.credit()
		if err != nil || have >= c {
			return err
		}
		if err := r.idle(false); err != nil {
			return err
		}
		t0 := time.Now()
		before := r.devs.Unit.Counts()
		if err := r.insert(); err != nil {
			return err
		}
		if err := r.waitCredit(have, before); err != nil {
			return err
		}
		r.learn("cash-in", time.Since(t0))
	}
	return errors.New("the credit does not grow")
}

// waitCredit waits until the note inserted is in the cash box or back
// out (the unit's own counts), then until the kiosk settled, and says
// whether the credit moved from was.
func (r *run) waitCredit(was game.Money, before devsim.UnitCounts) error {
	for deadline := time.Now().Add(10 * time.Second); ; {
		c := r.devs.Unit.Counts()
		if c.Stacked != before.Stacked || c.Returned != before.Returned {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the note is neither stacked nor returned")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := r.idle(false); err != nil {
		return err
	}
	// An SSP unit counts the note in its box as it gets there, and may
	// raise its credit then: the kiosk credits it at its next poll.
	have, err := r.credit()
	for deadline := time.Now().Add(10 * time.Second); err == nil && have == was && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		have, err = r.credit()
	}
	if err == nil && have == was {
		err = errors.New("the note was not credited")
	}
	if err == nil {
		r.ack.notes++
	}
	return err
}

// play plays one game at a random stake and mode; onEvent sees its events.
func (r *run) playArgs() (game.Stake, string) {
	s := game.Stakes[r.rng.IntN(len(game.Stakes))]
	mode := "jouer"
	if r.rng.IntN(2) == 0 {
		mode = "auto"
	}
	return s, mode
}

// played counts a game's answer.
func (r *run) played(js string) {
	var g Played
	if json.Unmarshal([]byte(js), &g) != nil {
		return
	}
	r.rep.Plays++
	r.ack.plays[g.ID] = g
	if g.Bonus {
		r.rep.Bonus++
	}
	if g.Won != g.Prize || g.Mismatch {
		r.problem("play %d credited %s for a unit whose prize is %s (mismatch %v)", g.ID, g.Won, g.Prize, g.Mismatch)
	}
}

// voucherOut counts a cash-out's answer: a voucher printed.
func (r *run) voucherOut(js string) {
	r.rep.Vouchers++
	var v struct{ Number int64 }
	if json.Unmarshal([]byte(js), &v) == nil && v.Number != 0 {
		r.ack.vouchers[v.Number] = true
	}
}

// voucherPaid counts a staff payout's answer.
func (r *run) voucherPaid(js string) {
	var v struct{ Voucher int64 }
	if json.Unmarshal([]byte(js), &v) == nil && v.Voucher != 0 {
		r.rep.Paid++
		r.ack.paid[v.Voucher] = true
	}
}

// acknowledged checks that the store still holds every operation the
// kiosk acknowledged: a kill -9 loses none (SQLite's writes are in the
// kernel), a power cut none either while every commit is synced.
func (r *run) acknowledged(where string, f Figures) {
	lost := func(format string, args ...any) {
		r.rep.AckLost++
		r.problem("%s: acknowledged and lost: "+format, append([]any{where}, args...)...)
	}
	for id, g := range r.ack.plays {
		if p, ok := f.PlayRows[id]; !ok || p.BlockID != g.BlockID || p.Unit != g.Unit || !p.Finished {
			lost("play %d (block %d, unit %d, %s won) is %+v in the store (present %v)", id, g.BlockID, g.Unit, g.Won, p, ok)
			delete(r.ack.plays, id) // reported once
		}
	}
	for id := range r.ack.vouchers {
		switch st, ok := f.VoucherStates[id]; {
		case !ok || (st != store.VoucherPrinted && st != store.VoucherPaid && st != store.VoucherExpired):
			lost("voucher %d printed is %q in the store", id, st)
			delete(r.ack.vouchers, id)
		}
	}
	for id := range r.ack.paid {
		if st := f.VoucherStates[id]; st != store.VoucherPaid {
			lost("voucher %d paid by staff is %q in the store: payable again", id, st)
			delete(r.ack.paid, id)
		}
	}
	if n := f.LedgerCounts[store.KindHandPay]; n < r.ack.handPays {
		lost("%d hand-pays paid, %d in the ledger", r.ack.handPays, n)
		r.ack.handPays = n
	}
	if n := f.LedgerCounts[store.KindBillIn]; n < r.ack.notes {
		lost("%d notes credited before the player's eyes, %d in the ledger", r.ack.notes, n)
		r.ack.notes = n
	}
	if f.AnchorErr != "" {
		r.problem("%s: the database does not match its anchor: %s", where, f.AnchorErr)
	}
}

// warm plays a little with no fault, so that every operation has a
// typical duration to draw kill moments in.
func (r *run) warm() error {
	if len(r.typical) > 3 {
		return nil
	}
	if err := r.feed(5 * game.Euro); err != nil {
		return err
	}
	s, mode := r.playArgs()
	js, err := r.timed("play", fmt.Sprintf("play %d %s", s, mode), 5*time.Minute, nil)
	if err != nil {
		return err
	}
	r.played(js)
	if err := r.feed(5 * game.Euro); err != nil { // a big win went to a hand-pay
		return err
	}
	if err := r.idle(true); err != nil {
		return err
	}
	js, err = r.timed("cash-out", "cashout", time.Minute, nil)
	if err != nil {
		return err
	}
	r.voucherOut(js)
	if js, err = r.timed("maintenance", "pay", time.Minute, nil); err != nil {
		return err
	}
	r.voucherPaid(js)
	return nil
}

// fault causes fault i of kind k, restarts the kiosk and checks.
func (r *run) fault(i int, k Kind) error {
	t0 := time.Now()
	if err := r.warm(); err != nil {
		return fmt.Errorf("warm up: %w", err)
	}
	if r.rng.IntN(4) == 0 {
		if err := r.staffRound(); err != nil {
			return err
		}
	}
	kill := true
	var err error
	switch k {
	case KillCashIn:
		err = r.killCashIn()
	case KillPlay, KillBonus:
		err = r.killPlay(k)
	case KillCashOut:
		err = r.killCashOut()
	case KillMaintenance:
		err = r.killMaintenance()
	case KillIdle:
		// The kiosk is killed as soon as it answered its start: the
		// next start recovers what the last one was recovering.
	case ValidatorUnplug, ValidatorGarble, ValidatorPower:
		kill, err = r.validatorFault(k)
	case PrinterUnplug, PrinterGarble:
		kill, err = r.printerFault(k)
	case DiskFull:
		err = r.diskFull()
	case ReadOnly:
		kill, err = false, r.readOnly()
	case ClockJump:
		kill, err = r.clockJump()
	}
	if err != nil {
		var ke *kioskError
		if !errors.As(err, &ke) {
			return err
		}
		r.cfg.Logf("fault %d %s: the kiosk said: %v", i, k, err)
	}
	r.rep.Faults[k]++
	if r.devs != nil {
		if err := r.devs.Repair(); err != nil {
			return err
		}
		r.devs.Printer.Tamper(nil)
	}
	t1 := time.Now()
	if err := r.restart(kill); err != nil {
		return err
	}
	t2 := time.Now()
	if err := r.check(i, k); err != nil {
		return err
	}
	r.cfg.Logf("fault %d %s: fault %v, restart %v, check %v", i, k, t1.Sub(t0).Round(time.Millisecond),
		t2.Sub(t1).Round(time.Millisecond), time.Since(t2).Round(time.Millisecond))
	return nil
}

// staffRound: staff pay the newest voucher, and now and then empty the
// cash box, with no fault.
func (r *run) staffRound() error {
	js, err := r.timed("maintenance", "pay", time.Minute, nil)
	var ke *kioskError
	if errors.As(err, &ke) {
		return nil // refused (the kiosk out of service): staff come back later
	}
	if err != nil {
		return err
	}
	r.voucherPaid(js)
	if r.rng.IntN(3) == 0 {
		if _, err := r.timed("maintenance", "collect", time.Minute, nil); err == nil {
			r.rep.Collections++
		} else if !errors.As(err, &ke) {
			return err
		}
	}
	return nil
}

func (r *run) killCashIn() error {
	if err := r.idle(false); err != nil {
		return err
	}
	if err := r.insert(); err != nil {
		return err
	}
	time.Sleep(r.moment("cash-in"))
	return nil
}

func (r *run) killPlay(k Kind) error {
	s, mode := r.playArgs()
	if err := r.feed(s.Money()); err != nil {
		return err
	}
	if err := r.p.send(fmt.Sprintf("play %d %s", s, mode)); err != nil {
		return err
	}
	if k == KillPlay {
		time.Sleep(r.moment("play"))
		return nil
	}
	// Kill on the bonus wall, at a random moment of it; a game without a
	// bonus is played to its end and the kill falls after it.
	bonus := time.Time{}
	js, err := r.p.answer(5*time.Minute, func(ev string) {
		if ev == "stage bonus" {
			bonus = time.Now()
			time.Sleep(r.moment("bonus"))
			r.p.kill()
		}
	})
	if !bonus.IsZero() {
		r.bonusMisses = 0
		r.rep.Bonus++
		return nil
	}
	if err != nil {
		return err
	}
	r.bonusMisses++
	r.played(js)
	return nil
}

func (r *run) killCashOut() error {
	if err := r.feed(5 * game.Euro); err != nil {
		return err
	}
	if err := r.idle(true); err != nil {
		return err
	}
	if err := r.p.send("cashout"); err != nil {
		return err
	}
	r.rep.Vouchers++
	time.Sleep(r.moment("cash-out"))
	return nil
}

func (r *run) killMaintenance() error {
	cmds := []string{"pay", "pay", "collect", "held credit", "handpay"}
	cmd := cmds[r.rng.IntN(len(cmds))]
	if cmd == "held credit" {
		// Staff credit a held note only once they found it in the cash box,
		// as check does: crediting every held note, found or not, would be
		// the harness's staff paying a note the player took back.
		ids, err := r.heldInBox()
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			cmd = "pay"
		} else {
			cmd += " " + strings.Join(ids, " ")
		}
	}
	if err := r.p.send(cmd); err != nil {
		return err
	}
	time.Sleep(r.moment("maintenance"))
	return nil
}

// heldInBox are the held notes staff find in the cash box by counting it
// (its surplus over the credited notes), none while a note is unsettled.
func (r *run) heldInBox() ([]string, error) {
	f, err := r.audit(false)
	if err != nil || f.Held == 0 || f.Open > 0 {
		return nil, err
	}
	surplus := game.Money(r.devs.Unit.Counts().StackedSum) - f.Ledger[store.KindBillIn]
	credit, ok := inBox(f.HeldNotes, surplus)
	if !ok {
		return nil, nil
	}
	var ids []string
	for id := range f.HeldNotes {
		if credit[id] {
			ids = append(ids, strconv.FormatInt(id, 10))
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// validatorFault: a note goes in and the validator is unplugged, garbled
// or powered off and on at a random moment of its way.
func (r *run) validatorFault(k Kind) (kill bool, err error) {
	if err := r.idle(false); err != nil {
		return false, err
	}
	v := r.devs.Unit
	if k == ValidatorGarble {
		line := v.LineFaults()
		if err := v.InjectLine(line[r.rng.IntN(len(line))], 1+r.rng.IntN(4)); err != nil {
			return false, err
		}
	}
	if err := r.insert(); err != nil {
		return false, err
	}
	time.Sleep(r.moment("cash-in"))
	switch k {
	case ValidatorUnplug:
		if err := r.devs.Cause(devsim.ValidatorUnplugged); err != nil {
			return false, err
		}
		time.Sleep(r.moment("cash-in"))
	case ValidatorPower:
		v.PowerCycle()
	}
	// The kiosk lives on with the fault; half the time it is killed too.
	return r.rng.IntN(2) == 0, nil
}

// printerFault: a cash-out with the printer unplugged or garbled at a
// random moment of its printing.
func (r *run) printerFault(k Kind) (kill bool, err error) {
	if err := r.feed(5 * game.Euro); err != nil {
		return false, err
	}
	if err := r.idle(true); err != nil {
		return false, err
	}
	if err := r.p.send("cashout"); err != nil {
		return false, err
	}
	time.Sleep(r.moment("cash-out"))
	if k == PrinterUnplug {
		if err := r.devs.Cause(devsim.PrinterUnplugged); err != nil {
			return false, err
		}
	} else {
		r.devs.Printer.Tamper(func(_, normal []byte) []byte {
			r.garble.Lock()
			defer r.garble.Unlock()
			b := append([]byte(nil), normal...)
			for i := range b {
				if r.garble.rng.IntN(2) == 0 {
					b[i] ^= byte(1 + r.garble.rng.IntN(255))
				}
			}
			if r.garble.rng.IntN(4) == 0 {
				b = append(b, byte(r.garble.rng.IntN(256)))
			}
			return b
		})
	}
	if js, err := r.p.answer(time.Minute, nil); err == nil {
		r.voucherOut(js)
	}
	return r.rng.IntN(2) == 0, nil
}

// diskFull: the data file system fills (or, without a tmpfs, the kiosk
// may write no file beyond its size) while the player plays, puts notes in
// and cashes out.
func (r *run) diskFull() error {
	if err := r.feed(5 * game.Euro); err != nil {
		return err
	}
	var filler string
	if r.tmpf {
		filler = filepath.Join(r.data, "filler")
		if err := fill(filler); err != nil {
			return err
		}
		defer os.Remove(filler)
	} else {
		fi, err := os.Stat(r.kc.DB)
		if err != nil {
			return err
		}
		if _, err := r.p.call("fsize "+strconv.FormatInt(fi.Size(), 10), 10*time.Second); err != nil {
			return err
		}
	}
	for range 3 {
		var err error
		switch r.rng.IntN(3) {
		case 0:
			s, mode := r.playArgs()
			var js string
			if js, err = r.p.call(fmt.Sprintf("play %d %s", s, mode), 5*time.Minute); err == nil {
				r.played(js)
			}
		case 1:
			// The kiosk may have inhibited the validator by now (a game of
			// this fault won a hand-pay, or could not be written): the
			// player's note is refused, which is right on a full disk.
			if err = r.insert(); refused(err, devsim.RefusedDisabled) {
				r.cfg.Logf("disk full: the validator refuses the note: %v", err)
				err = nil
			} else if err == nil {
				_, err = r.p.call("idle", 30*time.Second)
			}
		case 2:
			var js string
			if js, err = r.p.call("cashout", time.Minute); err == nil {
				r.voucherOut(js)
			}
		}
		var ke *kioskError
		if err != nil && !errors.As(err, &ke) {
			return err
		}
	}
	return nil
}

// fill writes a file until the file system is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// readOnly: the kiosk starts on a read-only data file system; it must
// refuse to run, and write nothing. Then the file system comes back.
func (r *run) readOnly() error {
	if err := r.p.quit(); err != nil {
		return err
	}
	r.p = nil
	if err := syscall.Mount("", r.data, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		return fmt.Errorf("remount read-only: %w", err)
	}
	defer func() { _ = syscall.Mount("", r.data, "", syscall.MS_REMOUNT, "") }()
	cmd := r.cfg.Command()
	cmd.Env = append(cmd.Environ(), r.kc.env()...)
	p, err := startProc(cmd)
	if err != nil {
		return err
	}
	r.rep.Restarts++
	js, err := p.answer(60*time.Second, nil)
	if err == nil {
		// Up on a read-only disk: it must be out of service.
		var ready Ready
		if json.Unmarshal([]byte(js), &ready) == nil && ready.State != "out_of_service" {
			if _, perr := p.call(fmt.Sprintf("play %d auto", game.Stakes[0]), time.Minute); perr == nil {
				r.problem("the kiosk sold a unit on a read-only file system")
			}
		}
	}
	p.kill()
	return nil
}

// clockJump: the clock jumps, the player goes on.
func (r *run) clockJump() (kill bool, err error) {
	jumps := []time.Duration{time.Hour, 26 * time.Hour, -5 * time.Minute, -2 * time.Hour, 40 * 24 * time.Hour, 3 * time.Second}
	d := jumps[r.rng.IntN(len(jumps))]
	if _, err := r.p.call("clock "+d.String(), 10*time.Second); err != nil {
		return false, err
	}
	r.kc.ClockOffset += d
	s, mode := r.playArgs()
	if err := r.feed(s.Money()); err != nil {
		return false, err
	}
	js, err := r.p.call(fmt.Sprintf("play %d %s", s, mode), 5*time.Minute)
	if err == nil {
		r.played(js)
	}
	return r.rng.IntN(2) == 0, err
}

// check settles what the fault left (staff credit the notes the kiosk
// held for them, as the cash box shows them) and checks the invariants.
func (r *run) check(i int, k Kind) error {
	verify := i%10 == 9 || i == r.cfg.Faults-1
	f, err := r.audit(false)
	if err != nil {
		return err
	}
	if f.Held > 0 && f.Open == 0 {
		// Staff count the cash box: what it holds beyond the credited
		// notes is some of the held ones (found by their values); those
		// are credited, the others closed. While a note is still open
		// (its STACK sent, unsettled) staff wait: they could not tell it
		// from a held one.
		c := r.devs.Unit.Counts()
		surplus := game.Money(c.StackedSum) - f.Ledger[store.KindBillIn]
		credit, ok := inBox(f.HeldNotes, surplus)
		if !ok {
			r.problem("after fault %d (%s): the cash box holds %s more than credited, which no set of the held notes %v makes",
				i, k, surplus, f.HeldNotes)
		} else {
			var yes, no []string
			for id := range f.HeldNotes {
				if credit[id] {
					yes = append(yes, strconv.FormatInt(id, 10))
				} else {
					no = append(no, strconv.FormatInt(id, 10))
				}
			}
			if len(yes) > 0 {
				if _, err := r.p.call("held credit "+strings.Join(yes, " "), time.Minute); err != nil {
					return err
				}
				r.rep.HeldCredited += len(yes)
				r.ack.notes += len(yes)
			}
			if len(no) > 0 {
				if _, err := r.p.call("held close "+strings.Join(no, " "), time.Minute); err != nil {
					return err
				}
			}
		}
	}
	if f.Held > 0 || verify {
		if f, err = r.audit(verify); err != nil {
			return err
		}
	}
	where := fmt.Sprintf("after fault %d (%s)", i, k)
	if f.VerifyErr != "" {
		r.problem("%s: Store.Verify: %s", where, f.VerifyErr)
	}
	if f.Credit != f.Expected {
		r.problem("%s: credit %s, ledger says %s", where, f.Credit, f.Expected)
		r.rep.CentsLost += abs(f.Credit - f.Expected)
	}
	if f.Unfinished > 0 {
		r.problem("%s: %d plays unfinished after the start", where, f.Unfinished)
	}
	for _, p := range f.UnitProblems {
		r.problem("%s: %s", where, p)
		r.rep.UnitsLost++
	}
	for _, p := range f.WinProblems {
		r.problem("%s: %s", where, p)
	}
	if f.VoucherIssued > 0 {
		r.problem("%s: %d vouchers issued and neither printed nor void after the start", where, f.VoucherIssued)
	}
	// The notes: every note in the cash box credited exactly once. The
	// box may hold more than was credited by the notes the kiosk holds for
	// staff (when staff could not count yet) and the notes whose STACK was
	// sent and that no report settled yet (the kiosk holds them at the
	// next note): never more, and never less.
	c := r.devs.Unit.Counts()
	box, credited := game.Money(c.StackedSum), f.Ledger[store.KindBillIn]
	surplus := box - credited
	stacked := credited // the notes in the box the books account for
	switch {
	case surplus < 0:
		r.problem("%s: %s credited for %s of notes in the cash box", where, credited, box)
		r.rep.DoubleCredits += max(1, f.LedgerCounts[store.KindBillIn]-c.Stacked)
		stacked = box
	case surplus > f.HeldSum+f.OpenSum:
		js, _ := r.p.call("intents", time.Minute)
		r.problem("%s: %s of notes in the cash box, %s credited, %s held or unsettled (validator %+v; kiosk %s)",
			where, box, credited, f.HeldSum+f.OpenSum, c, js)
		r.rep.CentsLost += surplus - f.HeldSum - f.OpenSum
	case surplus > 0:
		r.rep.Unsettled++
	}
	// The vouchers: each payable (or paid) voucher has its paper, whole;
	// the paper's total is what the ledger debited.
	paper := map[string]bool{}
	for _, rc := range r.devs.Printer.Receipts() {
		v := receiptValidation(rc)
		if v != "" {
			r.validations[v] = true
		}
		if v != "" && rc.Complete {
			paper[v] = true
		}
	}
	for _, rc := range r.devs.Printer.Receipts() {
		if v := receiptValidation(rc); v != "" && rc.Complete && !f.Validations[v] && !r.unknownPaper[v] {
			// Paper in the player's hand that the store does not know: its
			// debit is gone, and the voucher is a credit given twice.
			r.unknownPaper[v] = true
			r.rep.AckLost++
			r.problem("%s: a voucher printed whole that the store does not know", where)
		}
	}
	r.acknowledged(where, f)
	var out game.Money
	for val, amount := range f.VoucherPaper {
		out += amount
		if !paper[val] {
			r.problem("%s: voucher of %s debited without its paper", where, amount)
			r.rep.CentsLost += amount
		}
	}
	if -f.Ledger[store.KindVoucherOut] != out {
		r.problem("%s: vouchers debited %s, payable paper %s", where, -f.Ledger[store.KindVoucherOut], out)
	}
	// The whole money, from the devices' side: notes in the box − paper
	// out = credit + stakes − wins.
	truth := stacked - out
	book := f.Credit - f.Ledger[store.KindStake] - f.Ledger[store.KindWin] - f.Ledger[store.KindHandPay]
	if truth != book {
		r.problem("%s: devices say %s in, books say %s", where, truth, book)
	}
	return nil
}

func (r *run) audit(verify bool) (Figures, error) {
	var f Figures
	if err := r.idle(false); err != nil {
		var ke *kioskError
		if !errors.As(err, &ke) {
			return f, err
		}
		// A kiosk that does not settle (out of service): its figures all
		// the same.
		r.cfg.Logf("check: %v", err)
	}
	line := "check"
	if verify {
		line += " verify"
	}
	js, err := r.p.call(line, 2*time.Minute)
	if err != nil {
		return f, err
	}
	return f, json.Unmarshal([]byte(js), &f)
}

// inBox finds the held notes whose values make surplus (the notes are
// few: every subset is tried).
func inBox(held map[int64]game.Money, surplus game.Money) (map[int64]bool, bool) {
	ids := make([]int64, 0, len(held))
	for id := range held {
		ids = append(ids, id)
	}
	if len(ids) > 16 {
		return nil, false
	}
	for mask := 0; mask < 1<<len(ids); mask++ {
		var sum game.Money
		for j, id := range ids {
			if mask&(1<<j) != 0 {
				sum += held[id]
			}
		}
		if sum == surplus {
			set := map[int64]bool{}
			for j, id := range ids {
				if mask&(1<<j) != 0 {
					set[id] = true
				}
			}
			return set, true
		}
	}
	return nil, false
}

func abs(m game.Money) game.Money {
	if m < 0 {
		return -m
	}
	return m
}

// receiptValidation reads the validation number printed under "N° de
// validation" ("" if the paper stops before it).
func receiptValidation(rc *printersim.Receipt) string {
	lines := strings.Split(rc.Plain(), "\n")
	for i, l := range lines {
		if l == "N° de validation" && i+1 < len(lines) {
			return strings.ReplaceAll(lines[i+1], " ", "")
		}
	}
	return ""
}
