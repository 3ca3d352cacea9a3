// Package tpmtest runs a TPM 2.0 emulator (swtpm, the Debian package the
// virtual machine's test uses too) for the tests: a TPM of its own per
// test, in a temporary directory, reached through a Unix socket, that
// keeps its non-volatile memory across a Restart as a real one keeps it
// across a reboot.
package tpmtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Emulator is one swtpm process and its state directory.
type Emulator struct {
	// Socket is the path tpm.Open takes.
	Socket string
	dir    string
	cmd    *exec.Cmd
	done   chan struct{}
}

// Start starts an emulator for t, stopped when t ends. Without swtpm the
// test is skipped, except under CI (the CI machine installs it with make
// deps), where it fails.
func Start(t testing.TB) *Emulator {
	t.Helper()
	if _, err := exec.LookPath("swtpm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("swtpm is not installed (make deps installs it): %v", err)
		}
		t.Skipf("swtpm is not installed (make deps installs it): %v", err)
	}
	dir := t.TempDir()
	e := &Emulator{dir: dir, Socket: filepath.Join(dir, "tpm.sock")}
	if err := e.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	return e
}

func (e *Emulator) start() error {
	_ = os.Remove(e.Socket)
	cmd := exec.Command("swtpm", "socket", "--tpm2",
		"--tpmstate", "dir="+e.dir,
		"--server", "type=unixio,path="+e.Socket,
		"--ctrl", "type=unixio,path="+filepath.Join(e.dir, "ctrl.sock"),
		"--flags", "not-need-init,startup-clear")
	out, err := os.Create(filepath.Join(e.dir, "swtpm.log"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("start swtpm: %w", err)
	}
	e.cmd, e.done = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		out.Close()
		close(e.done)
	}()
	// Ready when it takes a connection: swtpm makes the socket's file
	// (bind) before it listens, and a dial in between is refused. A
	// connection without a command changes nothing in the TPM; swtpm
	// waits for the next one when it ends.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("unix", e.Socket); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-e.done:
			log, _ := os.ReadFile(filepath.Join(e.dir, "swtpm.log"))
			return fmt.Errorf("swtpm stopped at start: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			e.Stop()
			return fmt.Errorf("swtpm made no socket within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Stop stops the emulator (a power cut: it keeps what it wrote to its
// non-volatile memory).
func (e *Emulator) Stop() {
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Kill()
	<-e.done
	e.cmd = nil
}

// Restart stops the emulator and starts it again on the same state, as a
// machine's TPM after a reboot.
func (e *Emulator) Restart(t testing.TB) {
	t.Helper()
	e.Stop()
	if err := e.start(); err != nil {
		t.Fatal(err)
	}
}
