package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
)

// binaryEnv makes the test binary run the command itself (main, os.Exit
// and all) instead of the tests: the tests below start it as the kiosk
// would be started.
const binaryEnv = "PHARAON_TEST_BINARY"

func TestMain(m *testing.M) {
	if dir := os.Getenv(sessionKioskEnv); dir != "" {
		sessionKiosk(dir)
	}
	if os.Getenv(binaryEnv) == "1" && os.Getenv(windowEnv) == "1" {
		main() // the real window, on the tests' virtual screen (window_test.go)
		return
	}
	if os.Getenv(binaryEnv) == "1" {
		// No screen here: what would be shown is printed instead.
		nextFrame = func(f func()) { f() } // no frames without a screen
		display = func(r windowRun, _ Config) {
			ctx := r.ctx
			m, opt, _ := r.boot(func(kiosk.BootStep, bool) {})
			s := m.OnChange(func(kiosk.Snapshot) {})
			fmt.Printf("SCREEN %s %s credit=%d\n", s.State, s.Fault.Code, s.Credit)
			if opt.Voice != nil {
				fmt.Fprintln(os.Stderr, "fake display: the screens have a voice")
			}
			// What the screens call as they show that state
			// (kiosk/ui/home.go, kiosk/ui/outofservice.go).
			hook := opt.OnHome
			if s.State == kiosk.OutOfService {
				hook = opt.OnOutOfService
			}
			if hook != nil {
				hook()
			}
			if os.Getenv(holdEnv) == "1" {
				// A kiosk that keeps running until its input ends or,
				// as the window does, until SIGTERM ends ctx
				// (lock_test.go).
				ended := make(chan struct{})
				go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(ended) }()
				select {
				case <-ended:
				case <-ctx.Done():
				}
			}
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// result is how the kiosk binary ended.
type result struct {
	status         int
	stdout, stderr string
}

// runBinary runs the kiosk binary with args, on a display (that the test
// binary does not open), with its home and data under home.
func runBinary(t *testing.T, home string, args ...string) result {
	t.Helper()
	return runBinaryEnv(t, home, nil, args...)
}

// runBinaryEnv is runBinary with more of the environment (NAME=value).
func runBinaryEnv(t *testing.T, home string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{binaryEnv + "=1", "HOME=" + home, "DISPLAY=:99", "LANG=fr_FR.UTF-8", "PATH=" + os.Getenv("PATH")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	status := 0
	if errors.As(err, &exit) {
		status = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{status, stdout.String(), stderr.String()}
}

// Every start-up failure says why on stderr, shows it on the
// out-of-service screen (with no credit), exits with its own status, and
// creates nothing.
func TestBinaryStartFailures(t *testing.T) {
	dir := t.TempDir()
	notSQLite := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notSQLite, []byte("this is not a database, it is a shopping list\n"), 0o600))
	badKey := filepath.Join(dir, "bad.pub")
	require.NoError(t, os.WriteFile(badKey, []byte("not a key"), 0o600))
	fresh := filepath.Join(dir, "fresh", "pharaon.db")
	for _, c := range []struct {
		name   string
		args   []string
		status int
		fault  string
		says   []string
	}{
		{"not SQLite", []string{"-db", notSQLite}, exitStore, kiosk.FaultIntegrity, []string{"not an SQLite database"}},
		{"a directory", []string{"-db", dir}, exitStore, kiosk.FaultStore, []string{dir}},
		{"no key file", []string{"-db", fresh, "-first-install", "-keys", filepath.Join(dir, "missing.pub")}, exitKeys, kiosk.FaultKeys,
			[]string{"missing.pub"}},
		{"a bad key file", []string{"-db", fresh, "-first-install", "-keys", badKey}, exitKeys, kiosk.FaultKeys, []string{"bad.pub"}},
		{"no database", []string{"-db", fresh}, exitNoDatabase, kiosk.FaultNotInstalled, []string{"-first-install", fresh}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBinary(t, dir, c.args...)
			assert.Equal(t, c.status, r.status, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, "pharaon: cannot start: ")
			for _, s := range c.says {
				assert.Contains(t, r.stderr, s)
			}
			assert.Equal(t, fmt.Sprintf("SCREEN out_of_service %s credit=0\n", c.fault), r.stdout)
			assert.Contains(t, r.stderr, "the screens have a voice", "the out-of-service screen is said too")
			assert.NoDirExists(t, filepath.Dir(fresh), "nothing created")
			b, err := os.ReadFile(notSQLite)
			require.NoError(t, err)
			assert.Equal(t, "this is not a database, it is a shopping list\n", string(b), "the file is left as it was")
		})
	}
}

// A production kiosk creates its database on its first install only, and
// a kiosk that has run before refuses to replace a lost one; a development
// run makes its own.
func TestBinaryFirstInstall(t *testing.T) {
	dir := t.TempDir()
	etc, data := filepath.Join(dir, "etc"), filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(etc, 0o755))
	conf := filepath.Join(etc, "pharaon.conf")
	db := filepath.Join(data, "pharaon.db")
	require.NoError(t, os.WriteFile(conf, []byte("db = "+db+"\n"), 0o600))
	marker := filepath.Join(etc, installedMarker)

	// A new kiosk started without the flag is told how it is installed:
	// it has nothing to restore.
	r := runBinary(t, dir, "-config", conf)
	require.Equal(t, exitNoDatabase, r.status, r.stderr)
	assert.Contains(t, r.stderr, "-first-install")
	assert.Equal(t, "SCREEN out_of_service "+kiosk.FaultNotInstalled+" credit=0\n", r.stdout)
	for _, lang := range []ui.Lang{ui.French, ui.English} {
		says := ui.Tr{Lang: lang}.Fault(kiosk.Fault{Code: kiosk.FaultNotInstalled})
		assert.Contains(t, says, "-first-install")
		assert.NotContains(t, strings.ToLower(says), "restor", "%v", lang)
		assert.NotContains(t, strings.ToLower(says), "restaur", "%v", lang)
	}
	assert.NoFileExists(t, db)

	r = runBinary(t, dir, "-config", conf, "-first-install")
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout)
	assert.FileExists(t, db)
	assert.FileExists(t, marker, "written after the first successful start")

	r = runBinary(t, dir, "-config", conf, "-first-install")
	require.Equal(t, exitOK, r.status, "the flag left in place does nothing to a database that is there: %s", r.stderr)
	assert.Contains(t, r.stderr, "-first-install ignored")

	// The data partition is lost: the kiosk says so, flag or not.
	require.NoError(t, os.RemoveAll(data))
	for _, args := range [][]string{{"-config", conf}, {"-config", conf, "-first-install"}} {
		r = runBinary(t, dir, args...)
		assert.Equal(t, exitNoDatabase, r.status, "%q: %s", args, r.stderr)
		assert.Contains(t, r.stderr, "this kiosk has run before")
		assert.Contains(t, r.stderr, marker)
		assert.Equal(t, "SCREEN out_of_service "+kiosk.FaultNoDatabase+" credit=0\n", r.stdout)
		assert.NoDirExists(t, data, "%q: nothing created", args)
	}

	// An empty file is no database either.
	require.NoError(t, os.MkdirAll(data, 0o700))
	require.NoError(t, os.WriteFile(db, nil, 0o600))
	r = runBinary(t, dir, "-config", conf)
	assert.Equal(t, exitNoDatabase, r.status, r.stderr)

	// A development run makes its database, and no marker.
	devDB := filepath.Join(dir, "dev", "pharaon.db")
	r = runBinary(t, dir, "-dev", "-db", devDB)
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.FileExists(t, devDB)
	assert.NoFileExists(t, filepath.Join(dir, "dev", installedMarker))
}
