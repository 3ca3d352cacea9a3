package printersim

import (
	"fmt"
	"image"
	"strings"
	"sync"
	"unicode/utf8"
)

// Align is a printed line's justification.
type Align int

const (
	Left Align = iota
	Center
	Right
)

// Kind is what a printed line holds.
type Kind int

const (
	TextLine    Kind = iota // characters
	BlankLine               // paper fed with nothing on it
	BarcodeLine             // a barcode symbol (its human readable digits are part of it)
	QRLine                  // a QR code symbol
)

// Run is text printed in one style.
type Run struct {
	Text          string // decoded from the printer's code page to UTF-8
	Bold          bool
	Underline     bool
	Width, Height int // magnification, 1 to 8
}

// Barcode is a printed 1D symbol.
type Barcode struct {
	Symbology   string // "CODE128", "ITF", ...
	HRI         string // the human readable text (printed below, above, both or not at all)
	HRIPosition int    // 0 none, 1 above, 2 below, 3 both
	Height      int    // bar height in dots
	ModuleWidth int    // dots per module
	Values      []int  // CODE128 symbol characters, start to stop (nil for other symbologies)
}

// QRCode is a printed QR symbol.
type QRCode struct {
	Data   string
	Module int  // dots per module
	Level  byte // 'L', 'M', 'Q' or 'H'
}

// Line is one printed line (a barcode or a QR code counts as one).
type Line struct {
	Kind    Kind
	Align   Align
	Runs    []Run    // TextLine
	Barcode *Barcode // BarcodeLine
	QR      *QRCode  // QRLine
}

// Text is the line's content without layout: the runs' text, a barcode's human readable text, a
// QR code's data, or "" for a blank line.
func (l Line) Text() string {
	switch l.Kind {
	case TextLine:
		var b strings.Builder
		for _, r := range l.Runs {
			b.WriteString(r.Text)
		}
		return b.String()
	case BarcodeLine:
		return l.Barcode.HRI
	case QRLine:
		return l.QR.Data
	}
	return ""
}

// Receipt is one piece of paper: what was printed between two cuts, or up to the point where the
// printer stopped.
type Receipt struct {
	Seq      int // 1 for the first receipt of the simulator
	Lines    []Line
	Complete bool  // ended by a cut
	Fault    Fault // why it is incomplete (0 when Complete)
	// Text is the receipt as a person would read it: one line per printed line, each padded to the
	// paper's width in columns with its alignment applied; double-width characters are followed by
	// a space (they take two columns); a barcode reads "||| digits |||" with its human readable
	// line; a QR code reads "[QR: data]". The last line is the cut, or the reason it is missing.
	Text string

	layout  Layout
	imgOnce sync.Once
	img     *image.Paletted
}

// Plain is the content of every line without layout, one per line: what a test searches.
func (r *Receipt) Plain() string {
	var b strings.Builder
	for _, l := range r.Lines {
		b.WriteString(l.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// Layout is the paper's geometry.
type Layout struct {
	Columns int // characters per line in font A (42 on an 80 mm roll with a 72 mm print area)
	Width   int // paper width in dots (576 for 80 mm at 203 dpi)
}

const (
	cellW     = 12 // font A: 12 x 24 dots
	cellH     = 24
	lineSpace = 30 // default line spacing (ESC 2): 1/6 inch at 180 units/inch, about 30 dots
)

// faultTextFR is the French wording of a fault on an incomplete receipt.
var faultTextFR = map[Fault]string{
	PaperOut:      "papier épuisé",
	CoverOpen:     "capot ouvert",
	CutterJam:     "erreur de coupe, ticket non coupé",
	Unrecoverable: "panne de l'imprimante",
	Offline:       "imprimante hors ligne",
	Overheat:      "tête d'impression trop chaude",
	BufferCleared: "impression annulée par l'hôte",
}

func (r *Receipt) renderText() string {
	cols := r.layout.Columns
	var b strings.Builder
	for _, l := range r.Lines {
		switch l.Kind {
		case TextLine:
			writeAligned(&b, cols, l.Align, visual(l.Runs))
		case BlankLine:
			writeAligned(&b, cols, l.Align, "")
		case BarcodeLine:
			bc := l.Barcode
			if bc.HRIPosition&1 != 0 {
				writeAligned(&b, cols, l.Align, bc.HRI)
			}
			writeAligned(&b, cols, l.Align, "||| "+bc.HRI+" |||")
			if bc.HRIPosition&2 != 0 {
				writeAligned(&b, cols, l.Align, bc.HRI)
			}
		case QRLine:
			writeAligned(&b, cols, l.Align, "[QR: "+l.QR.Data+"]")
		}
	}
	if r.Complete {
		writeAligned(&b, cols, Center, strings.Repeat("- ", cols/2-3)+"✂")
	} else {
		writeAligned(&b, cols, Center, fmt.Sprintf("!!! REÇU INCOMPLET : %s !!!", faultTextFR[r.Fault]))
	}
	return b.String()
}

// visual lays runs out in columns: a character of width w is followed by w-1 spaces.
func visual(runs []Run) string {
	var b strings.Builder
	for _, r := range runs {
		for _, c := range r.Text {
			b.WriteRune(c)
			for range r.Width - 1 {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

func writeAligned(b *strings.Builder, cols int, a Align, s string) {
	w := utf8.RuneCountInString(s)
	pad := 0
	if w < cols {
		switch a {
		case Center:
			pad = (cols - w) / 2
		case Right:
			pad = cols - w
		}
	}
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteString(s)
	if rest := cols - pad - w; rest > 0 {
		b.WriteString(strings.Repeat(" ", rest))
	}
	b.WriteByte('\n')
}
