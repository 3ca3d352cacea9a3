package art

import (
	"image"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/kiosk/ui/golden"
)

// sheet places objects at absolute positions on a lapis page.
type sheet struct {
	objs []fyne.CanvasObject
}

func (s *sheet) add(o fyne.CanvasObject, x, y, w, h float32) {
	o.Move(fyne.NewPos(x, y))
	o.Resize(fyne.NewSize(w, h))
	s.objs = append(s.objs, o)
}

func (s *sheet) image(r fyne.Resource, x, y, w, h float32) *canvas.Image {
	img := canvas.NewImageFromResource(r)
	img.FillMode = canvas.ImageFillContain
	s.add(img, x, y, w, h)
	return img
}

// raster shows a backdrop the way the screens should: rasterised once by
// Rasterize (cover), then a plain image Fyne never re-rasterises.
func (s *sheet) raster(r fyne.Resource, x, y, w, h float32) {
	img, err := Rasterize(r, int(w), int(h), canvas.ImageFillCover)
	if err != nil {
		panic(err)
	}
	s.add(canvas.NewImageFromImage(img), x, y, w, h)
}

func (s *sheet) rect(c color.Color, x, y, w, h float32) {
	r := canvas.NewRectangle(c)
	s.add(r, x, y, w, h)
}

func (s *sheet) text(str string, c color.Color, size float32, bold bool, x, y float32) {
	t := canvas.NewText(str, c)
	t.TextSize = size
	t.TextStyle.Bold = bold
	s.add(t, x, y, t.MinSize().Width, t.MinSize().Height)
}

func (s *sheet) centredText(str string, c color.Color, size float32, bold bool, x, y, w float32) {
	t := canvas.NewText(str, c)
	t.TextSize = size
	t.TextStyle.Bold = bold
	t.Alignment = fyne.TextAlignCenter
	s.add(t, x, y, w, t.MinSize().Height)
}

// capture renders the page through a Fyne test window.
func (s *sheet) capture(t *testing.T, w, h float32) image.Image {
	t.Helper()
	win := test.NewTempWindow(t, container.NewWithoutLayout(s.objs...))
	win.SetPadded(false)
	win.Resize(fyne.NewSize(w, h))
	return win.Canvas().Capture()
}

