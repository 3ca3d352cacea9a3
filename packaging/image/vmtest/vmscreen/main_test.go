package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"path/filepath"
	"testing"
)

// The maintenance screen's pictures the UI tests render (kiosk/ui/maint)
// and the player's (kiosk/ui), told apart as vm-test.sh needs: the PIN pad,
// a session's menu, anything else.
func TestKind(t *testing.T) {
	maint := filepath.Join("..", "..", "..", "..", "kiosk", "ui", "maint", "testdata")
	player := filepath.Join("..", "..", "..", "..", "kiosk", "ui", "testdata")
	for _, c := range []struct{ file, want string }{
		{filepath.Join(maint, "maint-pin.png"), "pad"},
		{filepath.Join(maint, "maint-pin-locked.png"), "pad"},
		{filepath.Join(maint, "maint-menu.png"), "menu"},
		{filepath.Join(maint, "maint-diagnosis.png"), "menu"},
		{filepath.Join(maint, "maint-voucher.png"), "menu"},
		{filepath.Join(maint, "fit1024-pins.png"), "menu"},
		{filepath.Join(maint, "maint-setup.png"), "other"},
		{filepath.Join(maint, "maint-devices.png"), "other"},
		{filepath.Join(player, "screen-home.png"), "other"},
		{filepath.Join(player, "screen-out-of-service.png"), "other"},
		{filepath.Join(player, "screen-cash-confirm.png"), "other"},
	} {
		img, err := load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := kind(img); got != c.want {
			t.Errorf("%s: %s, want %s", filepath.Base(c.file), got, c.want)
		}
	}
}

// The menu's entries, as the test taps them: the staff's eleven, the
// technician's diagnosis menu's five under their group titles (the fault
// view third), the chosen entry told apart.
func TestEntries(t *testing.T) {
	maint := filepath.Join("..", "..", "..", "..", "kiosk", "ui", "maint", "testdata")
	for _, c := range []struct {
		file   string
		n      int
		chosen int // 1-based, 0: none
	}{
		{"maint-menu.png", 11, 0},
		{"maint-voucher.png", 11, 1},
		{"maint-diagnosis.png", 5, 0},
		{"fit1024-pins.png", 11, 11},
		{"maint-pin.png", 0, 0},
	} {
		img, err := load(filepath.Join(maint, c.file))
		if err != nil {
			t.Fatal(err)
		}
		es := entries(img)
		if len(es) != c.n {
			t.Errorf("%s: %d entries, want %d", c.file, len(es), c.n)
			continue
		}
		for i, e := range es {
			if e.chosen != (i+1 == c.chosen) {
				t.Errorf("%s: entry %d chosen %v", c.file, i+1, e.chosen)
			}
			if i > 0 && e.at.Y <= es[i-1].at.Y {
				t.Errorf("%s: entry %d at %v, above entry %d at %v", c.file, i+1, e.at, i, es[i-1].at)
			}
		}
	}
	// The diagnosis menu's third entry is the fault view's (« Hors
	// service »), below the technician's group title: its middle.
	img, err := load(filepath.Join(maint, "maint-diagnosis.png"))
	if err != nil {
		t.Fatal(err)
	}
	if e := entries(img)[2]; e.at.Y < 243 || e.at.Y > 299 || e.at.X < 6 || e.at.X > 246 {
		t.Errorf("the fault view's entry at %v, not within its button", e.at)
	}
}

// A PPM as QEMU's screendump writes it (a comment allowed in its header)
// reads back pixel for pixel; a truncated one is refused.
func TestReadPPM(t *testing.T) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "P6\n# a comment\n3 2\n255\n")
	want := []color.NRGBA{{1, 2, 3, 255}, {4, 5, 6, 255}, {7, 8, 9, 255}, {10, 11, 12, 255}, {13, 14, 15, 255}, {250, 251, 252, 255}}
	for _, c := range want {
		b.Write([]byte{c.R, c.G, c.B})
	}
	img, err := readPPM(bufio.NewReader(bytes.NewReader(b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 3, 2) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	for i, c := range want {
		if got := color.NRGBAModel.Convert(img.At(i%3, i/3)); got != c {
			t.Errorf("pixel %d: %v, want %v", i, got, c)
		}
	}
	if _, err := readPPM(bufio.NewReader(bytes.NewReader(b.Bytes()[:b.Len()-1]))); err == nil {
		t.Error("a truncated PPM was read")
	}
}

// The first start's one button to go on, found where the test taps it:
// a step's « Vérifier et continuer », the ready screen's « Ouvrir la borne
// aux joueurs »; none on the player's home, which has no such button.
func TestAction(t *testing.T) {
	maint := filepath.Join("..", "..", "..", "..", "kiosk", "ui", "maint", "testdata")
	player := filepath.Join("..", "..", "..", "..", "kiosk", "ui", "testdata")
	for _, c := range []struct {
		file string
		want image.Rectangle // where the middle must be: inside the button
		ok   bool
	}{
		{filepath.Join(maint, "first-keys.png"), image.Rect(420, 240, 520, 280), true},
		{filepath.Join(maint, "first-ready.png"), image.Rect(140, 255, 230, 295), true},
		{filepath.Join(player, "screen-out-of-service.png"), image.Rectangle{}, false},
	} {
		img, err := load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		at, ok := action(img)
		if ok != c.ok || ok && !at.In(c.want) {
			t.Errorf("%s: %v %v, want %v in %v", filepath.Base(c.file), at, ok, c.ok, c.want)
		}
	}
}

// A view's body read by its text: the fault view of the virtual machine's
// rollback whose read had not come back (its title and buttons only), the
// same view in the virtual machine once it had, and on the build machine.
// The pictures of the virtual machine are kept in testdata, not taken from
// docs/screenshots, which each complete run of the VM test replaces.
func TestBodyText(t *testing.T) {
	shots := filepath.Join("..", "..", "..", "..", "docs", "screenshots")
	for _, c := range []struct {
		file string
		said bool
	}{
		{filepath.Join("testdata", "fault-view-unread.png"), false},
		{filepath.Join("testdata", "fault-view-read.png"), true},
		{filepath.Join(shots, "maint-fault-rollback.png"), true},
	} {
		img, err := load(c.file)
		if err != nil {
			t.Fatal(err)
		}
		n := bodyText(img)
		if !c.said && n >= 200 {
			t.Errorf("%s: the empty fault view has %d pixels of text", filepath.Base(c.file), n)
		}
		if c.said && n < 3000 {
			t.Errorf("%s: the fault view that says why has %d pixels of text", filepath.Base(c.file), n)
		}
	}
}
