package helper

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/update"
)

// fakeSys is a machine whose mounts the test names and whose actions it
// records.
type fakeSys struct {
	mu         sync.Mutex
	mounts     []Mount
	calls      []string
	unmountErr error
	journal    string
	journalErr error
}

func (f *fakeSys) Mounts() ([]Mount, error) { return f.mounts, nil }

func (f *fakeSys) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeSys) Remount(_ context.Context, dir string, writable bool) error {
	f.record(fmt.Sprintf("remount %s rw=%v", filepath.Base(dir), writable))
	return nil
}

func (f *fakeSys) Unmount(_ context.Context, dir string) error {
	f.record("unmount " + filepath.Base(dir))
	return f.unmountErr
}

func (f *fakeSys) Journal(_ context.Context, w io.Writer) error {
	if f.journalErr != nil {
		return f.journalErr
	}
	_, err := io.WriteString(w, f.journal)
	return err
}

func (f *fakeSys) About(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, "Debian GNU/Linux 12\n")
	return err
}

func (f *fakeSys) Free(string) (int64, error) { return 4 << 30, nil }

// fakeInstaller verifies nothing: it records the bundle and answers what
// the test set.
type fakeInstaller struct {
	got []string
	err error
	// pending is the system waiting in the other slot ("": none);
	// switched counts the restarts asked.
	pending  string
	switched int
}

func (f *fakeInstaller) Switch(context.Context) (Update, error) {
	if f.pending == "" {
		return Update{}, &Error{Code: CodeNoSystem, Detail: "no system waits in the other slot"}
	}
	f.switched++
	return Update{Package: "pharaon", Version: f.pending, From: "1.3.0"}, nil
}

func (f *fakeInstaller) Install(_ context.Context, bundle string, check bool) (Update, error) {
	f.got = append(f.got, fmt.Sprintf("%s check=%v", filepath.Base(bundle), check))
	if f.err != nil {
		return Update{}, f.err
	}
	return Update{Package: "pharaon", Version: "1.4.0", From: "1.3.0", Key: "0a1b2c3d4e5f6071"}, nil
}

func (f *fakeInstaller) Reason(err error) string { return update.Reason(err) }

// kit is a media directory with one stick, sda1, mounted on it, beside
// mounts that are not sticks.
type kit struct {
	media, stick string
	sys          *fakeSys
	inst         *fakeInstaller
	srv          *Server
}

