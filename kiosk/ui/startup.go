package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/kiosk"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
)

// Startup is the window's first screen, shown while the kiosk starts: its
// name, "Démarrage de la borne…" and the steps of the start (opening the
// data and the devices, then the steps of kiosk.Machine.Start), each marked
// waiting, under way or done as the start reports them (Step). The home
// screen replaces it once the machine has started (the caller sets the
// window's content to Screens.Content).
//
// It is cheap to draw on purpose: text and a few circles over the theme's
// lapis, no artwork to rasterise, so that the window's first frame comes as
// soon as Fyne can draw one (docs/performance.md).
//
// Like every Fyne object it is used from the Fyne goroutine only.
type Startup struct {
	tr    Tr
	root  *fyne.Container
	box   *fyne.Container // what build made, redone when the design scale changes
	v     view
	state [kiosk.NumBootSteps]stepState
	dots  [kiosk.NumBootSteps]*canvas.Circle
}

// stepState is where a step of the start is.
type stepState uint8

const (
	stepWaiting stepState = iota
	stepRunning
	stepDone
)

// bootWords are the steps' texts, in kiosk.BootStep order.
var bootWords = [kiosk.NumBootSteps]msg{
	kiosk.BootOpen:     msgBootOpen,
	kiosk.BootStore:    msgBootStore,
	kiosk.BootBlocks:   msgBootBlocks,
	kiosk.BootDevices:  msgBootDevices,
	kiosk.BootRecovery: msgBootRecovery,
	kiosk.BootCredit:   msgBootCredit,
	kiosk.BootCash:     msgBootCash,
}

// NewStartup returns the start-up screen in language l, every step waiting.
func NewStartup(l Lang) *Startup {
	s := &Startup{tr: Tr{Lang: l}}
	s.box = container.NewWithoutLayout()
	s.root = container.New(&startupLayout{s}, s.box)
	return s
}

// Content is the window's content while the kiosk starts.
func (s *Startup) Content() fyne.CanvasObject { return s.root }

// Step marks step begun (done false) or ended (done true). A step ended
// stays ended; an unknown step is ignored.
func (s *Startup) Step(step kiosk.BootStep, done bool) {
	if int(step) >= kiosk.NumBootSteps {
		return
	}
	switch {
	case done:
		s.state[step] = stepDone
	case s.state[step] == stepWaiting:
		s.state[step] = stepRunning
	default:
		return
	}
	if d := s.dots[step]; d != nil {
		s.paintDot(step)
		d.Refresh()
	}
}

func (s *Startup) paintDot(step kiosk.BootStep) {
	d := s.dots[step]
	switch s.state[step] {
	case stepDone:
		d.FillColor, d.StrokeColor = art.GoldLight, art.GoldLight
	case stepRunning:
		d.FillColor, d.StrokeColor = art.Turquoise, art.TurquoiseLight
	default:
		d.FillColor, d.StrokeColor = color.Transparent, art.Sand
	}
}

// build lays the screen out for view v.
func (s *Startup) build(v view) []fyne.CanvasObject {
	name := v.textAt("PHARAON", sizeTitle*1.6, art.GoldLight, true, fyne.TextAlignCenter, 0, 150, designW)
	title := v.textAt(s.tr.T(msgBootTitle), sizeHeading, art.Sand, false, fyne.TextAlignCenter, 0, 260, designW)
	objs := []fyne.CanvasObject{name, title}
	x, y, gap := float32(380), float32(360), float32(46)
	for i := range kiosk.NumBootSteps {
		d := canvas.NewCircle(color.Transparent)
		d.StrokeWidth = 2 * v.k
		v.place(d, x, y+float32(i)*gap+4, 20, 20)
		s.dots[i] = d
		s.paintDot(kiosk.BootStep(i))
		label := v.textAt(s.tr.T(bootWords[i]), sizeBody, art.Sand, false, fyne.TextAlignLeading, x+36, y+float32(i)*gap, designW-x-36-200)
		objs = append(objs, d, label)
	}
	return objs
}

// startupLayout builds the screen again when the window's size changes
// the design scale.
type startupLayout struct{ s *Startup }

func (l *startupLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.s.box.Move(fyne.NewPos(0, 0))
	l.s.box.Resize(size)
	if v := viewFor(size); v != l.s.v {
		l.s.v = v
		l.s.box.Objects = l.s.build(v)
		l.s.box.Refresh()
	}
}

func (l *startupLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(640, 400) }

// WarmHome rasterises the home screen's backdrop for a window of size
// (canvas units, at scale 1 as the screens draw it) into the raster cache,
// so that the home screen, built once the kiosk has started, does not: run
// it beside the start, from any goroutine.
func WarmHome(size fyne.Size) {
	if w, h := play.Pixels(size, 1); w > 0 && h > 0 {
		play.Raster(art.HomeBackdropResource(), w, h, canvas.ImageFillCover)
	}
}
