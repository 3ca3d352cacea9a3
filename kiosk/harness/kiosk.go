package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// The headless kiosk: the real core (kiosk.Machine on the store, its bill
// validator and voucher printer over their serial lines, the maintenance
// actions of kiosk.Office) without the screens. What the screens would do,
// a line protocol on standard input does, one command a line, one answer a
// line on standard output ("ok JSON" or "err TEXT"); the game is stepped as
// the screens' frame loop steps it, without waiting for frames. It is the
// child process of the fault harness (Run), which kills it.

// Environment of the headless kiosk (KioskFromEnv).
const (
	EnvDB        = "PHARAON_HARNESS_DB"        // the database file
	EnvValidator = "PHARAON_HARNESS_VALIDATOR" // the bill validator's serial line
	EnvFamily    = "PHARAON_HARNESS_FAMILY"    // its family (validator.Family; "" is ID-003)
	EnvPrinter   = "PHARAON_HARNESS_PRINTER"   // the voucher printer's serial line
	EnvClock     = "PHARAON_HARNESS_CLOCK"     // the clock's offset from the system's, as a Go duration
	EnvSeed      = "PHARAON_HARNESS_SEED"      // the player's randomness (paddle moves)
	// EnvSync weakens the store's synchronous (OFF or NORMAL): only the
	// power-cut harness's proof that it sees a loss, in a kiosk built
	// with the tag pharaon_weaksync (store.WeakenSync).
	EnvSync = "PHARAON_HARNESS_SYNC"
)

// The harness kiosk's maintenance PINs (set on a database without any).
const (
	StaffPIN      = "111111"
	TechnicianPIN = "222222"
	// WrongPIN is what a clumsy staff member types first now and then.
	WrongPIN = "777777"
)

// KioskConfig is a headless kiosk.
type KioskConfig struct {
	DB, Validator, Printer string
	Family                 validator.Family // the bill validator's
	ClockOffset            time.Duration
	Seed                   uint64
	// Sync is "" (synchronous=FULL, as the kiosk runs) or OFF or NORMAL
	// (tests only, EnvSync).
	Sync string
}

// KioskFromEnv reads a headless kiosk's configuration from its environment.
func KioskFromEnv() (KioskConfig, error) {
	c := KioskConfig{DB: os.Getenv(EnvDB), Validator: os.Getenv(EnvValidator), Printer: os.Getenv(EnvPrinter),
		Family: validator.Family(os.Getenv(EnvFamily)), Sync: os.Getenv(EnvSync)}
	if c.DB == "" {
		return c, fmt.Errorf("%s is not set", EnvDB)
	}
	if s := os.Getenv(EnvClock); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvClock, s, err)
		}
		c.ClockOffset = d
	}
	if s := os.Getenv(EnvSeed); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w", EnvSeed, s, err)
		}
		c.Seed = n
	}
	return c, nil
}

// (c KioskConfig) env is the environment a child needs for c.
func (c KioskConfig) env() []string {
	return []string{EnvDB + "=" + c.DB, EnvValidator + "=" + c.Validator, EnvFamily + "=" + string(c.Family), EnvPrinter + "=" + c.Printer,
		EnvClock + "=" + c.ClockOffset.String(), EnvSeed + "=" + strconv.FormatUint(c.Seed, 10), EnvSync + "=" + c.Sync}
}

// offsetClock is the system clock moved by an offset the harness jumps.
type offsetClock struct{ off atomic.Int64 }

func (c *offsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }

// cashConfig: fast polls, as the kiosk's own crash tests use, and a
// maximum credit the harness never reaches.
func cashConfig(c KioskConfig) kiosk.CashConfig {
	return kiosk.CashConfig{
		MaxCredit:     1_000_000 * game.Euro,
		ValidatorPath: c.Validator,
		PrinterPath:   c.Printer,
		Drivers:       drivers.Opener{},
		Validator: validator.Settings{
			Family:       c.Family,
			PollInterval: 5 * time.Millisecond,
			ReplyTimeout: 200 * time.Millisecond,
			Backoff:      hw.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
		},
		PrinterTiming: escpos.Config{StatusTimeout: 500 * time.Millisecond, PollInterval: 10 * time.Millisecond},
		PrinterCheck:  20 * time.Millisecond,
	}
}

// harnessKDF hashes the harness's PINs cheaply: the harness logs in
// hundreds of times, and the PINs protect nothing.
var harnessKDF = kiosk.KDF{Time: 1, MemoryKiB: 64, Threads: 1}

// headless is a running headless kiosk.
type headless struct {
	st     *store.Store
	m      *kiosk.Machine
	office *kiosk.Office
	clk    *offsetClock
	rng    *rand.Rand
	out    io.Writer
	outMu  sync.Mutex
	// changed is signalled at each change of the machine (its one listener).
	changed chan struct{}
}

// ServeKiosk runs a headless kiosk on c until its input says "quit" or
// ends; it returns the process's exit status. The answers and the events
// ("event stage bonus") go to out, the kiosk's log lines to errOut.
func ServeKiosk(c KioskConfig, in io.Reader, out, errOut io.Writer) int {
	// A file size limit (the harness's full disk) must fail the write, not
	// kill the process.
	signal.Ignore(syscall.SIGXFSZ)
	ctx := context.Background()
	h := &headless{clk: &offsetClock{}, rng: rand.New(rand.NewPCG(c.Seed, 0x6a11e55)), out: out}
	h.clk.off.Store(int64(c.ClockOffset))
	fail := func(err error) int {
		fmt.Fprintln(errOut, "headless kiosk:", err)
		h.say("err", err.Error())
		return 2
	}
	var err error
	// Anchored as the kiosk opens its store (cmd/pharaon): anchor.key and
	// pharaon.anchor beside the database.
	if h.st, err = store.Open(c.DB, store.WithAnchor(store.DefaultAnchor(c.DB))); err != nil {
		return fail(err)
	}
	defer h.st.Close()
	if c.Sync != "" {
		if err := h.st.WeakenSync(ctx, c.Sync); err != nil {
			return fail(err)
		}
	}
	// The heads the store opened at, before anything is written: the
	// harness compares them with the anchor a power cut left.
	var anchorHeads []store.Head
	var anchorErr string
	if a, err := h.st.Anchor(); err != nil {
		anchorErr = err.Error()
	} else {
		anchorHeads = a.Heads
	}
	h.m, err = kiosk.New(h.st, h.clk, kiosk.Config{KioskID: "PH-HARNESS", Venue: "Banc d’essai",
		Keys: kiosktest.Keys, Cash: cashConfig(c)})
	if err != nil {
		return fail(err)
	}
	if err := h.m.Start(ctx); err != nil {
		return fail(err)
	}
	defer h.m.Close()
	// The harness's staff are clumsy, not guessers: their wrong PINs,
	// never reset by the right one, must not lock them out of the runs.
	access := kiosk.NewAccess(h.st, h.clk, kiosk.AccessConfig{KDF: harnessKDF, Tries: 1 << 20, Pepper: h.st.Pepper()})
	// A kiosk out of service (its data failed the boot check) writes
	// nothing: the harness reads its figures all the same, and the PINs'
	// check says the same fault as the boot check.
	faulty := h.m.Snapshot().State == kiosk.OutOfService
	if need, err := access.NeedsSetup(ctx); err != nil && !faulty {
		return fail(err)
	} else if need && !faulty {
		s, err := access.SetupSession(ctx)
		if err != nil {
			return fail(err)
		}
		if err := access.Setup(ctx, s, TechnicianPIN, StaffPIN); err != nil {
			return fail(err)
		}
	}
	h.office = kiosk.NewOffice(h.m, access, kiosk.DefaultOfficeIdle)
	h.changed = make(chan struct{}, 1)
	h.m.OnChange(func(kiosk.Snapshot) {
		select {
		case h.changed <- struct{}{}:
		default:
		}
	})

	// A game the last run left unfinished is resumed by Start: the
	// player finishes it first, as the screens show it first.
	snap := h.m.Snapshot()
	ready := Ready{State: snap.State.String(), Fault: snap.Fault.Code + " " + snap.Fault.Detail,
		Heads: anchorHeads, AnchorErr: anchorErr}
	if g := h.m.Current(); g != nil {
		r, err := h.finish(g)
		if err != nil {
			return fail(fmt.Errorf("resumed play %d: %w", g.ID(), err))
		}
		ready.Resumed = &r
	}
	ready.Credit = h.m.Snapshot().Credit
	h.say("ok", ready)

	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "quit" {
			break
		}
		v, err := h.do(ctx, f)
		if err != nil {
			h.say("err", err.Error())
			continue
		}
		h.say("ok", v)
	}
	return 0
}

// Ready is the headless kiosk's first answer.
type Ready struct {
	State   string
	Fault   string // why it is out of service
	Credit  game.Money
	Resumed *Played // the play the last run left unfinished, finished now
	// Heads are the chains' heads the store opened at, which matched its
	// anchor; AnchorErr why they did not (store.ErrAnchor).
	Heads     []store.Head
	AnchorErr string
}

