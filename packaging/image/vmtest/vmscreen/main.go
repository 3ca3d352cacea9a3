// Command vmscreen reads a screen dump of the kiosk in the virtual machine
// test (packaging/image/vm-test.sh takes them with QEMU's screendump, as
// PPM) and says what the maintenance screen shows, by the colours of the
// kiosk's theme (kiosk/ui/art) rather than by pixels at fixed places: the
// test then follows the views' layout as it changes.
//
//	vmscreen kind FILE      pad, menu or other
//	vmscreen entries FILE   the menu's entries, top to bottom: "N X Y chosen"
//	                        or "N X Y -" (X Y: the entry's middle)
//	vmscreen action FILE    the middle "X Y" of the topmost button in the
//	                        primary colour (the first start's one button
//	                        to go on); exit status 1 if there is none
//	vmscreen text FILE      how many pixels of text a menu's view shows
//	                        below its title (0: its body is still empty)
//	vmscreen png FILE OUT   the dump as a PNG
//
// FILE is a PPM (P6) or a PNG. It is a test tool of the host's only: it
// never goes into the image.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"strconv"

	"pharaon/kiosk/ui/art"
)

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	img, err := load(os.Args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "vmscreen: %v\n", err)
		os.Exit(1)
	}
	switch {
	case os.Args[1] == "kind" && len(os.Args) == 3:
		fmt.Println(kind(img))
	case os.Args[1] == "entries" && len(os.Args) == 3:
		for i, e := range entries(img) {
			c := "-"
			if e.chosen {
				c = "chosen"
			}
			fmt.Printf("%d %d %d %s\n", i+1, e.at.X, e.at.Y, c)
		}
	case os.Args[1] == "action" && len(os.Args) == 3:
		at, ok := action(img)
		if !ok {
			fmt.Fprintf(os.Stderr, "vmscreen: %s: no button in the primary colour\n", os.Args[2])
			os.Exit(1)
		}
		fmt.Printf("%d %d\n", at.X, at.Y)
	case os.Args[1] == "text" && len(os.Args) == 3:
		fmt.Println(bodyText(img))
	case os.Args[1] == "png" && len(os.Args) == 4:
		if err := writePNG(os.Args[3], img); err != nil {
			fmt.Fprintf(os.Stderr, "vmscreen: %v\n", err)
			os.Exit(1)
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: vmscreen kind FILE | vmscreen entries FILE | vmscreen action FILE | vmscreen text FILE | vmscreen png FILE OUT.png")
	os.Exit(2)
}

// load reads a PPM (P6, 8 bits) or a PNG.
func load(name string) (image.Image, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic, err := r.Peek(2)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if string(magic) != "P6" {
		img, err := png.Decode(r)
		if err != nil {
			return nil, fmt.Errorf("%s: neither a PPM nor a PNG: %w", name, err)
		}
		return img, nil
	}
	img, err := readPPM(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return img, nil
}

// readPPM reads a binary PPM of 8-bit samples: "P6", the width, the height
// and the largest value (comments allowed between them), one white space,
// then the rows.
func readPPM(r *bufio.Reader) (image.Image, error) {
	var fields []int
	word := []byte{}
	if _, err := r.Discard(2); err != nil {
		return nil, err
	}
	for len(fields) < 3 {
		b, err := r.ReadByte()
		if err != nil {
			return nil, fmt.Errorf("ppm header: %w", err)
		}
		switch {
		case b == '#':
			if _, err := r.ReadString('\n'); err != nil {
				return nil, fmt.Errorf("ppm header: %w", err)
			}
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			if len(word) > 0 {
				n, err := strconv.Atoi(string(word))
				if err != nil {
					return nil, fmt.Errorf("ppm header: %w", err)
				}
				fields = append(fields, n)
				word = word[:0]
			}
		default:
			word = append(word, b)
		}
	}
	w, h, max := fields[0], fields[1], fields[2]
	if w <= 0 || h <= 0 || w > 1<<14 || h > 1<<14 || max != 255 {
		return nil, errors.New("ppm: not an 8-bit picture of a screen's size")
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	row := make([]byte, 3*w)
	for y := 0; y < h; y++ {
		if _, err := io.ReadFull(r, row); err != nil {
			return nil, fmt.Errorf("ppm row %d: %w", y, err)
		}
		for x := 0; x < w; x++ {
			o := img.PixOffset(x, y)
			copy(img.Pix[o:o+3], row[3*x:3*x+3])
			img.Pix[o+3] = 0xff
		}
	}
	return img, nil
}

func writePNG(name string, img image.Image) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// The theme's colours the maintenance screen is told by: its ground, a
// button, the chosen entry or a pad's Valider (the primary colour),
// Quitter (the danger colour), and the text (the foreground).
var (
	text    = art.Sand
	ground  = art.Night
	button  = art.LapisLight
	primary = art.Terracotta
	danger  = art.Alert
)

// near: c is col, give or take what the screen's scaling and blending
// change of it.
func near(c color.Color, col color.NRGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, b uint8) bool {
		v := int(a>>8) - int(b)
		return v >= -14 && v <= 14
	}
	return d(r, col.R) && d(g, col.G) && d(b, col.B)
}

// count is how many pixels of the rectangle are col.
func count(img image.Image, rect image.Rectangle, col color.NRGBA) int {
	rect = rect.Intersect(img.Bounds())
	n := 0
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			if near(img.At(x, y), col) {
				n++
			}
		}
	}
	return n
}