func newKit(t *testing.T) *kit {
	t.Helper()
	root := t.TempDir()
	media := filepath.Join(root, "media")
	stick := filepath.Join(media, "sda1")
	for _, d := range []string{stick, filepath.Join(media, "sdb1", "inner"), filepath.Join(root, "srv")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	sys := &fakeSys{journal: "Dec 03 kiosk started\n", mounts: []Mount{
		{Dir: "/", Source: "/dev/vda2", FSType: "ext4"},
		{Dir: media, Source: "tmpfs", FSType: "tmpfs"},
		{Dir: stick, Source: "/dev/sda1", FSType: "vfat", Options: []string{"ro", "nosuid", "nodev", "noexec"}},
		{Dir: filepath.Join(media, "sdb1", "inner"), Source: "/dev/sdb1", FSType: "vfat"},
		{Dir: filepath.Join(root, "srv"), Source: "/dev/sdc1", FSType: "ext4"},
	}}
	inst := &fakeInstaller{}
	loc := time.FixedZone("CET", 3600)
	srv := &Server{Media: media, Sys: sys, Updates: inst,
		Now: func() time.Time { return time.Date(2026, 12, 3, 9, 30, 15, 0, loc) }}
	return &kit{media: media, stick: stick, sys: sys, inst: inst, srv: srv}
}

func (k *kit) put(t *testing.T, rel, data string) {
	t.Helper()
	p := filepath.Join(k.stick, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
}

func (k *kit) do(req Request) (Reply, []string) {
	var steps []string
	rep := k.srv.do(context.Background(), req, func(s string) { steps = append(steps, s) })
	return rep, steps
}

func TestSticksAreTheBlockDevicesMountedRightUnderTheMediaDirectory(t *testing.T) {
	k := newKit(t)
	k.put(t, "pharaon_1.4.0_amd64.update", "x")
	k.put(t, "kiosk/PHARAON_1.5.0_AMD64.UPDATE", "x")
	k.put(t, "a/b/c/too-deep.update", "x")
	k.put(t, ".hidden/x.update", "x")
	k.put(t, "block.pblk", "x")
	rep, _ := k.do(Request{Op: OpSticks})
	require.Empty(t, rep.Code, rep.Detail)
	require.Len(t, rep.Sticks, 1, "only sda1 is a stick: /media is tmpfs, sdb1's mount is deeper, sdc1 elsewhere")
	st := rep.Sticks[0]
	assert.Equal(t, "sda1", st.Name)
	assert.Equal(t, "/dev/sda1", st.Device)
	assert.Equal(t, []string{filepath.Join("kiosk", "PHARAON_1.5.0_AMD64.UPDATE"), "pharaon_1.4.0_amd64.update"}, st.Updates)
	assert.Equal(t, int64(4<<30), st.Free)
}

func TestNothingOutsideAMountedStickIsTouched(t *testing.T) {
	k := newKit(t)
	outside := filepath.Join(filepath.Dir(k.media), "outside.update")
	require.NoError(t, os.WriteFile(outside, []byte("x"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(k.stick, "link.update")))
	k.put(t, "dir.update/x", "x")
	for _, c := range []struct {
		req  Request
		code string
	}{
		{Request{Op: OpInstall, Stick: "sda1", File: "../outside.update"}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: "../../media/sda1/../outside.update"}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: outside}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: "link.update"}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: "dir.update"}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: "missing.update"}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sda1", File: ""}, CodeNoFile},
		{Request{Op: OpInstall, Stick: "sdz9", File: "x.update"}, CodeNoStick},
		{Request{Op: OpInstall, Stick: "..", File: "outside.update"}, CodeNoStick},
		{Request{Op: OpInstall, Stick: "sdb1", File: "x.update"}, CodeNoStick},
		{Request{Op: OpExport, Stick: "sda1/..", Kiosk: "PH-1"}, CodeNoStick},
		{Request{Op: OpExport, Stick: "", Kiosk: "PH-1"}, CodeNoStick},
		{Request{Op: OpEject, Stick: "media"}, CodeNoStick},
		{Request{Op: "shell", Stick: "sda1"}, CodeRequest},
	} {
		rep, _ := k.do(c.req)
		assert.Equal(t, c.code, rep.Code, "%+v: %s", c.req, rep.Detail)
	}
	assert.Empty(t, k.inst.got, "no bundle reached the installer")
	assert.Empty(t, k.sys.calls, "nothing remounted or unmounted")
}

func TestInstallGoesThroughTheInstallersChecks(t *testing.T) {
	k := newKit(t)
	k.put(t, "updates/pharaon_1.4.0_amd64.update", "bundle")

	rep, steps := k.do(Request{Op: OpCheck, Stick: "sda1", File: "updates/pharaon_1.4.0_amd64.update"})
	require.Empty(t, rep.Code, rep.Detail)
	assert.Equal(t, "1.4.0", rep.Update.Version)
	assert.Equal(t, []string{StepVerifying}, steps)

	rep, steps = k.do(Request{Op: OpInstall, Stick: "sda1", File: "updates/pharaon_1.4.0_amd64.update"})
	require.Empty(t, rep.Code, rep.Detail)
	assert.Equal(t, "1.3.0", rep.Update.From)
	assert.Equal(t, []string{StepVerifying, StepInstalling}, steps)
	assert.Equal(t, []string{"pharaon_1.4.0_amd64.update check=true", "pharaon_1.4.0_amd64.update check=false"}, k.inst.got)

	for _, c := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("bundle: %w", update.ErrDowngrade), "downgrade"},
		{fmt.Errorf("bundle: %w", update.ErrUntrusted), "untrusted"},
		{fmt.Errorf("dpkg: %w", update.ErrRolledBack), "rolledback"},
		{errors.New("dpkg: exit status 2"), CodeUpdate},
	} {
		k.inst.err = c.err
		rep, _ = k.do(Request{Op: OpInstall, Stick: "sda1", File: "updates/pharaon_1.4.0_amd64.update"})
		assert.Equal(t, c.code, rep.Code)
		assert.Contains(t, rep.Detail, c.err.Error())
	}
	assert.Empty(t, k.sys.calls)
}

