package harness

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeEnv makes this test binary, re-executed, a stand-in for the kiosk
// process that stops as its value says (see fakeKiosk).
const fakeEnv = "PHARAON_HARNESS_FAKE_STOP"

// fakeKiosk answers "ok {}" to each line until "quit" (it works the CPU
// without end at "spin"), then stops:
// chatty writes far more event lines than the harness's pipe buffers
// before it ends; slow works the CPU for 3 s first; hung never ends.
func fakeKiosk(mode string) int {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "quit" {
			break
		}
		for sc.Text() == "spin" {
		}
		fmt.Println("ok {}")
	}
	switch mode {
	case "chatty":
		for i := 0; i < 1000; i++ {
			fmt.Printf("event {\"n\":%d}\n", i)
		}
	case "slow":
		n := 0
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
			n++
		}
		_ = n
	case "hung":
		time.Sleep(time.Hour)
	}
	return 0
}

func startFake(t *testing.T, mode string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race every Go program sleeps a second before it exits
	// (GORACE's atexit_sleep_ms, 1000 by default): no progress, as the
	// harness reads it, longer than these tests' windows; a kiosk built
	// for the harness has no race detector.
	cmd.Env = append(os.Environ(), fakeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	p, err := startProc(cmd)
	require.NoError(t, err)
	_, err = p.call("state", 10*time.Second)
	require.NoError(t, err)
	return p
}

// A kiosk that writes more at its stop than the pipe holds still stops:
// the harness reads on while it waits (it waited for the end first, and
// the process, blocked on its full stdout, never ended).
func TestQuitReadsWhatTheKioskStillWrites(t *testing.T) {
	p := startFake(t, "chatty")
	start := time.Now()
	require.NoError(t, p.quitWithin(5*time.Second, time.Minute))
	t.Logf("stopped in %v", time.Since(start).Round(time.Millisecond))
}

// A kiosk that works longer than the stall window at its stop is waited
// for: the harness gives up on no progress, not on a fixed time.
func TestQuitWaitsWhileTheKioskWorks(t *testing.T) {
	p := startFake(t, "slow")
	start := time.Now()
	require.NoError(t, p.quitWithin(time.Second, time.Minute))
	assert.GreaterOrEqual(t, time.Since(start), 3*time.Second, "it ended after its work")
}

// A kiosk that neither works nor ends is given up after the stall window,
// and the error holds its goroutines (SIGQUIT's dump), to say where it
// hung.
func TestQuitGivesUpOnAHungKioskWithItsGoroutines(t *testing.T) {
	p := startFake(t, "hung")
	start := time.Now()
	err := p.quitWithin(time.Second, time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no progress in 1s")
	assert.Contains(t, err.Error(), "goroutine ")
	assert.True(t, strings.Contains(err.Error(), "fakeKiosk"), "the dump names where it waits: %s", err)
	assert.Less(t, time.Since(start), 30*time.Second)
	select {
	case <-p.done:
	default:
		t.Fatal("the process was left running")
	}
}

// A kiosk that works and never answers is given up at the limit, ten
// times the stall window, however busy it is.
func TestAnswerGivesUpAfterItsLimit(t *testing.T) {
	p := startFake(t, "hung")
	defer p.kill()
	start := time.Now()
	_, err := p.call("spin", 200*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no answer: still working after 2s")
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second)
}