// kind: "pad" is the PIN pad (the maintenance screen's dark ground, plain
// along the top where the player's screens have their frieze, its keys, no
// Quitter and no menu: the setup's lines of PINs are a menu's entries
// here); "menu" is a session's screen (the dark ground, Quitter top
// right, a menu of entries on the left); "other" is anything else (the
// player's screens among them).
func kind(img image.Image) string {
	b := img.Bounds()
	if count(img, b, ground)*3 < b.Dx()*b.Dy() {
		return "other"
	}
	top := image.Rect(b.Min.X+b.Dx()/2, b.Min.Y, b.Max.X, b.Min.Y+b.Dy()/8)
	quit := count(img, top, danger)
	strip := image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+b.Dy()/20)
	plain := count(img, strip, ground)*20 >= strip.Dx()*strip.Dy()*19
	switch {
	case quit >= 2000 && len(entries(img)) > 0:
		return "menu"
	case plain && quit < 200 && len(entries(img)) == 0 && count(img, b, button) >= 15000:
		// 15 000: a locked pad greys its twelve keys and keeps Retour au
		// jeu and the language in the button's colour (about 23 000 at
		// 1280×800); an open pad has some 115 000.
		return "pad"
	}
	return "other"
}

// entry is a menu entry: its middle, and whether it is the view shown.
type entry struct {
	at     image.Point
	chosen bool
}

// entries are the menu's entries, top to bottom: the buttons a line down
// the left edge crosses below the head's line (the group titles are text
// on the ground, not buttons). An entry is at least 30 pixels high.
func entries(img image.Image) []entry {
	b := img.Bounds()
	x := b.Min.X + 12
	y := b.Min.Y + b.Dy()/10
	var out []entry
	for y < b.Max.Y {
		c := img.At(x, y)
		col := button
		switch {
		case near(c, button):
		case near(c, primary):
			col = primary
		default:
			y++
			continue
		}
		top := y
		for y < b.Max.Y && near(img.At(x, y), col) {
			y++
		}
		if y-top < 30 {
			continue
		}
		// Its width, along a row above its text.
		row := top + 4
		left, right := x, x
		for left > b.Min.X && near(img.At(left-1, row), col) {
			left--
		}
		for right+1 < b.Max.X && near(img.At(right+1, row), col) {
			right++
		}
		out = append(out, entry{at: image.Pt((left+right)/2, (top+y)/2), chosen: col == primary})
	}
	return out
}

// action is the middle of the topmost button in the primary colour: the
// first row that holds a run of it at least 120 pixels long (a button's
// edge above its label), down as far as the run's left end stays in it
// (left of the label); a run less than 30 pixels high is no button.
func action(img image.Image) (image.Point, bool) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !near(img.At(x, y), primary) {
				continue
			}
			left := x
			for x < b.Max.X && near(img.At(x, y), primary) {
				x++
			}
			if x-left < 120 {
				continue
			}
			// Down a column a little inside the left end (the corner is
			// rounded).
			col, bottom := left+8, y
			for bottom < b.Max.Y && near(img.At(col, bottom), primary) {
				bottom++
			}
			if bottom-y >= 30 {
				return image.Pt((left+x-1)/2, (y+bottom)/2), true
			}
		}
	}
	return image.Point{}, false
}

// bodyText counts the text's pixels (the theme's foreground) in a menu
// screen's view, right of the menu, below the view's title and above its
// buttons: a view whose first read has not come back shows none there.
func bodyText(img image.Image) int {
	b := img.Bounds()
	view := image.Rect(b.Min.X+b.Dx()*22/100, b.Min.Y+b.Dy()*17/100, b.Max.X, b.Min.Y+b.Dy()*88/100)
	return count(img, view, text)
}