func TestExportWritesAFolderAndLeavesTheStickReadOnly(t *testing.T) {
	k := newKit(t)
	rep, steps := k.do(Request{Op: OpExport, Stick: "sda1", Kiosk: "PH-0042 / Lyon", Files: []File{
		{Name: "events.csv", Data: []byte("id,at,level\n1,2026-12-03,info\n")},
		{Name: "diagnostic.txt", Data: []byte("Version 1.3.0\n")},
	}})
	require.Empty(t, rep.Code, rep.Detail)
	ex := rep.Exported
	assert.Equal(t, "pharaon-PH-0042-Lyon-20261203-093015", ex.Folder)
	assert.Equal(t, []string{"events.csv", "diagnostic.txt", JournalFile, SystemFile, SumsFile}, ex.Files)
	assert.Equal(t, []string{StepWriting, StepSyncing}, steps)
	assert.Equal(t, []string{"remount sda1 rw=true", "remount sda1 rw=false"}, k.sys.calls)

	dir := filepath.Join(k.stick, ex.Folder)
	got := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, "Dec 03 kiosk started\n", got(JournalFile))
	assert.Equal(t, "Version 1.3.0\n", got("diagnostic.txt"))
	// SHA256SUMS is what sha256sum -c reads, one line a file.
	sums := strings.Split(strings.TrimSpace(got(SumsFile)), "\n")
	require.Len(t, sums, 4)
	for _, line := range sums {
		sum, name, ok := strings.Cut(line, "  ")
		require.True(t, ok, line)
		h := sha256.Sum256([]byte(got(name)))
		assert.Equal(t, hex.EncodeToString(h[:]), sum, name)
	}

	// The same second again: the folder exists, nothing is overwritten.
	k.sys.calls = nil
	rep, _ = k.do(Request{Op: OpExport, Stick: "sda1", Kiosk: "PH-0042 / Lyon"})
	assert.Equal(t, CodeWrite, rep.Code, rep.Detail)
	assert.Equal(t, []string{"remount sda1 rw=true", "remount sda1 rw=false"}, k.sys.calls, "read-only again after a failure")
	assert.Equal(t, "Version 1.3.0\n", got("diagnostic.txt"))
}

