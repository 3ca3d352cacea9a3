package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// hazard colours of the development panel: a striped band no player
// could take for part of the game.
var (
	devYellow = color.NRGBA{R: 0xF2, G: 0xC2, B: 0x1B, A: 0xFF}
	devBlack  = color.NRGBA{R: 0x14, G: 0x12, B: 0x10, A: 0xFF}
)

// buildDevPanel is the development-only credit panel: until bank notes are
// accepted, a development run adds test credit with it. It exists only when
// the machine says it is a development build (Snapshot.Dev, set by
// cmd/pharaon's -dev flag alone); the kiosk refuses DevAddCredit otherwise.
func (s *Screens) buildDevPanel(v view) []fyne.CanvasObject {
	x, w := float32(actionsX), float32(actionsW)
	stripes := canvas.NewRasterWithPixels(func(px, py, _, _ int) color.Color {
		if ((px+py)/14)%2 == 0 {
			return devYellow
		}
		return devBlack
	})
	v.place(stripes, x, devY, w, devH)
	plate := canvas.NewRectangle(devBlack)
	v.place(plate, x+8, devY+6, w-16, 24)
	title := v.textAt(s.tr.T(msgDevBadge)+"  ·  "+s.tr.T(msgDevHint), sizeCaption-1, devYellow, true, fyne.TextAlignCenter, x+8, devY+8, w-16)
	objs := []fyne.CanvasObject{stripes, plate, title}
	gap := float32(8)
	bw := (w - 16 - gap*float32(len(DevCredits)-1)) / float32(len(DevCredits))
	for i, amount := range DevCredits {
		b := v.button("+"+s.tr.Money(amount), buttonSecondary, sizeBody+1, func() { s.devCredit(amount) },
			x+8+float32(i)*(bw+gap), devY+devH-devButtonsH-6, bw, devButtonsH)
		objs = append(objs, b)
	}
	return objs
}
