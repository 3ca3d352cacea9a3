package kiosk

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/hw/sim/printersim"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// The exactly-once tests. The kiosk runs in a child process (this
// test binary re-executed with cashChildEnv set: see init below), the
// simulated devices in the test's own process, so they keep their state —
// a note in escrow, a VEND VALID waiting for its ACK, the paper printed —
// when the child is killed with SIGKILL at a chosen step of the money's
// path. A new child is started on the same database and devices, as the
// kiosk restarts, and settles what was left. At the end the money must
// balance to the cent:
//   - cash-in: the notes credited in the ledger are exactly the notes the
//     validator stacked, one ledger row each, in the same order;
//   - cash-out: after each attempt the player holds the credit or one
//     payable voucher for it, never both, never neither; every paper the
//     printer produced is that voucher or a void one.
//
// PHARAON_SOAK=1 runs many more kills (PHARAON_SOAK_KILLS=n to choose);
// PHARAON_CASH_SEED=n replays the random choices of a failing run.

const (
	cashChildEnv     = "PHARAON_KIOSK_CASH_CHILD" // the child's mode: "in", "out" or "idle"
	cashDBEnv        = "PHARAON_KIOSK_CASH_DB"
	cashValidatorEnv = "PHARAON_KIOSK_CASH_VALIDATOR"
	cashPrinterEnv   = "PHARAON_KIOSK_CASH_PRINTER"
	cashKillEnv      = "PHARAON_KIOSK_CASH_KILL" // the point at which the child kills itself

	cashInKills  = 96
	cashOutTries = 60
	soakFactor   = 12
)

func init() {
	if mode := os.Getenv(cashChildEnv); mode != "" {
		os.Exit(cashChild(mode))
	}
}

// childCashConfig is the kiosk's cash configuration in the child: fast
// polls, and no maximum credit to speak of (the test inserts many notes).
func childCashConfig() CashConfig {
	return CashConfig{
		MaxCredit:     1_000_000 * game.Euro,
		ValidatorPath: os.Getenv(cashValidatorEnv),
		PrinterPath:   os.Getenv(cashPrinterEnv),
		Drivers:       drivers.Opener{},
		Validator: validator.Settings{
			PollInterval: 5 * time.Millisecond,
			ReplyTimeout: kiosktest.ReplyTimeout,
			Backoff:      hw.Backoff{Min: 5 * time.Millisecond, Max: 50 * time.Millisecond},
		},
		PrinterTiming: escpos.Config{StatusTimeout: kiosktest.StatusTimeout, PollInterval: 10 * time.Millisecond},
		PrinterCheck:  20 * time.Millisecond,
	}
}