func TestExportRefusesFileNamesThatLeaveItsFolder(t *testing.T) {
	k := newKit(t)
	for _, name := range []string{"../events.csv", ".profile", "a/b", JournalFile, SumsFile, "", strings.Repeat("x", 65)} {
		rep, _ := k.do(Request{Op: OpExport, Stick: "sda1", Kiosk: "PH-1", Files: []File{{Name: name}}})
		assert.Equal(t, CodeRequest, rep.Code, "%q", name)
	}
	rep, _ := k.do(Request{Op: OpExport, Stick: "sda1", Kiosk: "PH-1", Files: []File{{Name: "a.txt"}, {Name: "a.txt"}}})
	assert.Equal(t, CodeRequest, rep.Code, "the same name twice")
	assert.Empty(t, k.sys.calls, "the stick was never made writable")
	entries, err := os.ReadDir(k.stick)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestExportSaysWhenTheJournalCannotBeRead(t *testing.T) {
	k := newKit(t)
	k.sys.journalErr = errors.New("journalctl: exit status 1: No journal files were found")
	rep, _ := k.do(Request{Op: OpExport, Stick: "sda1", Kiosk: "PH-1"})
	assert.Equal(t, CodeJournal, rep.Code)
	assert.Contains(t, rep.Detail, "No journal files")
	assert.Equal(t, []string{"remount sda1 rw=true", "remount sda1 rw=false"}, k.sys.calls)
}

func TestWriteFailTellsAFullStick(t *testing.T) {
	full := &os.PathError{Op: "write", Path: "/media/sda1/x", Err: syscall.ENOSPC}
	assert.Equal(t, CodeFull, writeFail("x", full).Code)
	assert.Equal(t, CodeWrite, writeFail("x", &os.PathError{Op: "open", Err: syscall.EROFS}).Code)
	assert.Equal(t, CodeJournal, writeFail("x", fail(CodeJournal, "j")).Code)
}

func TestEject(t *testing.T) {
	k := newKit(t)
	rep, _ := k.do(Request{Op: OpEject, Stick: "sda1"})
	require.Empty(t, rep.Code, rep.Detail)
	assert.Equal(t, []string{"unmount sda1"}, k.sys.calls)

	k.sys.unmountErr = errors.New("umount: exit status 32: umount: /media/sda1: target is busy.")
	rep, _ = k.do(Request{Op: OpEject, Stick: "sda1"})
	assert.Equal(t, CodeBusy, rep.Code)
}

// serve runs k's server on a socket of its own.
func serve(t *testing.T, k *kit) *Client {
	t.Helper()
	dir, err := os.MkdirTemp("", "helper")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "h.sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.srv.Serve(ctx, l, 0) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return &Client{Socket: sock}
}

func TestClientAndServerOverTheSocket(t *testing.T) {
	k := newKit(t)
	k.put(t, "pharaon_1.4.0_amd64.update", "bundle")
	var log bytes.Buffer
	var logMu sync.Mutex
	k.srv.Log = writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return log.Write(p)
	})
	c := serve(t, k)
	ctx := context.Background()

	sticks, err := c.Sticks(ctx)
	require.NoError(t, err)
	require.Len(t, sticks, 1)
	assert.Equal(t, []string{"pharaon_1.4.0_amd64.update"}, sticks[0].Updates)

	var steps []string
	u, err := c.Install(ctx, "sda1", "pharaon_1.4.0_amd64.update", func(s string) { steps = append(steps, s) })
	require.NoError(t, err)
	assert.Equal(t, "1.4.0", u.Version)
	assert.Equal(t, []string{StepVerifying, StepInstalling}, steps)

	k.inst.err = fmt.Errorf("bundle: %w", update.ErrSignature)
	_, err = c.Check(ctx, "sda1", "pharaon_1.4.0_amd64.update")
	var he *Error
	require.ErrorAs(t, err, &he)
	assert.Equal(t, "signature", he.Code)
	assert.Equal(t, "signature", CodeOf(err))

	ex, err := c.Export(ctx, "sda1", "PH-1", []File{{Name: "events.csv", Data: []byte("x")}}, nil)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(k.stick, ex.Folder, "events.csv"))

	require.NoError(t, c.Eject(ctx, "sda1"))
	assert.Equal(t, CodeNoStick, CodeOf(c.Eject(ctx, "sdq1")))

	logMu.Lock()
	assert.Contains(t, log.String(), "install sda1 pharaon_1.4.0_amd64.update: done")
	assert.Contains(t, log.String(), "check sda1 pharaon_1.4.0_amd64.update")
	logMu.Unlock()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestNoHelperIsUnavailable(t *testing.T) {
	c := &Client{Socket: filepath.Join(t.TempDir(), "none.sock")}
	_, err := c.Sticks(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, "unavailable", CodeOf(err))
}

