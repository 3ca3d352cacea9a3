package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// The crash test runs plays in a child process (this test binary,
// re-executed with crashChildEnv set, see TestMain) and kills it with
// SIGKILL at random moments. After every kill the store must open, pass
// every check of Verify (integrity_check, ledger, chains, units sold once
// and none skipped, every debit with its play, meters), hold every
// operation the child saw committed, and have at most one unfinished play,
// which the next child resumes and finishes, as the kiosk does at boot.
//
// The child's choices and the kill times come from seeded generators, so a
// failing seed replays: PHARAON_CRASH_SEED=n. PHARAON_SOAK=1 kills
// soakKills times instead of crashKills (PHARAON_SOAK_KILLS=n to choose).
const (
	crashChildEnv = "PHARAON_STORE_CRASH_CHILD" // the database path
	crashSeedEnv  = "PHARAON_STORE_CRASH_CHILD_SEED"
	crashRetryEnv = "PHARAON_STORE_CRASH_CHILD_RETRY" // bill refs tried and not acknowledged by the previous child
	crashSyncEnv  = "PHARAON_STORE_CRASH_CHILD_SYNC"  // OFF or NORMAL: the child weakens synchronous (powercut_test.go)
	crashKills    = 200
	soakKills     = 3000
)

func TestCrash(t *testing.T) {
	kills := crashKills
	if testing.Short() {
		kills = crashKills / 10 // -short: a taste of it; make test kills them all
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		kills = soakKills
		if n, err := strconv.Atoi(os.Getenv("PHARAON_SOAK_KILLS")); err == nil && n > 0 {
			kills = n
		}
	}
	seed := uint64(20260301)
	if v := os.Getenv("PHARAON_CRASH_SEED"); v != "" {
		var err error
		seed, err = strconv.ParseUint(v, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("seed %d, %d kills", seed, kills)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	// One block: integrity_check reads the whole file after every kill.
	path := copyAnchoredTo(t, anchoredTemplateWith(t, block050), t.TempDir())

	acked := newAcks()
	var retry []string // bill refs a child tried and was killed before acknowledging
	var stats struct{ midPlay, midCommit, duringOpen, afterPlay int }
	start := time.Now()
	var childTime, checkTime time.Duration
	for round := 0; round < kills; round++ {
		childSeed := rng.Uint64()
		// Most kills land while the child plays; some during its start-up
		// (opening the store, resuming the unfinished play). Half of those
		// after the start wait for the child's first play: whatever the
		// machine's speed, the children play.
		after := killAfter(rng)
		if after == afterPlay {
			stats.afterPlay++
		}
		delay := time.Duration(rng.IntN(80_000)) * time.Microsecond
		t0 := time.Now()
		out, ready := runAndKill(t, path, childSeed, retry, after, delay)
		childTime += time.Since(t0)
		if !ready {
			stats.duringOpen++
		}
		tried, inOp := acked.read(t, out)
		retry = tried
		if inOp {
			stats.midCommit++
		}

		t0 = time.Now()
		s, err := Open(path, WithAnchor(DefaultAnchor(path)))
		require.NoError(t, err, "round %d (child seed %d): open after the kill", round, childSeed)
		ctx := context.Background()
		require.NoError(t, s.Verify(ctx), "round %d (child seed %d)", round, childSeed)
		_, err = s.Anchor()
		require.NoError(t, err, "round %d: the heads as anchored, after the kill", round)
		unfinished := acked.check(t, s, round, childSeed)
		if unfinished {
			stats.midPlay++
		}
		require.NoError(t, s.Close())
		checkTime += time.Since(t0)
	}
	t.Logf("children %v, checks %v", childTime, checkTime)
	t.Logf("%d kills in %v: %d plays, %d bills, %d vouchers committed; killed %d times with a play unfinished, %d times inside a store call, %d times before the child was ready",
		kills, time.Since(start).Round(time.Millisecond), len(acked.started), len(acked.bills), len(acked.vouchers),
		stats.midPlay, stats.midCommit, stats.duringOpen)
	require.GreaterOrEqual(t, len(acked.started), stats.afterPlay, "the children played")
	require.Greater(t, stats.midPlay, 0, "some kills interrupted a play")
}

// What a child is killed after: its start (afterStart), its word that it
// is ready (afterReady), or its first play started (afterPlay). A kill
// counted from the child's progress, not from the clock, happens at the
// same point on a loaded machine as on an idle one.
const (
	afterStart = ""
	afterReady = "ready"
	afterPlay  = "started "
)

// killAfter draws where a child is killed: one in five during its start,
// the others after it is ready, half of them after its first play.
func killAfter(rng *rand.Rand) string {
	switch {
	case rng.IntN(5) == 0:
		return afterStart
	case rng.IntN(2) == 0:
		return afterPlay
	}
	return afterReady
}

// runAndKill starts a child on the database and kills it with SIGKILL
// delay after the first line of its output that begins with after (after
// it started, for afterStart), returning its output and whether it was
// ready; env is added to the child's environment.
func runAndKill(t *testing.T, path string, seed uint64, retry []string, after string, delay time.Duration, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("%s=%d", crashSeedEnv, seed),
		crashRetryEnv+"="+strings.Join(retry, ","))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 1024)
	var out strings.Builder
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ready := false
	if after != afterStart {
		timeout := time.After(30 * time.Second)
		seen := false
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				out.WriteString(l + "\n")
				ready = ready || l == "ready"
				if strings.HasPrefix(l, after) {
					seen = true
					break wait
				}
			case <-timeout:
				break wait
			}
		}
		if !seen {
			_ = cmd.Process.Kill()
			for l := range lines {
				out.WriteString(l + "\n")
			}
			_ = cmd.Wait() // stderr is complete once Wait returned
			t.Fatalf("child never printed %q: %s\n%s", after, out.String(), stderr.String())
		}
	}
	time.Sleep(delay)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	for l := range lines {
		out.WriteString(l + "\n")
		if l == "ready" {
			ready = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "child ended with %v", err)
	status, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok && status.Signaled() && status.Signal() == syscall.SIGKILL,
		"the child must be running when killed, it ended: %v\n%s\n%s", err, out.String(), stderr.String())
	return out.String(), ready
}