// Played is a game played to its end.
type Played struct {
	ID       int64
	Stake    game.Stake
	Unit     uint32
	BlockID  int64
	Prize    game.Money // the unit's prize, fixed at the stake's debit
	Won      game.Money // what the game credited
	Bonus    bool       // the game went through the bonus wall
	Mismatch bool
}

func (h *headless) say(kind string, v any) {
	var s string
	switch v := v.(type) {
	case string:
		s = strings.ReplaceAll(v, "\n", " ")
	default:
		b, err := json.Marshal(v)
		if err != nil {
			kind, s = "err", err.Error()
		} else {
			s = string(b)
		}
	}
	h.outMu.Lock()
	defer h.outMu.Unlock()
	fmt.Fprintln(h.out, kind, s)
}

// do runs one command.
func (h *headless) do(ctx context.Context, f []string) (any, error) {
	arg := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	switch f[0] {
	case "idle": // wait until the cash settles and the kiosk takes notes
		return h.idle(arg(1) == "printer")
	case "play": // play STAKE_CENTS jouer|auto
		n, err := strconv.ParseInt(arg(1), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("stake %q: %w", arg(1), err)
		}
		mode := breakout.Play
		if arg(2) == "auto" {
			mode = breakout.Auto
		}
		g, err := h.m.Play(ctx, game.Stake(n), mode)
		if err != nil {
			return nil, err
		}
		h.say("event", "play "+strconv.FormatInt(g.ID(), 10))
		return h.finish(g)
	case "cashout":
		v, err := h.m.CashOut(ctx)
		if err != nil {
			return nil, err
		}
		return map[string]any{"Number": v.Number, "Amount": v.Amount}, nil
	case "pay": // staff pay the newest printed voucher
		vs, err := h.st.Vouchers(ctx, 50, 0)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if v.State == store.VoucherPrinted {
				return h.staff(ctx, func(s *kiosk.Session) (any, error) {
					p, err := h.office.PayVoucher(ctx, s, v.Validation)
					return map[string]any{"Voucher": p.ID, "Amount": p.Amount}, err
				})
			}
		}
		return map[string]any{"Voucher": 0}, nil
	case "collect": // staff empty the cash box
		return h.staff(ctx, func(s *kiosk.Session) (any, error) {
			c, err := h.office.Collect(ctx, s)
			return map[string]any{"Collection": c.ID}, err
		})
	case "held": // held credit|close [ID…]: staff credit the notes the kiosk holds for them, or close them (no such note in the box)
		return h.staff(ctx, func(s *kiosk.Session) (any, error) {
			held, err := h.office.HeldNotes(ctx, s)
			if err != nil {
				return nil, err
			}
			only := map[string]bool{}
			for _, id := range f[2:] {
				only[id] = true
			}
			for _, in := range held {
				if len(only) > 0 && !only[strconv.FormatInt(in.ID, 10)] {
					continue
				}
				if arg(1) == "credit" {
					_, err = h.office.CreditHeldNote(ctx, s, in.ID, "harness: the note is in the cash box")
				} else {
					err = h.office.CloseHeldNote(ctx, s, in.ID, "harness: no such note in the cash box")
				}
				if err != nil {
					return nil, err
				}
			}
			return map[string]any{"Held": len(held)}, nil
		})
	case "handpay": // staff pay the pending hand-pay, if any
		if !h.m.HandPay().Pending() {
			return map[string]any{"Amount": 0}, nil
		}
		return h.staff(ctx, func(s *kiosk.Session) (any, error) {
			hp, _, err := h.office.PayHandPay(ctx, s)
			return map[string]any{"Amount": hp.Amount}, err
		})
	case "reset": // staff reset the validator (after a fault they cleared)
		h.m.ResetValidator()
		return map[string]any{}, nil
	case "clock": // clock DURATION: the clock jumps
		d, err := time.ParseDuration(arg(1))
		if err != nil {
			return nil, err
		}
		h.clk.off.Add(int64(d))
		return map[string]any{"Offset": time.Duration(h.clk.off.Load()).String()}, nil
	case "fsize": // fsize BYTES: the process may write no file beyond BYTES (a full disk)
		n, err := strconv.ParseUint(arg(1), 10, 64)
		if err != nil {
			return nil, err
		}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: ^uint64(0)}); err != nil {
			return nil, err
		}
		return map[string]any{}, nil
	case "events": // the whole event log's details, for the secrets' check
		var out []string
		for before := int64(0); ; {
			es, err := h.st.Events(ctx, 1000, before)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				out = append(out, e.Code+" "+e.Detail)
				before = e.ID
			}
			if len(es) < 1000 {
				return out, nil
			}
		}
	case "intents": // the last notes' intents and events, for a report
		ins, err := h.st.BillIntents(ctx, 4, 0)
		if err != nil {
			return nil, err
		}
		es, err := h.st.Events(ctx, 30, 0)
		if err != nil {
			return nil, err
		}
		var ev []string
		for _, e := range es {
			if e.Source == "validator" || e.Source == "cash" || e.Code == "note_held" {
				ev = append(ev, e.Code+" "+e.Detail)
			}
		}
		return map[string]any{"Intents": ins, "Events": ev}, nil
	case "state":
		s := h.m.Snapshot()
		return map[string]any{"State": s.State.String(), "Fault": s.Fault.Code + " " + s.Fault.Detail, "Credit": s.Credit,
			"HandPay": s.HandPay.Pending()}, nil
	case "check": // check [verify]: the figures, with Store.Verify
		return Audit(ctx, h.st, arg(1) == "verify")
	}
	return nil, fmt.Errorf("unknown command %q", f[0])
}