// cashChild is the kiosk process. It prints "ready" once its devices are
// settled (the validator idle and taking notes; the printer working), arms
// its kill point, then, in mode "out", cashes out at once. It stops
// cleanly when its standard input says "quit" or ends.
func cashChild(mode string) int {
	st, err := store.Open(os.Getenv(cashDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	m, err := New(st, SystemClock{}, Config{KioskID: "PH-CHILD", Venue: "Banc d'essai", Cash: childCashConfig(),
		Protection: noProtection})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	kill := os.Getenv(cashKillEnv)
	var armed atomic.Bool
	m.cash.hook = func(p string) {
		if armed.Load() && p == kill {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	if err := m.Start(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	ready := func() bool {
		s := m.Snapshot()
		if s.State == OutOfService {
			return false
		}
		if v := m.cash.validator; v != nil {
			h := v.Snapshot()
			if !h.Connected || !h.Accepting || h.Status.State != validator.StateIdle || s.Cash.NoteInPath {
				return false
			}
		}
		return m.cash.printer == nil || s.Cash.Printer.OK
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "child: not ready: %+v\n", m.Snapshot())
			return 3
		}
		time.Sleep(2 * time.Millisecond)
	}
	armed.Store(true)
	fmt.Println("ready")
	if mode == "out" {
		info, err := m.CashOut(context.Background())
		if err != nil {
			fmt.Println("cashout error:", err)
		} else {
			fmt.Println("cashout ok", info.Number)
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() && sc.Text() != "quit" {
	}
	armed.Store(false)
	if err := m.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if err := st.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	return 0
}

// child is a running kiosk process seen from the test.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *lockedBuffer
	done   chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startChild(t *testing.T, mode, db, validator, printer, kill string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), cashChildEnv+"="+mode, cashDBEnv+"="+db, cashValidatorEnv+"="+validator,
		cashPrinterEnv+"="+printer, cashKillEnv+"="+kill,
		// Under -race a process that exits sleeps 1 s first (for late race
		// reports); a child that quits cleanly does not need that long.
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=50"))
	c := &child{t: t, cmd: cmd, lines: make(chan string, 16), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c.stdin, err = cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	return c
}

// line waits for the child's next line of output ("" if it ended).
func (c *child) line(timeout time.Duration) string {
	c.t.Helper()
	select {
	case l := <-c.lines:
		return l
	case <-time.After(timeout):
		c.kill()
		c.t.Fatalf("child said nothing for %v; stderr:\n%s", timeout, c.stderr)
	}
	return ""
}

func (c *child) waitReady() {
	c.t.Helper()
	if l := c.line(60 * time.Second); l != "ready" {
		c.wait(10 * time.Second)
		c.t.Fatalf("child said %q, not ready; stderr:\n%s", l, c.stderr)
	}
}

func (c *child) kill() { _ = c.cmd.Process.Kill() }

// wait waits for the child to end and reports whether SIGKILL ended it.
func (c *child) wait(timeout time.Duration) (killed bool) {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(timeout):
		c.kill()
		<-c.done
		c.t.Fatalf("child did not end within %v; stderr:\n%s", timeout, c.stderr)
	}
	require.NotContains(c.t, c.stderr.String(), "DATA RACE")
	ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// quit stops the child cleanly.
func (c *child) quit() {
	c.t.Helper()
	_, _ = io.WriteString(c.stdin, "quit\n")
	_ = c.stdin.Close()
	killed := c.wait(30 * time.Second)
	require.False(c.t, killed)
	require.Equal(c.t, 0, c.cmd.ProcessState.ExitCode(), "child stderr:\n%s", c.stderr)
}

func soakRuns(n int) int {
	if testing.Short() {
		return max(1, n/5) // -short: a taste of it; make test runs them all
	}
	if os.Getenv("PHARAON_SOAK") == "" {
		return n
	}
	if k, err := strconv.Atoi(os.Getenv("PHARAON_SOAK_KILLS")); err == nil && k > 0 {
		return k
	}
	return n * soakFactor
}

func cashRand(t *testing.T) *rand.Rand {
	seed := uint64(20261130)
	if v := os.Getenv("PHARAON_CASH_SEED"); v != "" {
		var err error
		seed, err = strconv.ParseUint(v, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d (PHARAON_CASH_SEED to replay)", seed)
	return rand.New(rand.NewPCG(seed, 0xca5e))
}

// Kills of the cash-in test: the kiosk's own steps (it kills itself as it
// reaches them) and two the test makes: right after the unit took the ACK,
// and at a random moment. Two more kill the kiosk at its own step and then
// change the unit before the restart: a power cut with the note in the
// stacker (POWER UP WITH BILL IN STACKER, the note stacked at the reset
// without VEND VALID), and a unit that repeats VEND VALID without its
// escrow code.
var cashInKillPoints = []string{
	pointAccepting, pointEscrow, pointStackMarked, pointStacking, pointVendValid, pointCredited, pointAcked, "after-ack", "random",
	killPowerCutInStacker, killVendValidNoCode,
}

const (
	killPowerCutInStacker = "power-cut-in-stacker" // killed at pointStacking, then the unit's power is cut
	killVendValidNoCode   = "vend-valid-no-code"   // killed at pointVendValid, then VEND VALID loses its code
)

// ownKill is the step at which the child kills itself for a kill point
// ("" when the test kills it).
func ownKill(point string) string {
	switch point {
	case "after-ack", "random":
		return ""
	case killPowerCutInStacker:
		return pointStacking
	case killVendValidNoCode:
		return pointVendValid
	}
	return point
}

func TestExactlyOnceCashIn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pharaon.db")
	exactlyOnceCashIn(t, db, soakRuns(cashInKills), nil, func() string { return db })
}

// exactlyOnceCashIn runs the cash-in test on the database db, killing the
// kiosk runs times; afterKill, if not nil, is called once each killed
// kiosk has ended (cash_powercut_test.go cuts the disk's power there), and
// final, once the last kiosk stopped, says where the test opens the
// database to check it.
func exactlyOnceCashIn(t *testing.T, db string, runs int, afterKill func(), final func() string) {
	rng := cashRand(t)
	link := filepath.Join(t.TempDir(), "validator")
	sim := id003sim.New(id003sim.Config{})
	require.NoError(t, sim.Start(link))
	defer sim.Close()

	notes := []int64{500, 1000, 2000, 5000}
	kills := map[string]int{}
	cutStacking, cutVendValid := 0, 0 // where the notes were when the power was cut
	for i := 0; i < runs; i++ {
		point := cashInKillPoints[i%len(cashInKillPoints)]
		denom := notes[rng.IntN(len(notes))]
		c := startChild(t, "in", db, link, "", ownKill(point))
		c.waitReady()
		acked := sim.Counts().Acked
		require.NoError(t, sim.InsertNote(denom), "run %d", i)
		switch point {
		case "after-ack":
			waitFor(t, func() bool { return sim.Counts().Acked > acked }, "run %d: no ACK", i)
			c.kill()
		case "random":
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
			c.kill()
		}
		killed := c.wait(60 * time.Second)
		require.True(t, killed, "run %d (%s): the child ended by itself; stderr:\n%s", i, point, c.stderr)
		if afterKill != nil {
			afterKill()
		}
		kills[point]++
		switch point {
		case killPowerCutInStacker:
			switch st := sim.State(); st {
			case id003.StateStacking:
				cutStacking++
			case id003.StateVendValid:
				cutVendValid++
			default:
				t.Fatalf("run %d: power cut in %s, not with the note stacking", i, st)
			}
			sim.PowerCycle()
			require.Equal(t, id003.StatePowerUpBillInStacker, sim.State(), "run %d", i)
		case killVendValidNoCode:
			require.NoError(t, sim.DropVendValidData(), "run %d", i)
		}
	}
	// A last kiosk settles the last note and stops cleanly.
	c := startChild(t, "in", db, link, "", "")
	c.waitReady()
	c.quit()
	t.Logf("%d kills: %v", runs, kills)

	counts := sim.Counts()
	st, err := store.Open(final())
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Verify(ctx), "ledger, chains, intents and meters hold")
	entries, err := st.Entries(ctx, 1_000_000, 0)
	require.NoError(t, err)
	var credited []int64
	var sum game.Money
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		require.Equal(t, store.KindBillIn, e.Kind)
		require.True(t, strings.HasPrefix(e.Ref, "intent:"), e.Ref)
		credited = append(credited, int64(e.Amount))
		sum += e.Amount
	}
	assert.Equal(t, runs, counts.Stacked, "every note inserted was stacked")
	assert.Equal(t, counts.Values, credited, "one credit per stacked note, in order")
	assert.Equal(t, game.Money(counts.StackedSum), sum, "to the cent")
	// A note the power cut while stacking is stacked at the reset without
	// VEND VALID; one cut at VEND VALID is never acknowledged.
	t.Logf("power cuts with the note stacking: %d, at VEND VALID: %d", cutStacking, cutVendValid)
	assert.Equal(t, counts.Stacked, counts.VendValid+cutStacking)
	assert.Equal(t, counts.VendValid-cutVendValid, counts.Acked, "every other VEND VALID acknowledged in the end")
	credit, err := st.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, sum, credit)
	m, err := st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(counts.StackedSum), m.Get(store.MeterBillsIn))
	assert.Equal(t, int64(counts.Stacked), m.Get(store.MeterBillsInCount))
	intents, err := st.BillIntents(ctx, 1_000_000, 0)
	require.NoError(t, err)
	n, held := 0, 0
	for _, in := range intents {
		switch in.State {
		case store.IntentCredited:
			n++
		case store.IntentHeld:
			// Only a kill between the stacking mark and STACK leaves the note
			// in escrow with its intent stacking: the next escrow cannot tell
			// it from a note a cleared jam stacked, and holds it for staff
			// (who find no extra note): the policy's price, never money.
			held++
		case store.IntentPending, store.IntentStacking:
			t.Errorf("intent %d still %s after the last kiosk settled", in.ID, in.State)
		}
	}
	t.Logf("intents held for staff: %d", held)
	assert.GreaterOrEqual(t, held, kills[pointStackMarked], "one held intent per kill between the mark and STACK")
	assert.LessOrEqual(t, held, kills[pointStackMarked]+kills["random"])
	assert.Equal(t, counts.Stacked, n, "one credited intent per note")
}

// Kills of the cash-out test: the kiosk's own steps, and three the test
// makes: once the printer has cut the paper, at a random moment, and none.
var cashOutKillPoints = []string{
	pointVoucherIssued, "after-paper", pointVoucherPrinted, pointVoucherConfirmd, "random", "none",
}

func TestExactlyOnceCashOut(t *testing.T) {
	rng := cashRand(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "pharaon.db")
	prn, err := printersim.Start(printersim.Config{Link: filepath.Join(dir, "printer")})
	require.NoError(t, err)
	defer prn.Close()

	// The notes the player inserted, credited through their intents as the
	// kiosk does.
	var bills game.Money
	topUp := func() {
		st, err := store.Open(db)
		require.NoError(t, err)
		defer st.Close()
		credit, err := st.Credit(ctx)
		require.NoError(t, err)
		if credit > 0 {
			return
		}
		for k := 1 + rng.IntN(3); k > 0; k-- {
			denom := []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro}[rng.IntN(4)]
			in, err := st.RecordBillIntent(ctx, denom)
			require.NoError(t, err)
			_, err = st.CreditBillIntent(ctx, in.ID)
			require.NoError(t, err)
			bills += denom
		}
	}

	tries := soakRuns(cashOutTries)
	outcomes := map[string]int{}
	seen := 0 // receipts already checked
	for i := 0; i < tries; i++ {
		point := cashOutKillPoints[i%len(cashOutKillPoints)]
		topUp()
		before := readCash(t, db)
		kill := ""
		switch point {
		case "after-paper", "random", "none":
		default:
			kill = point
		}
		next := len(prn.Receipts()) + 1
		c := startChild(t, "out", db, "", prn.Path(), kill)
		c.waitReady()
		switch point {
		case "after-paper":
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := prn.WaitReceipt(wctx, next)
			cancel()
			require.NoError(t, err, "try %d: no paper", i)
			c.kill()
		case "random":
			time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
			c.kill()
		case "none":
			require.True(t, strings.HasPrefix(c.line(60*time.Second), "cashout ok"), "try %d", i)
			c.quit()
		}
		if point != "none" {
			require.True(t, c.wait(60*time.Second), "try %d (%s): the child ended by itself; stderr:\n%s", i, point, c.stderr)
		}
		// The next kiosk start settles the attempt (an unconfirmed voucher
		// is voided) and stops.
		r := startChild(t, "idle", db, "", prn.Path(), "")
		r.waitReady()
		r.quit()

		after := readCash(t, db)
		receipts := prn.Receipts()[seen:]
		seen += len(receipts)
		outcomes[checkCashOut(t, i, point, before, after, receipts)]++

		// The global balance: notes in = credit + vouchers payable.
		assert.Equal(t, bills, after.credit+after.payable, "try %d", i)
	}
	t.Logf("%d attempts: %v", tries, outcomes)
	assert.Positive(t, outcomes["printed"], "some vouchers printed")
	assert.Positive(t, outcomes["void"], "some attempts voided")
	st, err := store.Open(db)
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Verify(ctx))
}