func TestTheServerRefusesOtherUsersAndGarbage(t *testing.T) {
	k := newKit(t)
	k.srv.peer = func(net.Conn) (uint32, error) { return 1000, nil }
	k.srv.Allowed = func(uid uint32) bool { return uid == 999 }
	c := serve(t, k)
	_, err := c.Sticks(context.Background())
	assert.Equal(t, CodeRefused, CodeOf(err))

	k.srv.peer = func(net.Conn) (uint32, error) { return 999, nil }
	_, err = c.Sticks(context.Background())
	require.NoError(t, err)

	conn, err := net.Dial("unix", c.Socket)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("{\"op\": \"sticks\", \"stick\": \n\x00\x01garbage\n"))
	require.NoError(t, err)
	b, err := io.ReadAll(conn)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"code":"request"`)
}

func TestTheRealPeerIsThisProcesssUser(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "p.sock"))
	require.NoError(t, err)
	defer l.Close()
	go func() {
		c, err := net.Dial("unix", filepath.Join(dir, "p.sock"))
		if err == nil {
			time.Sleep(100 * time.Millisecond)
			_ = c.Close()
		}
	}()
	c, err := l.Accept()
	require.NoError(t, err)
	defer c.Close()
	uid, err := peerUID(c)
	require.NoError(t, err)
	assert.Equal(t, uint32(os.Getuid()), uid)
}

func TestServeEndsWhenIdle(t *testing.T) {
	k := newKit(t)
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "i.sock"))
	require.NoError(t, err)
	require.NoError(t, k.srv.Serve(context.Background(), l, 50*time.Millisecond))
}

func TestParseMountInfo(t *testing.T) {
	const table = `26 1 254:2 / / rw,relatime shared:1 - ext4 /dev/vda2 rw,errors=remount-ro
31 26 0:27 / /media rw,nosuid,nodev shared:12 - tmpfs tmpfs rw,size=1024k
97 31 8:1 / /media/sda1 ro,nosuid,nodev,noexec,relatime shared:50 master:3 - vfat /dev/sda1 ro,fmask=0137,dmask=0027,utf8
98 31 8:17 / /media/my\040stick rw,relatime - exfat /dev/sdb1 rw
`
	ms, err := ParseMountInfo([]byte(table))
	require.NoError(t, err)
	require.Len(t, ms, 4)
	assert.Equal(t, Mount{Dir: "/media/sda1", Source: "/dev/sda1", FSType: "vfat",
		Options: []string{"ro", "nosuid", "nodev", "noexec", "relatime"}}, ms[2])
	assert.Equal(t, "/media/my stick", ms[3].Dir)

	_, err = ParseMountInfo([]byte("26 1 254:2 / / rw\n"))
	require.Error(t, err)

	// This machine's own table reads.
	ms, err = Machine{}.Mounts()
	require.NoError(t, err)
	assert.NotEmpty(t, ms)
}

// The kiosk asks for the switch into a waiting system; the helper passes
// the installer's answer, and a helper that installs nothing refuses.
func TestSwitchIntoTheWaitingSystem(t *testing.T) {
	k := newKit(t)
	rep, _ := k.do(Request{Op: OpSwitch})
	assert.Equal(t, CodeNoSystem, rep.Code)
	assert.Zero(t, k.inst.switched)
	k.inst.pending = "1.5.0"
	rep, _ = k.do(Request{Op: OpSwitch})
	require.Empty(t, rep.Code, rep.Detail)
	require.NotNil(t, rep.Update)
	assert.Equal(t, "1.5.0", rep.Update.Version)
	assert.Equal(t, 1, k.inst.switched)
	k.srv.Updates = nil
	rep, _ = k.do(Request{Op: OpSwitch})
	assert.Equal(t, CodeRequest, rep.Code)
}
