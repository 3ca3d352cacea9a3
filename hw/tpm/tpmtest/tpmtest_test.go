package tpmtest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain: with PHARAON_TPMTEST_SLOW_LISTEN set, this test binary is a
// stand-in for swtpm (found first in PATH under that name) that makes its
// socket file at once and listens on it only 300 ms later, as swtpm may on
// a loaded machine: bind, then listen.
func TestMain(m *testing.M) {
	if os.Getenv("PHARAON_TPMTEST_SLOW_LISTEN") != "" {
		slowListen()
		return
	}
	os.Exit(m.Run())
}

func slowListen() {
	var path string
	for _, a := range os.Args[1:] {
		if p, ok := strings.CutPrefix(a, "type=unixio,path="); ok && path == "" {
			path = p // the first is --server's
		}
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		os.Exit(1)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		os.Exit(1)
	}
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Listen(fd, 1); err != nil {
		os.Exit(1)
	}
	for {
		nfd, _, err := syscall.Accept(fd)
		if err == nil {
			syscall.Close(nfd)
		}
	}
}

// TestStartWaitsForTheListener: Start returns once the emulator takes
// connections, not once its socket's file exists (a test then dialled too
// early and was refused, on a machine running two test suites at once).
func TestStartWaitsForTheListener(t *testing.T) {
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(bin, "swtpm")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("PHARAON_TPMTEST_SLOW_LISTEN", "1")

	e := Start(t)
	c, err := net.Dial("unix", e.Socket)
	if err != nil {
		t.Fatalf("the emulator refused a connection once started: %v", err)
	}
	c.Close()
}
