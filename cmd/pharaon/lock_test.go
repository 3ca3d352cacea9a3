package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// holdEnv keeps the test binary's kiosk running, once its screen is
// shown, until its input ends (main_test.go).
const holdEnv = "PHARAON_TEST_HOLD"

// lockKiosk is a production kiosk's configuration, its database made by
// a first import of block 7/11; block 7/12 is waiting in a second file.
type lockKiosk struct {
	dir, conf, db string
	next          string // the block file 7/12
}

func newLockKiosk(t *testing.T) lockKiosk {
	t.Helper()
	dir := t.TempDir()
	keyFile := issuerKeyFile(t, filepath.Join(dir, "etc"))
	k := lockKiosk{dir: dir, conf: filepath.Join(dir, "etc", "pharaon.conf"), db: filepath.Join(dir, "data", "pharaon.db")}
	require.NoError(t, os.WriteFile(k.conf, []byte("db = "+k.db+"\nkeys = "+keyFile+"\n"), 0o600))
	blockFile := func(name string, number uint32) string {
		var buf bytes.Buffer
		require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake050, number, nil))
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return path
	}
	first := blockFile("b1.blk", 11)
	k.next = blockFile("b2.blk", 12)
	_, stderr, err := k.command("import", "-first-install", first)
	require.NoError(t, err, stderr)
	return k
}

// command runs a subcommand of the binary in this process.
func (k lockKiosk) command(name string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	err = run(context.Background(), append([]string{name, "-config", k.conf}, args...), mapEnv{"HOME": k.dir}, &out, &errb, time.Now())
	return out.String(), errb.String(), err
}

// files reads the database, its WAL, its anchor and its trust root's
// files (beside the configuration, where the first-install marker is).
func (k lockKiosk) files(t *testing.T) map[string][]byte {
	t.Helper()
	a := store.DefaultAnchor(k.db)
	trust := filepath.Dir(k.conf)
	files := map[string][]byte{}
	for _, p := range []string{k.db, k.db + "-wal", a.Path, filepath.Join(trust, "trust.secret"), filepath.Join(trust, "trust.counter")} {
		b, err := os.ReadFile(p)
		if !errors.Is(err, os.ErrNotExist) {
			require.NoError(t, err)
		}
		files[filepath.Base(p)] = b
	}
	return files
}

// blocks lists the blocks of the (closed) database.
func (k lockKiosk) blocks(t *testing.T) string {
	t.Helper()
	out, stderr, err := k.command("blocks", "-lang", "en")
	require.NoError(t, err, stderr)
	return out
}

// The technician's commands on a database another opener holds (here a
// Store of this process) are refused with a sentence saying what to do,
// and change nothing: not a byte of the database or of its anchor, not an
// event. The holder goes on writing, its anchor intact, and the command
// works once it is closed.
func TestCommandsRefusedOnAHeldStore(t *testing.T) {
	ctx := context.Background()
	k := newLockKiosk(t)
	a := store.DefaultAnchor(k.db)
	a.TrustDir = filepath.Dir(k.conf) // as the kiosk of this configuration opens it
	holder, err := store.Open(k.db, store.WithAnchor(a), store.WithCreate(false))
	require.NoError(t, err)
	t.Cleanup(func() { holder.Close() })
	_, err = holder.BillIn(ctx, 10*game.Euro, "note-1")
	require.NoError(t, err)
	v, err := holder.IssueVoucher(ctx, store.VoucherRequest{Amount: 10 * game.Euro, Validation: "123456789012345678",
		Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = holder.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	events, err := holder.Events(ctx, 1000, 0)
	require.NoError(t, err)
	files := k.files(t)

	me := filepath.Base(os.Args[0])
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"import", k.next}, fmt.Sprintf("pharaon import: la commande «\u00a0%s\u00a0» (processus %d) tient la base %s\u00a0: "+
			"attendez qu’elle finisse, puis recommencez\u00a0; rien n’a été modifié\n", me, os.Getpid(), k.db)},
		{[]string{"import", "-lang", "en", k.next}, fmt.Sprintf("pharaon import: the command `%s` (process %d) holds the database %s: "+
			"wait for it to finish, then try again; nothing was changed\n", me, os.Getpid(), k.db)},
		{[]string{"blocks"}, fmt.Sprintf("pharaon blocks: la commande «\u00a0%s\u00a0» (processus %d) tient la base", me, os.Getpid())},
		{[]string{"backup", filepath.Join(k.dir, "save")}, fmt.Sprintf("pharaon backup: la commande «\u00a0%s\u00a0» (processus %d) tient la base %s\u00a0: "+
			"attendez qu’elle finisse, puis recommencez\u00a0; rien n’a été modifié\n", me, os.Getpid(), k.db)},
	} {
		stdout, stderr, err := k.command(c.args[0], c.args[1:]...)
		assert.Equal(t, exitStore, exitCode(err), "%q: %v", c.args, err)
		assert.ErrorIs(t, err, store.ErrLocked)
		assert.Contains(t, stderr, c.says, "%q", c.args)
		assert.Empty(t, stdout, "%q", c.args)
	}
	assert.Equal(t, files, k.files(t), "not a byte changed")
	assert.NoDirExists(t, filepath.Join(k.dir, "save"), "no backup begun")
	now, err := holder.Events(ctx, 1000, 0)
	require.NoError(t, err)
	assert.Equal(t, events, now, "not an event logged")

	// The holder goes on: a staff payout, which re-reads the heads and
	// the anchor file (had a second writer moved them, the store would
	// refuse it and every write after: fault anchor), its boot check
	// passing.
	_, err = holder.PayVoucher(ctx, v.Validation, "staff")
	require.NoError(t, err)
	require.NoError(t, holder.AnchorErr())
	_, err = holder.VerifyBoot(ctx)
	require.NoError(t, err)
	require.NoError(t, holder.Close())

	assert.NotContains(t, k.blocks(t), "7/12")
	stdout, stderr, err := k.command("import", k.next)
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, "bloc 7/12")
}

