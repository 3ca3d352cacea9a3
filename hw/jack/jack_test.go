package jack

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// event is one struct input_event as a 64-bit kernel writes it.
func event(typ, code uint16, value int32) []byte {
	b := make([]byte, eventSize)
	binary.LittleEndian.PutUint64(b[0:], 1764800000) // seconds
	binary.LittleEndian.PutUint64(b[8:], 123456)     // microseconds
	binary.LittleEndian.PutUint16(b[16:], typ)
	binary.LittleEndian.PutUint16(b[18:], code)
	binary.LittleEndian.PutUint32(b[20:], uint32(value))
	return b
}

const (
	evSyn                     = 0x00
	swMicrophoneInsert        = 0x04
	swLineoutInsert           = 0x06
	evKey                     = 0x01
	keyPlaypause       uint16 = 164
)

func TestHasBit(t *testing.T) {
	assert.True(t, hasBit("14\n", swHeadphoneInsert), "headphone and microphone")
	assert.False(t, hasBit("10", swHeadphoneInsert), "microphone only")
	assert.False(t, hasBit("0", swHeadphoneInsert))
	assert.False(t, hasBit("4 0", swHeadphoneInsert), "the last word holds bits 0 to 63")
	assert.True(t, hasBit("4 0", 66))
	assert.False(t, hasBit("", swHeadphoneInsert))
	assert.False(t, hasBit("zz", swHeadphoneInsert), "a garbled mask is no jack")
}

// fakeSys makes a sysfs with input devices: a jack with headphones and
// microphone, a keyboard (no switches), a lid switch (SW_LID only).
func fakeSys(t *testing.T) (sys, dev string) {
	t.Helper()
	root := t.TempDir()
	sys, dev = filepath.Join(root, "sys"), filepath.Join(root, "dev")
	add := func(ev, name, sw string) {
		d := filepath.Join(sys, "class", "input", ev, "device")
		require.NoError(t, os.MkdirAll(filepath.Join(d, "capabilities"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "name"), []byte(name+"\n"), 0o644))
		if sw != "" {
			require.NoError(t, os.WriteFile(filepath.Join(d, "capabilities", "sw"), []byte(sw+"\n"), 0o644))
		}
	}
	add("event0", "Lid Switch", "1")
	add("event2", "AT Translated Set 2 keyboard", "")
	add("event7", "HDA Intel PCH Headphone", "14")
	require.NoError(t, os.MkdirAll(filepath.Join(dev, "input"), 0o755))
	return sys, dev
}

func TestFind(t *testing.T) {
	sys, dev := fakeSys(t)
	devs, err := Find(sys, dev)
	require.NoError(t, err)
	assert.Equal(t, []Device{{Name: "HDA Intel PCH Headphone", Node: filepath.Join(dev, "input", "event7")}}, devs)

	none, err := Find(t.TempDir(), dev)
	require.NoError(t, err)
	assert.Empty(t, none, "no input device: no jack, and no error")
}

func TestRead(t *testing.T) {
	var stream bytes.Buffer
	for _, e := range [][]byte{
		event(evSW, swHeadphoneInsert, 1), event(evSyn, 0, 0),
		event(evSW, swMicrophoneInsert, 1), event(evSyn, 0, 0), // a headset's microphone: not the headphones
		event(evKey, keyPlaypause, 1), event(evKey, keyPlaypause, 0), // its button
		event(evSW, swLineoutInsert, 1), // a line out: not headphones
		event(evSW, swHeadphoneInsert, 0), event(evSyn, 0, 0),
	} {
		stream.Write(e)
	}
	var got []bool
	require.NoError(t, Read(&stream, func(in bool) { got = append(got, in) }))
	assert.Equal(t, []bool{true, false}, got)

	// A stream cut in the middle of an event is an error, after what was
	// whole.
	got = nil
	cut := append(event(evSW, swHeadphoneInsert, 1), event(evSW, swHeadphoneInsert, 0)[:10]...)
	err := Read(bytes.NewReader(cut), func(in bool) { got = append(got, in) })
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, []bool{true}, got)
}

