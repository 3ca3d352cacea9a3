package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/hw/validator"
	"pharaon/store"
)

// The fault harness over the headless kiosk. The kiosk runs in a child
// process: cmd/pharaon-harness kiosk, built for the test without the race
// detector (under it, the boot check's signature checks alone take seconds,
// at every restart); with PHARAON_HARNESS_SELF=1, this test binary
// re-executed (see TestMain).
// make test runs about 200 faults, -short 40; PHARAON_SOAK=1 runs 3 000
// (PHARAON_HARNESS_FAULTS=n to choose); PHARAON_HARNESS_SEED=n replays a
// run's random choices (the kill moments are drawn in the durations the
// run measured, so a replay kills at nearly, not exactly, the same points).

const childEnv = "PHARAON_HARNESS_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(ServeChild(os.Stdin, os.Stdout, os.Stderr))
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeKiosk(mode))
	}
	code := m.Run()
	if child.dir != "" {
		os.RemoveAll(child.dir)
	}
	os.Exit(code)
}

// child is the headless kiosk's binary, built once for the package's
// tests: without the race detector, with the tag pharaon_weaksync, which
// adds only store.WeakenSync (used when the harness asks for
// synchronous=OFF, TestFaultHarnessPowerCutSeesLossWithoutSync).
var child struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// kioskCommand is the command of a headless kiosk process.
func kioskCommand(t *testing.T) func() *exec.Cmd {
	t.Helper()
	if os.Getenv("PHARAON_HARNESS_SELF") != "" {
		require.True(t, store.WeakSyncBuilt || os.Getenv(EnvSync) == "", "PHARAON_HARNESS_SELF: test with -tags pharaon_weaksync")
		return func() *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			return cmd
		}
	}
	child.once.Do(func() {
		if child.dir, child.err = os.MkdirTemp("", "pharaon-harness-bin-"); child.err != nil {
			return
		}
		child.bin = filepath.Join(child.dir, "pharaon-harness")
		build := exec.Command("go", "build", "-tags", "pharaon_weaksync", "-o", child.bin, "pharaon/cmd/pharaon-harness")
		child.out, child.err = build.CombinedOutput()
	})
	require.NoError(t, child.err, "go build: %s", child.out)
	return func() *exec.Cmd { return exec.Command(child.bin, "kiosk") }
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, name)
	return n
}

// The fault harness runs against each family of bill validator, its
// figures reported for each.
func TestFaultHarness(t *testing.T) {
	for _, f := range validator.Families() {
		t.Run(string(f), func(t *testing.T) { faultHarness(t, f) })
	}
}

func faultHarness(t *testing.T, f validator.Family) {
	faults := 200
	if testing.Short() {
		faults = 40
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		faults = 3000
	}
	faults = envInt(t, "PHARAON_HARNESS_FAULTS", faults)
	seed := uint64(envInt(t, "PHARAON_HARNESS_SEED", 1))
	rep, err := Run(context.Background(), Config{
		Dir:     t.TempDir(),
		Family:  f,
		Faults:  faults,
		Seed:    seed,
		Command: kioskCommand(t),
		Tmpfs:   os.Geteuid() == 0,
		Logf:    t.Logf,
	})
	if rep != nil {
		t.Logf("fault harness:\n%s", rep)
	}
	require.NoError(t, err)
	require.True(t, rep.OK(), "broken invariants:\n%s", rep)
	require.Zero(t, rep.CentsLost)
	require.Zero(t, rep.DoubleCredits)
	require.Zero(t, rep.UnitsLost)
	require.Equal(t, faults, rep.total())
}

// TestSecretsCheckFinds: the logs' check finds a PIN and a validation
// number as whole numbers, not inside longer ones.
func TestSecretsCheckFinds(t *testing.T) {
	r := &run{rep: &Report{}, validations: map[string]bool{"123456789012345678": true}}
	r.secrets("a log", "note 1111110 credited, intent 2111111, amount 111 111 €")
	require.Empty(t, r.rep.Problems, "no PIN there")
	r.secrets("a log", "login with 777777 refused")
	r.secrets("a log", "voucher 123456789012345678 printed")
	require.Len(t, r.rep.Problems, 2, "%v", r.rep.Problems)
}