// acks accumulates what the children reported committed.
type acks struct {
	started, finished map[int64]bool
	bills, vouchers   map[string]bool
}

func newAcks() *acks {
	return &acks{started: map[int64]bool{}, finished: map[int64]bool{}, bills: map[string]bool{}, vouchers: map[string]bool{}}
}

// read takes in a child's output and returns the bill refs it tried and
// did not acknowledge, and whether it was killed inside a store call.
func (a *acks) read(t *testing.T, out string) ([]string, bool) {
	t.Helper()
	tried := map[string]bool{}
	inOp := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		inOp = f[0] == "call" || f[0] == "try-bill"
		if len(f) != 2 {
			continue
		}
		id, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "started":
			a.started[id] = true
		case "finished":
			a.finished[id] = true
		case "try-bill":
			tried[f[1]] = true
		case "bill":
			a.bills[f[1]] = true
			delete(tried, f[1])
		case "voucher":
			a.vouchers[f[1]] = true
		case "error":
			t.Fatalf("child failed: %s", out)
		}
	}
	var refs []string
	for r := range tried {
		refs = append(refs, r)
	}
	return refs, inOp
}

// check verifies that everything acknowledged is in the store and returns
// whether a play is unfinished.
func (a *acks) check(t *testing.T, s *Store, round int, seed uint64) bool {
	t.Helper()
	ctx := context.Background()
	states := map[int64]PlayState{}
	rows, err := s.r.Query(`SELECT id, state FROM plays`)
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		var st string
		require.NoError(t, rows.Scan(&id, &st))
		states[id] = PlayState(st)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for id := range a.started {
		st, ok := states[id]
		require.True(t, ok, "round %d (child seed %d): acknowledged play %d is lost", round, seed, id)
		if a.finished[id] {
			require.Equal(t, PlayFinished, st, "round %d (child seed %d): acknowledged finish of play %d", round, seed, id)
		}
	}
	refs := map[string]int{}
	rows, err = s.r.Query(`SELECT kind, ref FROM ledger WHERE ref IS NOT NULL`)
	require.NoError(t, err)
	for rows.Next() {
		var kind, ref string
		require.NoError(t, rows.Scan(&kind, &ref))
		refs[kind+" "+ref]++
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for _, set := range []struct {
		kind Kind
		refs map[string]bool
	}{{KindBillIn, a.bills}, {KindVoucherOut, a.vouchers}} {
		for ref := range set.refs {
			require.Equal(t, 1, refs[string(set.kind)+" "+ref], "round %d (child seed %d): acknowledged %s %s", round, seed, set.kind, ref)
		}
	}
	// The ledger balances: the credit is the sum of the movements.
	var sum int64
	require.NoError(t, s.r.QueryRow(`SELECT coalesce(sum(amount), 0) FROM ledger`).Scan(&sum))
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	require.Equal(t, game.Money(sum), credit, "round %d", round)
	un, err := s.UnfinishedPlays(ctx)
	require.NoError(t, err)
	require.LessOrEqual(t, len(un), 1, "round %d", round)
	return len(un) == 1
}

// crashChild is the child process: it resumes the unfinished play, retries
// the bank notes its predecessor did not see committed (the same
// references: each is credited exactly once), then plays until killed,
// printing each operation once committed.
func crashChild(path string) {
	fail := func(err error) {
		fmt.Printf("error %v\n", strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(3)
	}
	seed, err := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	if err != nil {
		fail(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	// Anchored, as the kiosk opens its store: the heads beside the file
	// must follow every kill (and every power cut, store/powercut_test.go).
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	if err != nil {
		fail(err)
	}
	switch sync := os.Getenv(crashSyncEnv); sync {
	case "":
	case "OFF", "NORMAL":
		// Only the power-cut test's proof that it can see a loss: the
		// writer connection, the only one that commits, stops syncing.
		if _, err := s.wc.ExecContext(ctx, "PRAGMA synchronous = "+sync); err != nil {
			fail(err)
		}
	default:
		fail(fmt.Errorf("%s=%q: OFF or NORMAL", crashSyncEnv, sync))
	}
	// Each store call is announced ("call") before it is made, and its
	// result printed once it returned: a kill between the two hit the call.
	call := func() { fmt.Println("call") }
	finish := func(p Play) {
		if p.State == PlayStarted && rng.IntN(2) == 0 {
			call()
			if err := s.SetPlayState(ctx, p.ID, PlayMainDone); err != nil {
				fail(err)
			}
			fmt.Println("main_done")
			p.State = PlayMainDone
		}
		if p.ViaBonus && p.State != PlayBonus {
			call()
			if err := s.SetPlayState(ctx, p.ID, PlayBonus); err != nil {
				fail(err)
			}
			fmt.Println("bonus")
		}
		call()
		if _, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize,
			Recording: []byte(fmt.Sprintf("inputs of play %d", p.ID))}); err != nil {
			fail(err)
		}
		fmt.Printf("finished %d\n", p.ID)
	}
	un, err := s.UnfinishedPlays(ctx)
	if err != nil {
		fail(err)
	}
	for _, p := range un {
		finish(p)
	}
	bill := func(ref string) {
		fmt.Printf("try-bill %s\n", ref)
		_, err := s.BillIn(ctx, 20*game.Euro, ref)
		if err != nil && !errors.Is(err, ErrDuplicateRef) {
			fail(err)
		}
		fmt.Printf("bill %s\n", ref)
	}
	if r := os.Getenv(crashRetryEnv); r != "" {
		for _, ref := range strings.Split(r, ",") {
			bill(ref)
		}
	}
	fmt.Println("ready")
	for n := 0; ; n++ {
		credit, err := s.Credit(ctx)
		if err != nil {
			fail(err)
		}
		switch op := rng.IntN(20); {
		case credit < 2*game.Euro:
			bill(fmt.Sprintf("note-%d-%d", seed, n))
		case op == 0:
			ref := fmt.Sprintf("V-%d-%d", seed, n)
			call()
			if _, err := s.VoucherOut(ctx, credit/2, ref); err != nil {
				fail(err)
			}
			fmt.Printf("voucher %s\n", ref)
		case op == 1:
			call()
			if _, err := s.Log(ctx, Event{Level: LevelInfo, Source: "crash", Code: "tick", Detail: fmt.Sprint(n)}); err != nil {
				fail(err)
			}
			fmt.Println("logged")
		default:
			call()
			p, err := s.StartPlay(ctx, PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1})
			if err != nil {
				fail(err)
			}
			fmt.Printf("started %d\n", p.ID)
			if rng.IntN(3) == 0 {
				call()
				if err := s.SaveRecording(ctx, p.ID, []byte("half a wall")); err != nil {
					fail(err)
				}
				fmt.Println("recorded")
			}
			finish(p)
		}
	}
}