// Watch on a FIFO standing for the jack's event node: a plug, an unplug,
// and the context's end stops it.
func TestWatch(t *testing.T) {
	sys, dev := fakeSys(t)
	node := filepath.Join(dev, "input", "event7")
	require.NoError(t, syscall.Mkfifo(node, 0o600))

	writer := make(chan *os.File)
	go func() {
		f, err := os.OpenFile(node, os.O_WRONLY, 0) // waits for Watch to open it
		if err != nil {
			close(writer)
			return
		}
		writer <- f
	}()
	var mu sync.Mutex
	var got []bool
	var logged []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	devs, err := Watch(ctx, sys, dev, func(in bool) { mu.Lock(); got = append(got, in); mu.Unlock() },
		func(f string, a ...any) { mu.Lock(); logged = append(logged, f); mu.Unlock() })
	require.NoError(t, err)
	require.Len(t, devs, 1)
	w, ok := <-writer
	require.True(t, ok)
	defer w.Close()
	_, err = w.Write(append(event(evSW, swHeadphoneInsert, 1), event(evSW, swHeadphoneInsert, 0)...))
	require.NoError(t, err)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 2 }, 5*time.Second, 5*time.Millisecond)
	mu.Lock()
	assert.Equal(t, []bool{true, false}, got)
	assert.Len(t, logged, 1, "the device watched is said: %q", logged)
	mu.Unlock()
}

// A jack whose node cannot be opened is said, and the rest goes on.
func TestWatchUnreadableNode(t *testing.T) {
	sys, dev := fakeSys(t) // no node made under dev/input
	var logged []string
	devs, err := Watch(context.Background(), sys, dev, func(bool) { t.Error("no event can come") },
		func(f string, a ...any) { logged = append(logged, f) })
	require.NoError(t, err)
	assert.Len(t, devs, 1)
	require.Len(t, logged, 1)
	assert.Contains(t, logged[0], "the voice comes on by a key or « Voix » only")
}

// A jack that comes after the kiosk started (a USB sound card plugged in)
// is found at the next look and read; gone, it is read again when it comes
// back.
func TestWatchFindsAJackPluggedLater(t *testing.T) {
	root := t.TempDir()
	sys, dev := filepath.Join(root, "sys"), filepath.Join(root, "dev")
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "class", "input"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dev, "input"), 0o755))
	var mu sync.Mutex
	var got []bool
	var logged []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	devs, err := watch(ctx, sys, dev, func(in bool) { mu.Lock(); got = append(got, in); mu.Unlock() },
		func(f string, a ...any) { mu.Lock(); logged = append(logged, fmt.Sprintf(f, a...)); mu.Unlock() }, 10*time.Millisecond)
	require.NoError(t, err)
	assert.Empty(t, devs, "no jack at the start")

	plugIn := func() *os.File {
		t.Helper()
		d := filepath.Join(sys, "class", "input", "event9", "device")
		require.NoError(t, os.MkdirAll(filepath.Join(d, "capabilities"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "name"), []byte("USB Audio Headphone\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "capabilities", "sw"), []byte("4\n"), 0o644))
		node := filepath.Join(dev, "input", "event9")
		require.NoError(t, syscall.Mkfifo(node, 0o600))
		f, err := os.OpenFile(node, os.O_WRONLY, 0) // waits for the watcher to open it
		require.NoError(t, err)
		return f
	}
	unplug := func(f *os.File) {
		t.Helper()
		require.NoError(t, f.Close()) // the reader sees the end: the device is gone
		require.NoError(t, os.RemoveAll(filepath.Join(sys, "class", "input", "event9")))
		require.NoError(t, os.Remove(filepath.Join(dev, "input", "event9")))
	}
	heard := func(n int) {
		t.Helper()
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == n }, 5*time.Second, 5*time.Millisecond)
	}

	f := plugIn()
	_, err = f.Write(event(evSW, swHeadphoneInsert, 1))
	require.NoError(t, err)
	heard(1)
	unplug(f)
	time.Sleep(50 * time.Millisecond) // a few looks with no device

	f = plugIn()
	defer f.Close()
	_, err = f.Write(event(evSW, swHeadphoneInsert, 1))
	require.NoError(t, err)
	heard(2)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []bool{true, true}, got)
	watching := 0
	for _, l := range logged {
		if strings.HasPrefix(l, "headphones: watching USB Audio Headphone") {
			watching++
		}
	}
	assert.Equal(t, 2, watching, "watched when plugged in, and again when back: %q", logged)
}
