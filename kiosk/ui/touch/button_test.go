package touch

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui/art"
)

// In the high-contrast mode every button's text is at least 7:1 against
// its fill, and the fill is opaque, whatever its kind and state; the usual
// colours are not all (the terracotta's white is under 7:1), which is why
// the mode has its own.
func TestHighContrastButtonsReachSevenToOne(t *testing.T) {
	test.NewTempApp(t)
	least := 21.0
	for _, kind := range []Kind{Primary, Secondary, Choice, Chosen, Quiet} {
		for _, state := range []string{"enabled", "pressed", "disabled"} {
			b := NewButton("Jouer", kind, 30, nil)
			b.HighContrast = true
			r := test.WidgetRenderer(b).(*buttonRenderer)
			switch state {
			case "pressed":
				b.pressed = true
			case "disabled":
				b.disabled = true
			}
			fill, _, fg := r.colours()
			_, _, _, a := fill.RGBA()
			assert.Equal(t, uint32(0xFFFF), a, "kind %d %s: an opaque fill", kind, state)
			c := art.Contrast(fg, fill)
			assert.GreaterOrEqual(t, c, 7.0, "kind %d %s", kind, state)
			least = min(least, c)
		}
	}
	t.Logf("the least contrast of a high-contrast button: %.2f:1", least)

	usual := NewButton("Jouer", Primary, 30, nil)
	fill, _, fg := test.WidgetRenderer(usual).(*buttonRenderer).colours()
	assert.Less(t, art.Contrast(fg, fill), 7.0, "the usual Jouer is under 7:1")
}

// A caption wider than its button goes on two lines with WrapCaption, at a
// space, each line within the button; without, it stays one line.
func TestWrapCaption(t *testing.T) {
	test.NewTempApp(t)
	b := NewButton("Finir en Auto", Secondary, 30, nil)
	b.Caption = "dans 20 s ou dès 3 briques restantes"
	b.Resize(fyne.NewSize(260, 110))
	r := test.WidgetRenderer(b).(*buttonRenderer)
	b.Refresh()
	assert.True(t, r.caption2.Hidden, "one line without WrapCaption")

	b.WrapCaption = true
	b.Refresh()
	require.False(t, r.caption2.Hidden)
	assert.Equal(t, b.Caption, r.caption.Text+" "+r.caption2.Text)
	for _, c := range []*canvas.Text{r.caption, r.caption2} {
		assert.LessOrEqual(t, c.MinSize().Width, b.Size().Width, "%q", c.Text)
	}
	assert.Greater(t, r.caption2.Position().Y, r.caption.Position().Y)

	// A resize alone (a window's new size, no Refresh) lays the lines out
	// again for the new width.
	b.Resize(fyne.NewSize(900, 110))
	assert.True(t, r.caption2.Hidden, "wide enough: one line again")
	assert.Equal(t, b.Caption, r.caption.Text)
	b.Resize(fyne.NewSize(260, 110))
	assert.False(t, r.caption2.Hidden, "narrow again: two lines")
}