// cashState of the store between two attempts.
type storeCash struct {
	credit   game.Money
	payable  game.Money // vouchers printed (the store's word for payable)
	vouchers []store.Voucher
}

func readCash(t *testing.T, db string) storeCash {
	t.Helper()
	st, err := store.Open(db)
	require.NoError(t, err)
	defer st.Close()
	var c storeCash
	c.credit, err = st.Credit(ctx)
	require.NoError(t, err)
	c.vouchers, err = st.Vouchers(ctx, 1_000_000, 0)
	require.NoError(t, err)
	for _, v := range c.vouchers {
		require.NotEqual(t, store.VoucherIssued, v.State, "voucher %d left unconfirmed after a start", v.ID)
		if v.State == store.VoucherPrinted {
			c.payable += v.Amount
		}
	}
	require.NoError(t, st.Verify(ctx))
	return c
}

// checkCashOut checks one attempt: the credit went to one payable voucher
// with its paper, or stayed; any paper that came out is that voucher or a
// void one.
func checkCashOut(t *testing.T, try int, point string, before, after storeCash, receipts []*printersim.Receipt) string {
	t.Helper()
	newV := len(after.vouchers) - len(before.vouchers)
	require.LessOrEqual(t, newV, 1, "try %d: one voucher per attempt", try)
	byVal := map[string]store.Voucher{}
	for _, v := range after.vouchers {
		byVal[v.Validation] = v
	}
	for _, r := range receipts {
		val := receiptValidation(r)
		if val == "" {
			// A receipt cut short before its number: nobody can be paid with it.
			require.False(t, r.Complete, "try %d: a whole voucher without a number:\n%s", try, r.Text)
			continue
		}
		v, ok := byVal[val]
		require.True(t, ok, "try %d: paper with a number the kiosk never issued: %s", try, val)
		require.Contains(t, []store.VoucherState{store.VoucherPrinted, store.VoucherVoid}, v.State)
	}
	if newV == 0 {
		require.Equal(t, before.credit, after.credit, "try %d (%s): nothing issued, the credit stays", try, point)
		require.Empty(t, receipts, "try %d: paper without a voucher", try)
		return "none issued"
	}
	v := after.vouchers[0] // newest first
	switch v.State {
	case store.VoucherPrinted:
		require.Equal(t, before.credit, v.Amount, "try %d: the voucher is the whole credit", try)
		require.Zero(t, after.credit, "try %d (%s): a payable voucher and the credit: paid twice", try, point)
		whole := false
		for _, r := range receipts {
			whole = whole || (r.Complete && receiptValidation(r) == v.Validation)
		}
		require.True(t, whole, "try %d (%s): a payable voucher that never came out whole: paid never", try, point)
		return "printed"
	case store.VoucherVoid:
		require.Equal(t, before.credit, after.credit, "try %d (%s): a void voucher, the credit stays", try, point)
		return "void"
	}
	t.Fatalf("try %d: voucher %d is %s", try, v.ID, v.State)
	return ""
}

// receiptValidation reads the validation number printed under "N° de
// validation" ("" if the paper stops before it).
func receiptValidation(r *printersim.Receipt) string {
	lines := strings.Split(r.Plain(), "\n")
	for i, l := range lines {
		if l == "N° de validation" && i+1 < len(lines) {
			return strings.ReplaceAll(lines[i+1], " ", "")
		}
	}
	return ""
}
