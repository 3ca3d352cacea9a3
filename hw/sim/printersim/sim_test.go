package printersim

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
)

var mode = hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1}

func readN(t *testing.T, port hw.Port, n int) []byte {
	t.Helper()
	require.NoError(t, port.SetReadTimeout(100*time.Millisecond))
	var got []byte
	buf := make([]byte, 64)
	deadline := time.Now().Add(3 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		k, err := port.Read(buf)
		require.NoError(t, err)
		got = append(got, buf[:k]...)
	}
	return got
}

func TestPrinterOverAPseudoTerminal(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "printer")
	out := filepath.Join(dir, "receipts")
	p, err := Start(Config{Link: link, Dir: out})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, link, p.Path())

	port, err := hw.Open(link, mode)
	require.NoError(t, err)
	defer port.Close()
	doc := sampleBytes(t)
	_, err = port.Write(append(append([]byte{}, doc...), dle, eot, 1, dle, eot, 4, gs, 'r', 1))
	require.NoError(t, err)
	assert.Equal(t, []byte{0x12, 0x12, 0x00}, readN(t, port, 3))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := p.WaitReceipt(ctx, 1)
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Contains(t, r.Plain(), sampleAmount)

	txt, err := os.ReadFile(filepath.Join(out, "0001.txt"))
	require.NoError(t, err)
	assert.Equal(t, r.Text, string(txt))
	img, err := os.ReadFile(filepath.Join(out, "0001.png"))
	require.NoError(t, err)
	want, err := r.PNG()
	require.NoError(t, err)
	assert.Equal(t, want, img)
	assert.Equal(t, append(append([]byte{}, doc...), dle, eot, 1, dle, eot, 4, gs, 'r', 1), p.Received())

	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	_, err = p.WaitReceipt(short, 2)
	require.ErrorIs(t, err, context.DeadlineExceeded, "no second receipt")
}

func TestUnplugAndReplugKeepTheState(t *testing.T) {
	link := filepath.Join(t.TempDir(), "printer")
	p, err := Start(Config{Link: link})
	require.NoError(t, err)
	defer p.Close()
	p.SetPaper(PaperLow)

	port, err := hw.Open(link, mode)
	require.NoError(t, err)
	defer port.Close()
	_, err = port.Write([]byte{dle, eot, 4})
	require.NoError(t, err)
	assert.Equal(t, []byte{0x1E}, readN(t, port, 1))

	require.NoError(t, p.Unplug())
	assert.Error(t, p.Unplug(), "already unplugged")
	require.NoError(t, port.SetReadTimeout(time.Second))
	_, err = port.Read(make([]byte, 1))
	assert.ErrorIs(t, err, hw.ErrIO, "the host's port hangs up")
	_, err = hw.Open(link, mode)
	assert.ErrorIs(t, err, hw.ErrNotFound, "the device is gone")

	require.NoError(t, p.Replug())
	assert.Error(t, p.Replug(), "already plugged in")
	port2, err := hw.Open(link, mode)
	require.NoError(t, err)
	defer port2.Close()
	_, err = port2.Write([]byte{dle, eot, 4})
	require.NoError(t, err)
	assert.Equal(t, []byte{0x1E}, readN(t, port2, 1), "the roll is still low")

	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "closing twice is harmless")
	assert.Error(t, p.Replug())
}

func TestStartWithoutLinkUsesTheSlave(t *testing.T) {
	p, err := Start(Config{})
	require.NoError(t, err)
	defer p.Close()
	assert.Contains(t, p.Path(), "/dev/pts/")
	port, err := hw.Open(p.Path(), mode)
	require.NoError(t, err)
	defer port.Close()
	_, err = port.Write([]byte{dle, eot, 2})
	require.NoError(t, err)
	assert.Equal(t, []byte{0x12}, readN(t, port, 1))
}
