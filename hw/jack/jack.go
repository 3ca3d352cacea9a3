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

// Watch reads the headphone devices under sys and dev (Find) until ctx
// ends, and calls plugged at each change; logf says which devices it
// reads and what fails (once a device). It returns at once: ctx ends it.
// No device is not an error: the kiosk has no jack it can see.
func Watch(ctx context.Context, sys, dev string, plugged func(bool), logf func(string, ...any)) ([]Device, error) {
	devs, err := Find(sys, dev)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex // plugged is called from one device at a time
	for _, d := range devs {
		f, err := os.Open(d.Node)
		if err != nil {
			logf("headphones: %s: %v (the voice comes on by a key or « Voix » only)", d.Name, err)
			continue
		}
		logf("headphones: watching %s (%s)", d.Name, d.Node)
		go func() {
			<-ctx.Done()
			f.Close()
		}()
		go func(d Device) {
			err := Read(f, func(in bool) { mu.Lock(); defer mu.Unlock(); plugged(in) })
			if err != nil && ctx.Err() == nil {
				logf("headphones: %s: %v", d.Name, fmt.Errorf("reading %s: %w", d.Node, err))
			}
		}(d)
	}
	return devs, nil
}
