package art

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// PaddleArt is the paddle drawn as three images, left cap, middle and right
// cap, so it can be widened or narrowed by a spell stone (Art. 4.5) without
// stretching its caps. Build it once with the renderer's objects and move it
// with Place every frame (DESIGN.md §8: objects are moved, not rebuilt).
type PaddleArt struct {
	Left, Middle, Right *canvas.Image
}

// seamOverlap is how far the middle slice runs under each cap.
const seamOverlap float32 = 1

// NewPaddleArt makes the three images of the paddle.
func NewPaddleArt() *PaddleArt {
	l, m, r := PaddleSliceResources()
	p := &PaddleArt{
		Left:   canvas.NewImageFromResource(l),
		Middle: canvas.NewImageFromResource(m),
		Right:  canvas.NewImageFromResource(r),
	}
	p.Left.FillMode = canvas.ImageFillStretch
	p.Middle.FillMode = canvas.ImageFillStretch // horizontal bands only: stretching does not show
	p.Right.FillMode = canvas.ImageFillStretch
	return p
}

// Objects are the paddle's images, for a renderer's object list.
func (p *PaddleArt) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{p.Middle, p.Left, p.Right}
}

// Place lays the paddle out in the rectangle at pos of the given size: each
// cap is as wide as the paddle is high (PaddleCapAspect), the middle takes the
// rest (and a unit under each cap). A paddle narrower than its two caps shares its width between them.
func (p *PaddleArt) Place(pos fyne.Position, size fyne.Size) {
	capW := size.Height * PaddleCapAspect
	if 2*capW > size.Width {
		capW = size.Width / 2
	}
	midW := size.Width - 2*capW
	p.Left.Move(pos)
	p.Left.Resize(fyne.NewSize(capW, size.Height))
	// the middle runs one unit under each cap so rounding leaves no seam
	p.Middle.Move(fyne.NewPos(pos.X+capW-seamOverlap, pos.Y))
	p.Middle.Resize(fyne.NewSize(midW+2*seamOverlap, size.Height))
	p.Right.Move(fyne.NewPos(pos.X+capW+midW, pos.Y))
	p.Right.Resize(fyne.NewSize(capW, size.Height))
}
