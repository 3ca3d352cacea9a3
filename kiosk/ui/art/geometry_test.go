package art

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
)

func TestBoxIn(t *testing.T) {
	b := Box{X: 0.25, Y: 0.5, W: 0.5, H: 0.25}
	p, s := b.In(fyne.NewPos(10, 20), fyne.NewSize(200, 400))
	assert.Equal(t, fyne.NewPos(60, 220), p)
	assert.Equal(t, fyne.NewSize(100, 100), s)
}

func TestContentBoxesInsideTheirDrawing(t *testing.T) {
	for name, b := range map[string]Box{"frame": FrameContent, "home": HomeContent, "playfield": PlayfieldInner} {
		assert.True(t, b.X >= 0 && b.Y >= 0 && b.W > 0 && b.H > 0 && b.X+b.W <= 1 && b.Y+b.H <= 1, "%s %+v", name, b)
	}
}

func TestPaddleArtPlace(t *testing.T) {
	tests := []struct {
		name      string
		size      fyne.Size
		wantCap   float32
		wantMiddl float32
	}{
		{"normal", fyne.NewSize(140, 22), 22, 140 - 44},
		{"widened by a pink stone", fyne.NewSize(260, 22), 22, 260 - 44},
		{"narrowed below two caps", fyne.NewSize(30, 22), 15, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPaddleArt()
			pos := fyne.NewPos(100, 700)
			p.Place(pos, tc.size)
			assert.Equal(t, pos, p.Left.Position())
			assert.Equal(t, fyne.NewSize(tc.wantCap, tc.size.Height), p.Left.Size())
			assert.Equal(t, fyne.NewSize(tc.wantCap, tc.size.Height), p.Right.Size())
			assert.Equal(t, pos.X+tc.size.Width, p.Right.Position().X+p.Right.Size().Width, "paddle ends where it should")
			assert.Equal(t, pos.X+tc.wantCap-seamOverlap, p.Middle.Position().X, "middle starts under the left cap")
			assert.Equal(t, tc.wantMiddl+2*seamOverlap, p.Middle.Size().Width, "middle reaches under the right cap")
			assert.Len(t, p.Objects(), 3)
			assert.Same(t, p.Middle, p.Objects()[0], "middle drawn first, under the caps")
		})
	}
}
