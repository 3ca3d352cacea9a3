// Package jack tells when headphones are plugged into the kiosk's audio
// jack, so the player's voice can come on by itself (EN 301 549: the
// accessible mode switched on by the person who needs it).
//
// Linux reports a jack through an input device whose switch events
// (EV_SW) include SW_HEADPHONE_INSERT: ALSA's HD-audio and USB-audio
// drivers make one per jack ("HDA Intel PCH Headphone", …). Watch finds
// those devices in sysfs and reads their events; it needs read access to
// /dev/input/event* (the group input, which the kiosk's unit gives it).
package jack

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Linux's input event codes (linux/input-event-codes.h).
const (
	evSW              = 0x05
	swHeadphoneInsert = 0x02
	// eventSize is struct input_event on a 64-bit kernel: a timeval (two
	// 64-bit words), the type and code (16 bits each), the value (32 bits).
	eventSize = 24
)

// Device is an input device that reports a headphone jack.
type Device struct {
	Name string // the kernel's name for it ("HDA Intel PCH Headphone")
	Node string // its event node, /dev/input/eventN
}

// Find lists the devices under sys (/sys in the kiosk) whose switches
// include a headphone jack, with their nodes under dev (/dev).
func Find(sys, dev string) ([]Device, error) {
	paths, err := filepath.Glob(filepath.Join(sys, "class", "input", "event*"))
	if err != nil {
		return nil, err
	}
	var out []Device
	for _, p := range paths {
		caps, err := os.ReadFile(filepath.Join(p, "device", "capabilities", "sw"))
		if err != nil || !hasBit(string(caps), swHeadphoneInsert) {
			continue
		}
		name, _ := os.ReadFile(filepath.Join(p, "device", "name"))
		out = append(out, Device{Name: strings.TrimSpace(string(name)), Node: filepath.Join(dev, "input", filepath.Base(p))})
	}
	return out, nil
}

// hasBit reads a sysfs capability mask (hexadecimal words, the most
// significant first, each a kernel long) and reports whether bit is set.
func hasBit(mask string, bit int) bool {
	words := strings.Fields(mask)
	const wordBits = 64
	i := len(words) - 1 - bit/wordBits
	if i < 0 || i >= len(words) {
		return false
	}
	w, err := strconv.ParseUint(words[i], 16, 64)
	return err == nil && w&(1<<(bit%wordBits)) != 0
}

// Read reads r's input events and calls plugged at each change of the
// headphone switch (true: plugged in), until r ends or fails.
func Read(r io.Reader, plugged func(bool)) error {
	var ev [eventSize]byte
	for {
		if _, err := io.ReadFull(r, ev[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		typ := binary.LittleEndian.Uint16(ev[16:])
		code := binary.LittleEndian.Uint16(ev[18:])
		value := int32(binary.LittleEndian.Uint32(ev[20:]))
		if typ == evSW && code == swHeadphoneInsert {
			plugged(value != 0)
		}
	}
}

// RescanEvery is how often Watch looks again for jacks: a USB sound card
// plugged in after the kiosk started brings its own.
const RescanEvery = 5 * time.Second

// Watch reads the headphone devices under sys and dev (Find) until ctx
// ends, and calls plugged at each change; logf says which devices it
// reads and what fails (once a device). It returns at once with the
// devices found now (ctx ends it), and every RescanEvery watches those
// that came since; a device gone (unplugged) is watched again when it
// comes back. No device is not an error: the kiosk has no jack it can see.
func Watch(ctx context.Context, sys, dev string, plugged func(bool), logf func(string, ...any)) ([]Device, error) {
	return watch(ctx, sys, dev, plugged, logf, RescanEvery)
}

func watch(ctx context.Context, sys, dev string, plugged func(bool), logf func(string, ...any), every time.Duration) ([]Device, error) {
	devs, err := Find(sys, dev)
	if err != nil {
		return nil, err
	}
	w := &watcher{ctx: ctx, plugged: plugged, logf: logf, watched: map[string]bool{}, refused: map[string]bool{}}
	for _, d := range devs {
		w.open(d)
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			found, err := Find(sys, dev)
			if err != nil {
				continue
			}
			for _, d := range found {
				w.open(d)
			}
		}
	}()
	return devs, nil
}

// watcher reads the jacks' devices: each node once at a time.
type watcher struct {
	ctx     context.Context
	plugged func(bool)
	logf    func(string, ...any)

	mu      sync.Mutex      // plugged is called from one device at a time; the maps
	watched map[string]bool // nodes being read
	refused map[string]bool // nodes that could not be opened (said once)
}

// open starts reading d unless it is read already.
func (w *watcher) open(d Device) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched[d.Node] {
		return
	}
	f, err := os.Open(d.Node)
	if err != nil {
		if !w.refused[d.Node] {
			w.refused[d.Node] = true
			w.logf("headphones: %s: %v (the voice comes on by a key or « Voix » only)", d.Name, err)
		}
		return
	}
	delete(w.refused, d.Node)
	w.watched[d.Node] = true
	w.logf("headphones: watching %s (%s)", d.Name, d.Node)
	stop := context.AfterFunc(w.ctx, func() { f.Close() })
	go func() {
		err := Read(f, func(in bool) { w.mu.Lock(); defer w.mu.Unlock(); w.plugged(in) })
		stop()
		f.Close()
		if w.ctx.Err() != nil {
			return
		}
		if err != nil {
			w.logf("headphones: %s: %v", d.Name, fmt.Errorf("reading %s: %w", d.Node, err))
		}
		w.mu.Lock()
		delete(w.watched, d.Node) // gone: watched again if it comes back
		w.mu.Unlock()
	}()
}
