package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"pharaon/kiosk/ui/art"
)

// showOutOfService shows why the kiosk does not sell (DESIGN.md §7): the
// fault in words a player understands, in French and in English at once (no
// button works here, the language toggle included), and the credit, which
// is kept.
func (s *Screens) showOutOfService() {
	if s.screen == scrOutOfService {
		s.rebuild()
		return
	}
	s.setScreen(scrOutOfService, s.buildOutOfService)
	if s.opt.OnOutOfService != nil {
		s.opt.OnOutOfService()
	}
}

func (s *Screens) buildOutOfService(v view) fyne.CanvasObject {
	snap := s.snap
	x, w := bilingualText(v)
	return s.buildBilingual(v, msgOOSTitle, art.Alert, func(tr Tr, size, y float32) ([]fyne.CanvasObject, float32) {
		objs, ny := v.para(tr.T(msgOOSText), (sizeBody+2)*size, art.Sand, false, fyne.TextAlignCenter, x, y, w)
		lines, ny := v.para(tr.Fault(snap.Fault), sizeBody*size, art.GoldLight, false, fyne.TextAlignCenter, x, ny+6, w)
		objs = append(objs, lines...)
		if snap.Credit > 0 {
			lines, ny = v.para(tr.F(msgOOSCredit, tr.Money(snap.Credit)), sizeBody*size, art.Sand, true, fyne.TextAlignCenter, x, ny+6, w)
			objs = append(objs, lines...)
		}
		return objs, ny
	})
}

// bilingualText is the x and width of a bilingual screen's paragraphs.
func bilingualText(v view) (x, w float32) {
	if v.large {
		return 100, 1080
	}
	return 240, 800
}

// buildBilingual is a screen that speaks to whoever stands at the kiosk
// whatever their language: the title and body in the language shown, then
// again smaller in the other, on the home backdrop (the out-of-service and
// the hand-pay screens). body lays out one language's text from y, at size
// times the usual sizes, and says where it ended.
func (s *Screens) buildBilingual(v view, title msg, titleColour color.Color,
	body func(tr Tr, size, y float32) ([]fyne.CanvasObject, float32)) fyne.CanvasObject {
	px, py, pw, ph := float32(190), float32(196), float32(900), float32(470)
	wm, wy := float32(360), float32(70)
	if v.large {
		// a wider, taller panel, a smaller wordmark over it
		px, py, pw, ph, wm, wy = 60, 120, 1160, 600, 240, 30
	}
	objs := []fyne.CanvasObject{
		s.cover(v, art.HomeBackdropResource()),
		v.image(art.WordmarkResource(), 640-wm/2, wy, wm, wm/art.WordmarkAspect),
		v.panel(px, py, pw, ph),
	}
	y := py + 28
	for i, l := range []Lang{s.tr.Lang, 1 - s.tr.Lang} {
		tr := Tr{Lang: l}
		size := float32(1)
		if i == 1 {
			size = 0.8
			objs = append(objs, v.rule(px+70, y, pw-140))
			y += 20
		}
		objs = append(objs, v.textAt(tr.T(title), sizeTitle*size, titleColour, true, fyne.TextAlignCenter, px, y, pw))
		if v.large {
			y += v.lineHeight(sizeTitle*size, true) + 2
		} else {
			y += 56 * size
		}
		lines, ny := body(tr, size, y)
		objs = append(objs, lines...)
		y = ny + 24
	}
	objs = append(objs, s.buildNotice(v)...)
	return container.NewWithoutLayout(objs...)
}
