package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
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
		c, err := KioskFromEnv()
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(2)
		}
		os.Exit(ServeKiosk(c, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
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

func TestFaultHarness(t *testing.T) {
	faults := 200
	if testing.Short() {
		faults = 40
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		faults = 3000
	}
	faults = envInt(t, "PHARAON_HARNESS_FAULTS", faults)
	seed := uint64(envInt(t, "PHARAON_HARNESS_SEED", 1))
	command := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		return cmd
	}
	if os.Getenv("PHARAON_HARNESS_SELF") == "" {
		bin := filepath.Join(t.TempDir(), "pharaon-harness")
		build := exec.Command("go", "build", "-o", bin, "pharaon/cmd/pharaon-harness")
		out, err := build.CombinedOutput()
		require.NoError(t, err, "go build: %s", out)
		command = func() *exec.Cmd { return exec.Command(bin, "kiosk") }
	}
	rep, err := Run(context.Background(), Config{
		Dir:     t.TempDir(),
		Faults:  faults,
		Seed:    seed,
		Command: command,
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
	r.secrets("a log", "note 11110 credited, intent 21111, amount 1 111 €")
	require.Empty(t, r.rep.Problems, "no PIN there")
	r.secrets("a log", "login with 7777 refused")
	r.secrets("a log", "voucher 123456789012345678 printed")
	require.Len(t, r.rep.Problems, 2, "%v", r.rep.Problems)
}
