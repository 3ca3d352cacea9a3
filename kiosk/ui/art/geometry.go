package art

import (
	"fyne.io/fyne/v2"

	"pharaon/game"
)

// Aspect ratios (width / height) of the drawings, from their view boxes.
// Fyne keeps an SVG's aspect when it rasterises it: size an image at its
// aspect, or use canvas.ImageFillContain (ImageFillCover for backdrops),
// or the drawing is stretched.
const (
	SymbolAspect       float32 = 1          // symbols, stones, ball, plaque, pips: 100×100
	BrickAspect        float32 = 180.0 / 80 // bricks, red brick, slot
	PaddleAspect       float32 = 256.0 / 40 // the whole paddle at its normal width
	PaddleCapAspect    float32 = 1          // each end cap of the sliced paddle: 40×40
	GhostMaskAspect    float32 = 100.0 / 120
	BackdropAspect     float32 = 1200.0 / 900 // the playfield backdrop
	HomeBackdropAspect float32 = 1920.0 / 1080
	CartoucheAspect    float32 = 300.0 / 770
	FrameAspect        float32 = 800.0 / 540
	WordmarkAspect     float32 = 706.0 / 150
)

// Box is a rectangle inside a drawing, in fractions of the drawing's width and
// height, so it holds at any size the drawing is shown.
type Box struct{ X, Y, W, H float32 }

// In places the box inside a drawing shown at pos with size (the drawing's
// own size, at its aspect): the position and size of the box on the canvas.
func (b Box) In(pos fyne.Position, size fyne.Size) (fyne.Position, fyne.Size) {
	return fyne.NewPos(pos.X+b.X*size.Width, pos.Y+b.Y*size.Height),
		fyne.NewSize(b.W*size.Width, b.H*size.Height)
}

// The cartouche's six rows, in view-box units (300×770): the tablet's
// straight part plus the start of its rounded ends, one row per symbol in
// game.Symbols order (Art. 4.2), each a symbol box and a count box side by
// side, clear of the gold rim.
const (
	cartoucheW, cartoucheH = 300.0, 770.0
	cartoucheRowTop        = 76.0
	cartoucheRowPitch      = 99.0
	cartoucheCell          = 84.0
	cartoucheSymbolX       = 58.0
	cartoucheCountX        = 152.0
	cartoucheCountW        = 90.0
)

// CartoucheSymbolBox is where the symbol of row i goes on the cartouche
// (square; row i is game.Symbols[i]). Out-of-range rows give the zero Box.
func CartoucheSymbolBox(i int) Box {
	if i < 0 || i >= game.NumSymbols {
		return Box{}
	}
	y := float32(cartoucheRowTop + cartoucheRowPitch*float64(i) + (cartoucheRowPitch-cartoucheCell)/2)
	return Box{
		X: cartoucheSymbolX / cartoucheW, Y: y / cartoucheH,
		W: cartoucheCell / cartoucheW, H: cartoucheCell / cartoucheH,
	}
}

// CartoucheCountBox is where the count of row i goes, right of its symbol:
// game.MaxPerSymbol pips (CountPipResource) side by side, or a number.
func CartoucheCountBox(i int) Box {
	s := CartoucheSymbolBox(i)
	if s == (Box{}) {
		return Box{}
	}
	return Box{X: cartoucheCountX / cartoucheW, Y: s.Y, W: cartoucheCountW / cartoucheW, H: s.H}
}

// FrameContent is the text area of the congratulation frame: inside the
// coloured border, below the winged sun disc.
var FrameContent = Box{X: 70.0 / 800, Y: 135.0 / 540, W: 660.0 / 800, H: 345.0 / 540}

// HomeContent is the calm centre of the home backdrop, between its columns
// and under its winged sun disc, for the rules, the stakes and the buttons.
// It holds when the backdrop is shown whole at HomeBackdropAspect.
var HomeContent = Box{X: 230.0 / 1920, Y: 250.0 / 1080, W: 1460.0 / 1920, H: 740.0 / 1080}

// PlayfieldInner is the part of the playfield backdrop between its top frieze
// and its bottom band, where the wall and the paddle read best, when the
// backdrop is shown whole at BackdropAspect.
var PlayfieldInner = Box{X: 0, Y: 56.0 / 900, W: 1, H: 808.0 / 900}