// contactSheet lays out every drawing at 48 px and 160 px (or the sizes the
// game uses, for the wide ones), labelled, on the lapis of the screens.
func contactSheet() (*sheet, float32, float32) {
	const W = 1600
	s := &sheet{}
	s.rect(Lapis, 0, 0, W, 2000)
	s.text("PHARAON — art du kiosque / kiosk art", GoldLight, HeadingSize, true, 24, 16)
	s.text("kiosk/ui/art — every drawing through Fyne's renderer at 160 px and 48 px (wide drawings at game sizes)", Sand, CaptionSize, false, 24, 62)

	section := func(y float32, title string) {
		s.rect(GoldDark, 24, y, W-48, 2)
		s.text(title, GoldLight, SubHeadingSize, true, 24, y+8)
	}
	label := func(str string, x, y, w float32) { s.centredText(str, Sand, CaptionSize, false, x, y, w) }

	// symbols: revealed on lapis (flying to the cartouche), silhouettes on
	// the cartouche's limestone
	y := float32(100)
	section(y, "Symboles (Art. 4.2, 4.6) — révélés / revealed · silhouettes")
	y += 50
	for i, sym := range game.Symbols {
		x := 24 + float32(i)*258
		label(sym.String(), x, y, 250)
		if sym == game.Bird {
			// a symbol of a winning combination, lit by its glow
			s.image(SymbolGlowResource(sym), x-12, y+14, 184, 184)
		}
		s.image(SymbolResource(sym, true), x, y+26, 160, 160)
		s.image(SymbolResource(sym, true), x+180, y+26+112, 48, 48)
		s.rect(Limestone, x, y+196, 250, 176)
		s.image(SymbolResource(sym, false), x+8, y+204, 160, 160)
		s.image(SymbolResource(sym, false), x+186, y+204+112, 48, 48)
	}

	y += 392
	section(y, "Pierres (Art. 4.5), balle, plaque, compteurs / stones, ball, plaque, pips")
	y += 50
	x := float32(24)
	for _, st := range game.Stones {
		label(st.String(), x, y, 220)
		s.image(StoneResource(st), x, y+26, 160, 160)
		s.image(StoneResource(st), x+170, y+138, 48, 48)
		x += 232
	}
	label("ball", x, y, 220)
	s.image(BallResource(), x, y+26, 160, 160)
	s.image(BallResource(), x+170, y+138, 48, 48)
	x += 232
	label("plaque + eye", x, y, 220)
	s.image(SymbolPlaqueResource(), x, y+26, 160, 160)
	s.image(SymbolResource(game.Eye, true), x+24, y+50, 112, 112)
	s.image(SymbolPlaqueResource(), x+170, y+138, 48, 48)
	s.image(SymbolResource(game.Eye, true), x+177, y+145, 34, 34)
	x += 232
	label("pips", x, y, 200)
	s.image(CountPipResource(true), x+10, y+60, 80, 80)
	s.image(CountPipResource(false), x+100, y+60, 80, 80)
	s.image(CountPipResource(true), x+40, y+150, 36, 36)
	s.image(CountPipResource(false), x+84, y+150, 36, 36)

	y += 210
	section(y, "Briques (Art. 4.1, 4.7) / bricks — 180×80 and 90×40")
	y += 50
	bricks := []struct {
		name string
		r    fyne.Resource
	}{
		{"brick 0", BrickResource(0)}, {"brick 1", BrickResource(1)}, {"brick 2", BrickResource(2)},
		{"red", BonusBrickResource(false)}, {"red, hit once", BonusBrickResource(true)}, {"empty slot", SlotResource()},
	}
	for i, b := range bricks {
		x := 24 + float32(i)*258
		label(b.name, x, y, 190)
		s.image(b.r, x+5, y+26, 180, 80)
		s.image(b.r, x+50, y+116, 90, 40)
	}

	y += 176
	section(y, "Raquette, masque du fantôme (Art. 4.4) / paddle, ghost mask")
	y += 50
	label("paddle 256×40, 128×20", 24, y, 300)
	s.image(PaddleResource(), 44, y+30, 256, 40)
	s.image(PaddleResource(), 108, y+84, 128, 20)
	label("sliced: 180×28, 340×28 (stones)", 340, y, 380)
	p := NewPaddleArt()
	p.Place(fyne.NewPos(440, y+30), fyne.NewSize(180, 28))
	s.objs = append(s.objs, p.Objects()...)
	p = NewPaddleArt()
	p.Place(fyne.NewPos(360, y+78), fyne.NewSize(340, 28))
	s.objs = append(s.objs, p.Objects()...)
	label("ghost mask on the playfield", 740, y, 380)
	s.image(PlayfieldBackdropResource(), 740, y+26, 380, 190).FillMode = canvas.ImageFillCover
	s.image(GhostMaskResource(), 800, y+28, 160, 186)
	s.image(GhostMaskResource(), 1010, y+150, 48, 56)
	label("ghost mask alone", 1160, y, 200)
	s.image(GhostMaskResource(), 1180, y+28, 160, 186)
	s.image(GhostMaskResource(), 1370, y+150, 48, 56)

	y += 232
	section(y, "Cartouche, cadre, titre, fonds / cartouche, frame, wordmark, backdrops")
	y += 50
	label("cartouche", 24, y, 200)
	cw, ch := float32(200), 200/CartoucheAspect
	s.image(CartoucheResource(), 24, y+26, cw, ch)
	counts := game.Counts{2, 0, 1, 3, 0, 1}
	for i, sym := range game.Symbols {
		pos, size := CartoucheSymbolBox(i).In(fyne.NewPos(24, y+26), fyne.NewSize(cw, ch))
		s.image(SymbolResource(sym, counts[i] > 0), pos.X, pos.Y, size.Width, size.Height)
		cpos, csize := CartoucheCountBox(i).In(fyne.NewPos(24, y+26), fyne.NewSize(cw, ch))
		pip := csize.Width / game.MaxPerSymbol
		for k := range game.MaxPerSymbol {
			s.image(CountPipResource(k < counts[i]), cpos.X+float32(k)*pip, cpos.Y+(csize.Height-pip)/2, pip, pip)
		}
	}
	s.image(CartoucheResource(), 240, y+26+ch-160, 160*CartoucheAspect, 160)
	label("congratulation frame 520×351, 160×108", 420, y, 560)
	fw, fh := float32(520), 520/FrameAspect
	s.image(CongratulationFrameResource(), 440, y+26, fw, fh)
	fp, fs := FrameContent.In(fyne.NewPos(440, y+26), fyne.NewSize(fw, fh))
	s.centredText("Félicitations !", GoldLight, HeadingSize, true, fp.X, fp.Y+fs.Height*0.15, fs.Width)
	s.centredText(game.Money(375000).String(), GoldLight, AmountSize, true, fp.X, fp.Y+fs.Height*0.42, fs.Width)
	s.image(CongratulationFrameResource(), 440+fw+20, y+26+fh-108, 160, 108)
	label("wordmark 470×100, 226×48", 1160, y, 420)
	s.image(WordmarkResource(), 1110, y+30, 470, 100)
	s.image(WordmarkResource(), 1232, y+140, 226, 48)
	label("playfield backdrop, home backdrop", 1160, y+200, 420)
	s.image(PlayfieldBackdropResource(), 1150, y+226, 200, 150)
	s.image(HomeBackdropResource(), 1360, y+226, 216, 121.5)
	s.image(PlayfieldBackdropResource(), 1150, y+386, 64, 48)
	s.image(HomeBackdropResource(), 1360, y+357, 85, 48)
	return s, W, y + 26 + ch + 24
}

