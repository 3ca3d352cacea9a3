package art

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

func TestThemePalette(t *testing.T) {
	th := Theme()
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		tests := []struct {
			name fyne.ThemeColorName
			want color.NRGBA
		}{
			{theme.ColorNameBackground, Lapis},
			{theme.ColorNameForeground, Sand},
			{theme.ColorNamePrimary, Terracotta},
			{theme.ColorNameFocus, Turquoise},
			{theme.ColorNameButton, LapisLight},
			{theme.ColorNameError, Alert},
			{theme.ColorNameSuccess, Malachite},
			{theme.ColorNameHyperlink, TurquoiseLight},
		}
		for _, tc := range tests {
			assert.Equal(t, tc.want, nrgba(th.Color(tc.name, v)), "%s in variant %d: a kiosk has one look", tc.name, v)
		}
	}
}

// TestThemeIsReadable checks every text colour against the ground it is
// drawn on: WCAG AA (4.5:1) at least, AAA (7:1) for body text.
func TestThemeIsReadable(t *testing.T) {
	th := Theme()
	c := func(n fyne.ThemeColorName) color.NRGBA { return nrgba(th.Color(n, theme.VariantDark)) }
	tests := []struct {
		fg, bg fyne.ThemeColorName
		min    float64
	}{
		{theme.ColorNameForeground, theme.ColorNameBackground, 7},
		{theme.ColorNameForeground, theme.ColorNameButton, 4.5},
		{theme.ColorNameForeground, theme.ColorNameInputBackground, 7},
		{theme.ColorNameForeground, theme.ColorNameOverlayBackground, 7},
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary, 4.5},
		{theme.ColorNameForegroundOnError, theme.ColorNameError, 4.5},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess, 4.5},
		{theme.ColorNameForegroundOnWarning, theme.ColorNameWarning, 4.5},
		{theme.ColorNameError, theme.ColorNameBackground, 4.5},
		{theme.ColorNameHyperlink, theme.ColorNameBackground, 4.5},
		{theme.ColorNamePlaceHolder, theme.ColorNameInputBackground, 4.5},
		{theme.ColorNameFocus, theme.ColorNameBackground, 3}, // a graphic, not text
	}
	for _, tc := range tests {
		assert.GreaterOrEqual(t, contrast(c(tc.fg), c(tc.bg)), tc.min, "%s on %s", tc.fg, tc.bg)
	}
	assert.GreaterOrEqual(t, contrast(GoldLight, Lapis), 7.0, "amounts in gold on lapis")
	assert.GreaterOrEqual(t, contrast(Ink, Limestone), 7.0, "ink on the cartouche")
}

func TestThemeSizesAreForAKiosk(t *testing.T) {
	th := Theme()
	assert.GreaterOrEqual(t, th.Size(theme.SizeNameText), float32(20))
	assert.Greater(t, th.Size(theme.SizeNameSubHeadingText), th.Size(theme.SizeNameText))
	assert.Greater(t, th.Size(theme.SizeNameHeadingText), th.Size(theme.SizeNameSubHeadingText))
	assert.Greater(t, AmountSize, HeadingSize)
	assert.GreaterOrEqual(t, th.Size(theme.SizeNameCaptionText), float32(16), "even small print is read standing")
	assert.Equal(t, theme.DefaultTheme().Size(theme.SizeNameWindowTitleBarHeight), th.Size(theme.SizeNameWindowTitleBarHeight), "unset sizes fall back to Fyne's")
	require.NotNil(t, th.Font(fyne.TextStyle{Bold: true}))
	require.NotNil(t, th.Icon(theme.IconNameConfirm))
}

// TestButtonsAreTouchTargets: with the theme, a plain button is at least 60 px
// high (DESIGN.md §8: touch targets of 60 px or more).
func TestButtonsAreTouchTargets(t *testing.T) {
	b := widget.NewButton("Jouer", nil)
	assert.GreaterOrEqual(t, b.MinSize().Height, float32(60))
	b = widget.NewButtonWithIcon("Auto", theme.MediaPlayIcon(), nil)
	assert.GreaterOrEqual(t, b.MinSize().Height, float32(60))
}