// staff log in with the staff PIN, act, and log out.
func (h *headless) staff(ctx context.Context, act func(*kiosk.Session) (any, error)) (any, error) {
	h.m.SetMaintenance(true)
	defer h.m.SetMaintenance(false)
	if h.rng.IntN(4) == 0 {
		if _, err := h.office.Login(ctx, WrongPIN); err == nil {
			return nil, errors.New("a wrong PIN opened the maintenance screen")
		}
	}
	s, err := h.office.Login(ctx, StaffPIN)
	if err != nil {
		return nil, err
	}
	v, err := act(s)
	if lerr := h.office.Logout(ctx, s, "done"); err == nil && lerr != nil {
		err = lerr
	}
	return v, err
}

// errNotIdle: the kiosk did not settle in time.
var errNotIdle = errors.New("the kiosk did not settle")

// idle waits until no note is on its way, no voucher printing, and the
// validator takes notes (and, with printer, the printer works); or says
// why not after a few seconds (a kiosk out of service never settles).
func (h *headless) idle(printer bool) (any, error) {
	ok := func(s kiosk.Snapshot) bool {
		c := s.Cash
		return s.State != kiosk.OutOfService && !c.NoteInPath && !c.CashingOut && c.CanCashIn &&
			c.Validator.OK && (!printer || c.Printer.OK)
	}
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	// Poll too: a change the machine makes without telling (a device's
	// status read back) must not leave the harness waiting for the deadline.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		s := h.m.Snapshot()
		if ok(s) {
			return map[string]any{"Credit": s.Credit}, nil
		}
		select {
		case <-h.changed:
		case <-tick.C:
		case <-deadline.C:
			return nil, fmt.Errorf("%w: state %s fault %q, cash-in off %q, validator %s, printer %s, note in path %v",
				errNotIdle, s.State, s.Fault.Code, s.Cash.CashInOff.Code, s.Cash.Validator.Code, s.Cash.Printer.Code, s.Cash.NoteInPath)
		}
	}
}

// finish steps g to its end as the screens would: Jouer with a player
// following the ball (not always well), Auto without input; the writes it
// waits for are waited for.
func (h *headless) finish(g *kiosk.Game) (Played, error) {
	p := g.Play()
	r := Played{ID: p.ID, Stake: p.Stake, Unit: p.Unit, BlockID: p.BlockID, Prize: p.Prize}
	const maxSteps = 2_000_000
	for i := 0; ; i++ {
		if err := g.Err(); err != nil {
			return r, err
		}
		st := g.Stage()
		if st == kiosk.StageDone {
			break
		}
		if st == kiosk.StageBonus && !r.Bonus {
			r.Bonus = true
			h.say("event", "stage bonus")
		}
		if !g.Settled() {
			g.Wait()
			continue
		}
		if i > maxSteps {
			return r, fmt.Errorf("play %d: not over after %d steps", p.ID, maxSteps)
		}
		in := breakout.Input{}
		if w := g.World(); w.Mode() == breakout.Play {
			b := w.Ball()
			x := b.X
			if h.rng.IntN(8) == 0 { // a clumsy finger now and then
				x += int32(h.rng.IntN(4*int(b.Radius)+1)) - 2*b.Radius
			}
			in = breakout.Input{Steer: true, PaddleX: x, Launch: b.Phase == breakout.OnPaddle}
		}
		if g.Step(in) == nil {
			g.Wait()
		}
	}
	res := g.Result()
	r.Won, r.Mismatch = res.Won, res.Mismatch
	h.m.EndResult()
	return r, nil
}