// runningKiosk is the kiosk binary of k running (holdEnv) until its input
// is closed or it is sent SIGTERM.
type runningKiosk struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *syncBuffer
}

// startKiosk starts the binary as the kiosk of k, named pharaon as it is
// installed, and waits for its home screen.
func startKiosk(t *testing.T, k lockKiosk) runningKiosk {
	t.Helper()
	bin := filepath.Join(k.dir, "bin", "pharaon")
	if _, err := os.Lstat(bin); err != nil {
		require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
		require.NoError(t, os.Symlink(os.Args[0], bin))
	}
	kioskCmd := exec.Command(bin, "-config", k.conf)
	kioskCmd.Env = []string{binaryEnv + "=1", holdEnv + "=1", "HOME=" + k.dir, "DISPLAY=:99", "LANG=fr_FR.UTF-8", "PATH=" + os.Getenv("PATH")}
	in, err := kioskCmd.StdinPipe()
	require.NoError(t, err)
	out, err := kioskCmd.StdoutPipe()
	require.NoError(t, err)
	kioskErr := &syncBuffer{}
	kioskCmd.Stderr = kioskErr
	require.NoError(t, kioskCmd.Start())
	t.Cleanup(func() { _ = kioskCmd.Process.Kill() })
	screen := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l := sc.Text(); len(l) > 6 && l[:6] == "SCREEN" {
				screen <- l
			}
		}
		close(screen)
	}()
	select {
	case l := <-screen:
		require.Equal(t, "SCREEN home  credit=0", l, kioskErr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the kiosk did not start: %s", kioskErr.String())
	}
	return runningKiosk{kioskCmd, in, kioskErr}
}

// While the kiosk runs (another process, the binary itself), the
// technician's commands and a second kiosk are refused, saying that the
// kiosk runs, with its process id, and how to stop it; they change
// nothing, and the kiosk, stopped, starts again in service: no anchor
// fault from two writers.
func TestCommandsRefusedWhileTheKioskRuns(t *testing.T) {
	k := newLockKiosk(t)
	rk := startKiosk(t, k)
	kioskCmd, in, kioskErr := rk.cmd, rk.in, rk.stderr
	pid := kioskCmd.Process.Pid

	_, stderr, err := k.command("import", k.next)
	assert.Equal(t, exitStore, exitCode(err))
	assert.Contains(t, stderr, fmt.Sprintf("pharaon import: la borne est en marche (processus %d) et tient la base %s\u00a0: "+
		"arrêtez-la d’abord avec «\u00a0systemctl stop pharaon\u00a0», puis recommencez\u00a0; rien n’a été modifié\n", pid, k.db))
	r := runBinary(t, k.dir, "backup", "-config", k.conf, filepath.Join(k.dir, "save"))
	assert.Equal(t, exitStore, r.status, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("pharaon backup: la borne est en marche (processus %d) et tient la base %s", pid, k.db))
	assert.NoDirExists(t, filepath.Join(k.dir, "save"), "no backup begun")
	r = runBinary(t, k.dir, "blocks", "-config", k.conf, "-lang", "en")
	assert.Equal(t, exitStore, r.status, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("pharaon blocks: the kiosk is running (process %d) and holds the database %s: "+
		"stop it with `systemctl stop pharaon` first, then try again; nothing was changed\n", pid, k.db))
	r = runBinary(t, k.dir, "-config", k.conf)
	assert.Equal(t, exitStore, r.status, r.stderr)
	assert.Equal(t, "SCREEN out_of_service store credit=0\n", r.stdout, "a second kiosk is out of service, saying why")
	assert.Contains(t, r.stderr, fmt.Sprintf("pharaon: cannot start: la borne est en marche (processus %d)", pid))

	// The kiosk stops cleanly (its last writes after the refusals), and
	// starts again in service.
	require.NoError(t, in.Close())
	require.NoError(t, kioskCmd.Wait(), kioskErr.String())
	assert.NotContains(t, k.blocks(t), "7/12", "the refused import changed nothing")
	r = runBinary(t, k.dir, "-config", k.conf)
	assert.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout, "no anchor fault: %s", r.stderr)
}