// gameScene is the game screen at 1280×800 as the screens will build it: the
// playfield on the left, the cartouche on the right (Art. 4.2), for judging the
// art at the size it is played.
func gameScene() *sheet {
	s := &sheet{}
	const pw = 940 // playfield width
	s.rect(Lapis, 0, 0, 1280, 800)
	s.raster(PlayfieldBackdropResource(), 0, 0, pw, 800)
	// a 1 € wall: 31 bricks on 8×4 cells, some already broken
	const bw, bh, gap = 100, 44, 6
	x0 := float32(pw-(8*bw+7*gap)) / 2
	broken := map[int]fyne.Resource{9: nil, 12: SymbolResource(game.Bird, true), 18: StoneResource(game.Pink), 22: nil, 27: nil}
	for i := range 32 {
		if i == 31 {
			continue // 31 bricks at 1 € (Art. 4.1)
		}
		x := x0 + float32(i%8)*(bw+gap)
		y := float32(96 + (i/8)*(bh+gap))
		if r, ok := broken[i]; ok {
			s.image(SlotResource(), x, y, bw, bh)
			if r != nil {
				s.image(SymbolPlaqueResource(), x+bw/2-28, y+bh/2-28, 56, 56)
				s.image(r, x+bw/2-20, y+bh/2-20, 40, 40)
			}
			continue
		}
		s.image(BrickResource(i*7+i/8), x, y, bw, bh)
	}
	// a stone falling, the ball, the paddle widened by a pink stone
	s.image(StoneResource(game.Blue), 612, 420, 44, 44)
	s.image(BallResource(), 455, 640, 24, 24)
	p := NewPaddleArt()
	p.Place(fyne.NewPos(370, 720), fyne.NewSize(200, 26))
	s.objs = append(s.objs, p.Objects()...)
	// the ghost of a lost ball, half faded in
	g := s.image(GhostMaskResource(), 650, 480, 170, 204)
	g.Translucency = 0.35
	// HUD
	s.text("Crédit "+game.Money(1250).String(), GoldLight, SubHeadingSize, true, 20, 14)
	s.text("Mise "+game.Money(100).String(), Sand, SubHeadingSize, false, 260, 14)
	s.text("Élargie 4 s", StonePink, TextSize, true, 740, 18)

	// the cartouche, tall, on the right
	s.rect(Night, pw, 0, 1280-pw, 800)
	ch := float32(760)
	cw := ch * CartoucheAspect
	cx := pw + (1280-pw-cw)/2
	s.image(CartoucheResource(), cx, 20, cw, ch)
	counts := game.Counts{2, 0, 1, 0, 0, 1}
	for i, sym := range game.Symbols {
		pos, size := CartoucheSymbolBox(i).In(fyne.NewPos(cx, 20), fyne.NewSize(cw, ch))
		s.image(SymbolResource(sym, counts[i] > 0), pos.X, pos.Y, size.Width, size.Height)
		cpos, csize := CartoucheCountBox(i).In(fyne.NewPos(cx, 20), fyne.NewSize(cw, ch))
		pip := csize.Width / game.MaxPerSymbol
		for k := range game.MaxPerSymbol {
			s.image(CountPipResource(k < counts[i]), cpos.X+float32(k)*pip+2, cpos.Y+(csize.Height-pip)/2, pip-4, pip-4)
		}
	}
	return s
}

