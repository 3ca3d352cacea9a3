package art

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Text sizes of the kiosk at scale 1: read from a standing position, at arm's
// length, on a 1280×800 to 1920×1080 touchscreen (DESIGN.md §8: large, calm
// typography). Exported so screens that draw canvas.Text themselves match the
// widgets.
const (
	TextSize       float32 = 20
	CaptionSize    float32 = 16
	SubHeadingSize float32 = 26
	HeadingSize    float32 = 34
	// AmountSize is for the amount of a congratulation window and the credit:
	// the figure the player must not misread (Art. 4.6, 4.8).
	AmountSize float32 = 56
)

// Theme is the kiosk's Fyne theme: the night palette whatever the system
// variant (a kiosk has no light mode), kiosk-sized text and touch-sized
// padding, Fyne's own fonts and icons.
func Theme() fyne.Theme { return kioskTheme{} }

type kioskTheme struct{}

var _ fyne.Theme = kioskTheme{}

func (kioskTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch n {
	case theme.ColorNameBackground:
		return Lapis
	case theme.ColorNameForeground:
		return Sand
	case theme.ColorNamePrimary:
		return Terracotta
	case theme.ColorNameForegroundOnPrimary:
		return Limestone
	case theme.ColorNameButton:
		return LapisLight
	case theme.ColorNameDisabledButton:
		return color.NRGBA{R: 0x1A, G: 0x27, B: 0x55, A: 0xFF}
	case theme.ColorNameDisabled:
		return color.NRGBA{R: 0x8A, G: 0x8F, B: 0xA6, A: 0xFF}
	case theme.ColorNameFocus:
		return Turquoise
	case theme.ColorNameHover:
		return color.NRGBA{R: Gold.R, G: Gold.G, B: Gold.B, A: 0x30}
	case theme.ColorNamePressed:
		return color.NRGBA{A: 0x40}
	case theme.ColorNameSelection:
		return color.NRGBA{R: Turquoise.R, G: Turquoise.G, B: Turquoise.B, A: 0x60}
	case theme.ColorNameInputBackground:
		return color.NRGBA{R: 0x0E, G: 0x1A, B: 0x46, A: 0xFF}
	case theme.ColorNameInputBorder, theme.ColorNameSeparator:
		return GoldDark
	case theme.ColorNamePlaceHolder:
		return color.NRGBA{R: 0xA5, G: 0x9A, B: 0x7E, A: 0xFF}
	case theme.ColorNameHeaderBackground:
		return Night
	case theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground:
		return color.NRGBA{R: 0x16, G: 0x29, B: 0x5F, A: 0xFF}
	case theme.ColorNameScrollBar:
		return color.NRGBA{R: Gold.R, G: Gold.G, B: Gold.B, A: 0xAA}
	case theme.ColorNameScrollBarBackground:
		return color.NRGBA{R: Night.R, G: Night.G, B: Night.B, A: 0x80}
	case theme.ColorNameShadow:
		return color.NRGBA{A: 0x80}
	case theme.ColorNameError:
		return Alert
	case theme.ColorNameSuccess:
		return Malachite
	case theme.ColorNameWarning:
		return Gold
	case theme.ColorNameForegroundOnError, theme.ColorNameForegroundOnSuccess, theme.ColorNameForegroundOnWarning:
		return Ink
	case theme.ColorNameHyperlink:
		return TurquoiseLight
	}
	return theme.DefaultTheme().Color(n, theme.VariantDark)
}

func (kioskTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return TextSize
	case theme.SizeNameCaptionText:
		return CaptionSize
	case theme.SizeNameSubHeadingText:
		return SubHeadingSize
	case theme.SizeNameHeadingText:
		return HeadingSize
	case theme.SizeNamePadding:
		return 6
	case theme.SizeNameInnerPadding:
		// with 20-point text this makes a button about 60 px high: the
		// touch target of DESIGN.md §8
		return 18
	case theme.SizeNameLineSpacing:
		return 6
	case theme.SizeNameInlineIcon:
		return 28
	case theme.SizeNameScrollBar:
		return 18
	case theme.SizeNameScrollBarSmall:
		return 6
	case theme.SizeNameSeparatorThickness, theme.SizeNameInputBorder:
		return 2
	case theme.SizeNameInputRadius:
		return 10
	case theme.SizeNameSelectionRadius:
		return 8
	case theme.SizeNameScrollBarRadius:
		return 4
	}
	return theme.DefaultTheme().Size(n)
}

func (kioskTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

func (kioskTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }
