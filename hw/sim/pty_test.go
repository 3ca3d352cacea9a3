package sim_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/sim"
)

var mode8E1 = hw.Mode{BaudRate: 9600, DataBits: 8, Parity: hw.EvenParity, StopBits: 1}

// readMaster reads n bytes from the master, tolerating the EIO a master gives while no host
// holds the slave.
func readMaster(t *testing.T, m *os.File, n int) []byte {
	t.Helper()
	require.NoError(t, m.SetReadDeadline(time.Now().Add(2*time.Second)))
	buf := make([]byte, n)
	_, err := io.ReadFull(m, buf)
	require.NoError(t, err)
	return buf
}

func TestPTYCarriesBytesBothWaysThroughHWOpen(t *testing.T) {
	link := filepath.Join(t.TempDir(), "validator")
	p, err := sim.OpenPTY(link)
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, link, p.Path)
	target, err := os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, p.Slave, target)

	port, err := hw.Open(p.Path, mode8E1)
	require.NoError(t, err)
	defer port.Close()

	// Every byte value must pass untouched (raw mode: no CR/LF translation, no echo, no ^C).
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	n, err := port.Write(all)
	require.NoError(t, err)
	assert.Equal(t, 256, n)
	assert.Equal(t, all, readMaster(t, p.Master, 256))

	_, err = p.Master.Write(all)
	require.NoError(t, err)
	require.NoError(t, port.SetReadTimeout(time.Second))
	got := make([]byte, 0, 256)
	buf := make([]byte, 256)
	for len(got) < 256 {
		n, err := port.Read(buf)
		require.NoError(t, err)
		require.NotZero(t, n, "read timed out after %d bytes", len(got))
		got = append(got, buf[:n]...)
	}
	assert.Equal(t, all, got)
}

func TestPTYReadTimeoutReturnsZeroNil(t *testing.T) {
	p, err := sim.OpenPTY("")
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, p.Slave, p.Path)
	port, err := hw.Open(p.Path, mode8E1)
	require.NoError(t, err)
	defer port.Close()
	require.NoError(t, port.SetReadTimeout(20*time.Millisecond))
	n, err := port.Read(make([]byte, 8))
	assert.NoError(t, err)
	assert.Zero(t, n)
}

func TestPTYUnplugAndReplugAtTheSameLink(t *testing.T) {
	link := filepath.Join(t.TempDir(), "validator")
	p, err := sim.OpenPTY(link)
	require.NoError(t, err)
	port, err := hw.Open(link, mode8E1)
	require.NoError(t, err)
	defer port.Close()

	require.NoError(t, p.Close()) // unplug
	require.NoError(t, port.SetReadTimeout(time.Second))
	_, err = port.Read(make([]byte, 8))
	require.Error(t, err)
	assert.ErrorIs(t, err, hw.ErrIO, "a hang-up is an i/o failure, not our own close")
	require.NoError(t, port.Close())
	_, err = port.Read(make([]byte, 8))
	assert.ErrorIs(t, err, hw.ErrClosed)

	_, err = hw.Open(link, mode8E1)
	assert.ErrorIs(t, err, hw.ErrNotFound, "while unplugged the stable path is absent")

	p2, err := sim.OpenPTY(link) // replug
	require.NoError(t, err)
	defer p2.Close()
	port2, err := hw.Open(link, mode8E1)
	require.NoError(t, err)
	defer port2.Close()
	_, err = port2.Write([]byte{0xFC, 0x05, 0x11})
	require.NoError(t, err)
	assert.Equal(t, []byte{0xFC, 0x05, 0x11}, readMaster(t, p2.Master, 3))
}

func TestPTYHostCanReopenAfterClosing(t *testing.T) {
	// A host killed without cleaning up must be able to open the device again: the PTY does not
	// hold the slave, so the exclusive-access flag dies with the host's descriptor.
	p, err := sim.OpenPTY("")
	require.NoError(t, err)
	defer p.Close()
	for i := range 3 {
		port, err := hw.Open(p.Path, mode8E1)
		require.NoError(t, err, "open #%d", i)
		_, err = port.Write([]byte{byte(i)})
		require.NoError(t, err)
		assert.Equal(t, []byte{byte(i)}, readMaster(t, p.Master, 1))
		require.NoError(t, port.Close())
	}
	// With no host, the master reads EIO (the simulators wait and retry on it).
	require.NoError(t, p.Master.SetReadDeadline(time.Now().Add(time.Second)))
	_, err = p.Master.Read(make([]byte, 1))
	require.Error(t, err)
	assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "expected EIO, got %v", err)
}

func TestPTYCloseWakesABlockedMasterRead(t *testing.T) {
	// A simulator's reader must not outlive an unplug.
	p, err := sim.OpenPTY("")
	require.NoError(t, err)
	port, err := hw.Open(p.Path, mode8E1)
	require.NoError(t, err)
	defer port.Close()
	done := make(chan error, 1)
	go func() {
		_, err := p.Master.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, p.Close())
	select {
	case err := <-done:
		assert.ErrorIs(t, err, os.ErrClosed)
	case <-time.After(2 * time.Second):
		t.Fatal("Read on the master still blocked after Close")
	}
}