// homeScene is the home screen with a congratulation window over it, at
// 1280×800, with the theme's widgets.
func homeScene() *sheet {
	s := &sheet{}
	s.rect(Lapis, 0, 0, 1280, 800)
	s.raster(HomeBackdropResource(), 0, 0, 1280, 800)
	s.image(WordmarkResource(), 390, 40, 500, 500/WordmarkAspect)
	s.centredText("Choisissez votre mise", Sand, SubHeadingSize, false, 0, 190, 1280)
	for i, st := range game.Stakes {
		b := widget.NewButton(game.Money(st).String(), nil)
		if i == 1 {
			b.Importance = widget.HighImportance
		}
		s.add(b, 400+float32(i)*170, 240, 150, 64)
	}
	play := widget.NewButton("Jouer", nil)
	play.Importance = widget.HighImportance
	s.add(play, 440, 330, 190, 64)
	s.add(widget.NewButton("Auto", nil), 650, 330, 190, 64)
	// the congratulation window rising over it
	fw := float32(600)
	fh := fw / FrameAspect
	fx, fy := (1280-fw)/2, float32(410)
	s.rect(color.NRGBA{A: 0x60}, 0, 0, 1280, 800)
	s.image(CongratulationFrameResource(), fx, fy, fw, fh)
	cp, cs := FrameContent.In(fyne.NewPos(fx, fy), fyne.NewSize(fw, fh))
	s.centredText("Félicitations ! Vous gagnez", Sand, SubHeadingSize, false, cp.X, cp.Y+cs.Height*0.12, cs.Width)
	s.centredText(game.Money(375000).String(), GoldLight, AmountSize, true, cp.X, cp.Y+cs.Height*0.36, cs.Width)
	s.centredText("3 oiseaux", Sand, TextSize, false, cp.X, cp.Y+cs.Height*0.72, cs.Width)
	return s
}

func TestContactSheet(t *testing.T) {
	s, w, h := contactSheet()
	golden.AssertWithin(t, "contact-sheet.png", s.capture(t, w, h), golden.Antialiased)
}

func TestGameScene(t *testing.T) {
	golden.AssertWithin(t, "scene-game-1280x800.png", gameScene().capture(t, 1280, 800), golden.Antialiased)
}

func TestHomeScene(t *testing.T) {
	golden.AssertWithin(t, "scene-home-1280x800.png", homeScene().capture(t, 1280, 800), golden.Antialiased)
}
