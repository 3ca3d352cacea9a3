package art

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func TestSymbolResource(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range game.Symbols {
		t.Run(s.String(), func(t *testing.T) {
			col := SymbolResource(s, true)
			sil := SymbolResource(s, false)
			require.NotNil(t, col)
			require.NotNil(t, sil)
			assert.Contains(t, col.Name(), s.String())
			assert.Contains(t, sil.Name(), s.String())
			assert.NotEqual(t, col.Name(), sil.Name(), "Fyne caches rasters by name")
			assert.NotEqual(t, col.Content(), sil.Content())
			assert.False(t, seen[col.Name()] || seen[sil.Name()], "two symbols share a drawing")
			seen[col.Name()], seen[sil.Name()] = true, true
		})
	}
	for _, bad := range []game.Symbol{game.NumSymbols, 200} {
		assert.Nil(t, SymbolResource(bad, true), "symbol %d", bad)
		assert.Nil(t, SymbolResource(bad, false), "symbol %d", bad)
		assert.Nil(t, SymbolGlowResource(bad), "symbol %d", bad)
	}
}

func TestStoneResource(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range game.Stones {
		r := StoneResource(s)
		require.NotNil(t, r, s.String())
		assert.Contains(t, r.Name(), s.String())
		assert.False(t, seen[r.Name()])
		seen[r.Name()] = true
	}
	assert.Nil(t, StoneResource(game.NumStones))
	assert.Equal(t, Lapis, StoneColor(game.NumStones))
}

func TestBrickResourceFoldsVariants(t *testing.T) {
	tests := []struct{ a, b int }{{0, 3}, {1, 4}, {2, 302}, {-1, 2}, {-3, 0}, {-4, 2}}
	for _, tc := range tests {
		assert.Same(t, BrickResource(tc.a), BrickResource(tc.b), "%d and %d", tc.a, tc.b)
	}
	names := map[string]bool{}
	for i := range NumBrickVariants {
		names[BrickResource(i).Name()] = true
	}
	assert.Len(t, names, NumBrickVariants)
	assert.NotEqual(t, BonusBrickResource(false).Content(), BonusBrickResource(true).Content())
	assert.NotEqual(t, CountPipResource(false).Content(), CountPipResource(true).Content())
}

// accessors lists every drawing the screens can ask for, by accessor.
func accessors() map[string]fyne.Resource {
	l, m, r := PaddleSliceResources()
	out := map[string]fyne.Resource{
		"BonusBrick(false)": BonusBrickResource(false), "BonusBrick(true)": BonusBrickResource(true),
		"Slot": SlotResource(), "SymbolPlaque": SymbolPlaqueResource(),
		"Paddle": PaddleResource(), "PaddleLeft": l, "PaddleMiddle": m, "PaddleRight": r,
		"Ball": BallResource(), "GhostMask": GhostMaskResource(),
		"PlayfieldBackdrop": PlayfieldBackdropResource(), "HomeBackdrop": HomeBackdropResource(),
		"Cartouche": CartoucheResource(), "CongratulationFrame": CongratulationFrameResource(),
		"Wordmark": WordmarkResource(), "Pip(false)": CountPipResource(false), "Pip(true)": CountPipResource(true),
	}
	for _, s := range game.Symbols {
		out["Symbol("+s.String()+",true)"] = SymbolResource(s, true)
		out["Symbol("+s.String()+",false)"] = SymbolResource(s, false)
		out["SymbolGlow("+s.String()+")"] = SymbolGlowResource(s)
	}
	for _, s := range game.Stones {
		out["Stone("+s.String()+")"] = StoneResource(s)
	}
	for i := range NumBrickVariants {
		out["Brick("+strconv.Itoa(i)+")"] = BrickResource(i)
	}
	return out
}

func TestAllIsEveryDrawingOnce(t *testing.T) {
	all := All()
	names := map[string]bool{}
	for i, n := range all {
		assert.False(t, names[n.Name], "%s listed twice", n.Name)
		names[n.Name] = true
		assert.Equal(t, n.Name, n.Resource.Name())
		if i > 0 {
			assert.Less(t, all[i-1].Name, n.Name, "All is sorted")
		}
	}
	files, err := fs.Glob(files, "svg/*.svg")
	require.NoError(t, err)
	assert.Len(t, all, len(files)+2*game.NumSymbols, "every file plus a silhouette and a glow per symbol")
	used := map[string]bool{}
	for acc, r := range accessors() {
		require.NotNil(t, r, acc)
		assert.True(t, names[r.Name()], "%s gives %s, not in All", acc, r.Name())
		used[r.Name()] = true
	}
	for n := range names {
		assert.True(t, used[n], "%s is embedded but no accessor returns it", n)
	}
}

// The renderer subset (see the package comment): what Fyne v2.7.1 draws right.
var (
	allowedElements = map[string]bool{
		"svg": true, "defs": true, "linearGradient": true, "radialGradient": true, "stop": true,
		"g": true, "path": true, "polygon": true, "rect": true, "circle": true, "ellipse": true,
	}
	allowedAttrs = map[string]bool{
		"xmlns": true, "viewBox": true, "id": true, "class": true, "fill": true, "fill-opacity": true,
		"opacity": true, "transform": true, "d": true, "points": true, "x": true, "y": true,
		"width": true, "height": true, "rx": true, "ry": true, "cx": true, "cy": true, "r": true,
		"fx": true, "fy": true, "x1": true, "y1": true, "x2": true, "y2": true, "offset": true,
		"stop-color": true, "stop-opacity": true,
	}
	transformOK = regexp.MustCompile(`^(\s*(translate\([-0-9.]+[ ,]+[-0-9.]+\)|rotate\([-0-9.]+([ ,]+[-0-9.]+[ ,]+[-0-9.]+)?\)|scale\([-0-9.]+[ ,]+[-0-9.]+\)))+\s*$`)
	urlRef      = regexp.MustCompile(`^url\(#([A-Za-z0-9_-]+)\)$`)
)

// viewBoxAspects ties each drawing to the aspect constant the screens use.
var viewBoxAspects = map[string]float32{
	"symbol-": SymbolAspect, "stone-": SymbolAspect, "ball": SymbolAspect, "plaque": SymbolAspect,
	"pip-": SymbolAspect, "brick-": BrickAspect, "slot": BrickAspect, "paddle.svg": PaddleAspect,
	"paddle-left": PaddleCapAspect, "paddle-right": PaddleCapAspect, "paddle-body": 1,
	"ghost-mask": GhostMaskAspect, "backdrop-playfield": BackdropAspect, "backdrop-home": HomeBackdropAspect,
	"cartouche": CartoucheAspect, "frame-congratulation": FrameAspect, "wordmark": WordmarkAspect,
}

// TestDrawingsUseOnlyWhatFyneRenders reads every SVG file and refuses what
// Fyne's renderer would draw wrong or not at all, so a later edit cannot
// silently break a drawing on the kiosk.
func TestDrawingsUseOnlyWhatFyneRenders(t *testing.T) {
	entries, err := files.ReadDir("svg")
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			b, err := files.ReadFile(path.Join("svg", e.Name()))
			require.NoError(t, err)
			assert.NoError(t, checkSubset(b))
			w, h, err := viewBox(b)
			require.NoError(t, err)
			found := false
			for prefix, aspect := range viewBoxAspects {
				if strings.HasPrefix(e.Name(), prefix) {
					found = true
					assert.InDelta(t, aspect, w/h, 1e-4, "aspect constant for %s", e.Name())
				}
			}
			assert.True(t, found, "no aspect constant covers %s", e.Name())
		})
	}
	for _, s := range game.Symbols {
		assert.NoError(t, checkSubset(SymbolResource(s, false).Content()), "silhouette of %s", s)
		assert.NoError(t, checkSubset(SymbolGlowResource(s).Content()), "glow of %s", s)
	}
}

func checkSubset(src []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(src))
	defined := map[string]bool{}
	var errs []error
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !allowedElements[se.Name.Local] {
			errs = append(errs, fmt.Errorf("element <%s>", se.Name.Local))
		}
		for _, a := range se.Attr {
			name, v := a.Name.Local, a.Value
			switch {
			case !allowedAttrs[name]:
				errs = append(errs, fmt.Errorf("<%s %s>: attribute not drawn right by Fyne", se.Name.Local, name))
			case name == "id":
				defined[v] = true
			case name == "class" && v != inlayClass:
				errs = append(errs, fmt.Errorf("<%s class=%q>: only %q is meaningful", se.Name.Local, v, inlayClass))
			case name == "transform" && !transformOK.MatchString(v):
				errs = append(errs, fmt.Errorf("<%s transform=%q>: only translate(x,y), rotate and two-argument scale", se.Name.Local, v))
			case name == "fill" && strings.HasPrefix(v, "url("):
				m := urlRef.FindStringSubmatch(v)
				if m == nil || !defined[m[1]] {
					errs = append(errs, fmt.Errorf("<%s fill=%q>: gradients must be defined before use", se.Name.Local, v))
				}
			case name == "fill" || name == "stop-color":
				if v != "none" && !regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`).MatchString(v) {
					errs = append(errs, fmt.Errorf("<%s %s=%q>: write colours as #rrggbb", se.Name.Local, name, v))
				}
			}
		}
	}
	return errors.Join(errs...)
}

func viewBox(src []byte) (w, h float32, err error) {
	var root struct {
		ViewBox string `xml:"viewBox,attr"`
	}
	if err := xml.Unmarshal(src, &root); err != nil {
		return 0, 0, err
	}
	f := strings.Fields(root.ViewBox)
	if len(f) != 4 {
		return 0, 0, fmt.Errorf("viewBox %q", root.ViewBox)
	}
	ww, err1 := strconv.ParseFloat(f[2], 32)
	hh, err2 := strconv.ParseFloat(f[3], 32)
	if err := errors.Join(err1, err2); err != nil || ww <= 0 || hh <= 0 {
		return 0, 0, fmt.Errorf("viewBox %q: %v", root.ViewBox, err)
	}
	return float32(ww), float32(hh), nil
}

func TestSubsetCheckRefusesWhatFyneGetsWrong(t *testing.T) {
	bad := map[string]string{
		"stroke":        `<svg viewBox="0 0 10 10"><path d="M0 0 L5 5" stroke="#000000"/></svg>`,
		"fill-rule":     `<svg viewBox="0 0 10 10"><path d="M0 0 L5 5 Z" fill-rule="evenodd"/></svg>`,
		"text":          `<svg viewBox="0 0 10 10"><text>PHARAON</text></svg>`,
		"userSpace":     `<svg viewBox="0 0 10 10"><linearGradient id="g" gradientUnits="userSpaceOnUse"/></svg>`,
		"scale(1)":      `<svg viewBox="0 0 10 10"><g transform="scale(2)"/></svg>`,
		"late gradient": `<svg viewBox="0 0 10 10"><rect fill="url(#g)" width="1" height="1"/><linearGradient id="g"/></svg>`,
		"named colour":  `<svg viewBox="0 0 10 10"><rect fill="gold" width="1" height="1"/></svg>`,
		"style":         `<svg viewBox="0 0 10 10"><rect style="fill:#000000" width="1" height="1"/></svg>`,
	}
	for name, src := range bad {
		assert.Error(t, checkSubset([]byte(src)), name)
	}
	good := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"><stop offset="0" stop-color="#112233"/></linearGradient></defs><g transform="translate(1,2) rotate(45)"><rect fill="url(#g)" width="1" height="1"/></g></svg>`
	assert.NoError(t, checkSubset([]byte(good)))
}

// displaySize is a size at which a drawing of the given aspect has its smaller
// side equal to px.
func displaySize(aspect float32, px float32) fyne.Size {
	if aspect >= 1 {
		return fyne.NewSize(px*aspect, px)
	}
	return fyne.NewSize(px, px/aspect)
}

func aspectOf(t testing.TB, r fyne.Resource) float32 {
	w, h, err := viewBox(r.Content())
	require.NoError(t, err, r.Name())
	return w / h
}

// TestEveryDrawingRenders draws every resource through Fyne at the two sizes
// of the contact sheet and checks that it is drawn and fills its box.
func TestEveryDrawingRenders(t *testing.T) {
	for _, n := range All() {
		for _, px := range []float32{48, 160} {
			t.Run(fmt.Sprintf("%s@%v", n.Name, px), func(t *testing.T) {
				size := displaySize(aspectOf(t, n.Resource), px)
				img := render(t, n.Resource, size.Width, size.Height)
				visible := 0
				b := img.Bounds()
				for y := b.Min.Y; y < b.Max.Y; y++ {
					for x := b.Min.X; x < b.Max.X; x++ {
						if img.NRGBAAt(x, y).A > 10 {
							visible++
						}
					}
				}
				assert.Greater(t, float64(visible)/float64(b.Dx()*b.Dy()), 0.2, "drawn area of %s", n.Name)
			})
		}
	}
}

// opaqueMask is the set of pixels more than half opaque.
func opaqueMask(img *image.NRGBA) []bool {
	b := img.Bounds()
	m := make([]bool, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			m = append(m, img.NRGBAAt(x, y).A > 128)
		}
	}
	return m
}

func TestSymbolsColouredAndSilhouette(t *testing.T) {
	for _, s := range game.Symbols {
		t.Run(s.String(), func(t *testing.T) {
			for _, px := range []float32{48, 160} {
				col := render(t, SymbolResource(s, true), px, px)
				sil := render(t, SymbolResource(s, false), px, px)
				cs, ss := statsOf(col), statsOf(sil)
				// Art. 4.2: black until revealed; Art. 4.6: coloured once found.
				assert.GreaterOrEqual(t, ss.dark, 0.97, "%v px: the silhouette is black", px)
				assert.GreaterOrEqual(t, cs.coloured, 0.3, "%v px: the revealed symbol is in colour", px)
				assert.Less(t, cs.dark, 0.6, "%v px: the revealed symbol is not mostly black", px)
				assert.Greater(t, float64(ss.opaque)/float64(ss.total), 0.15, "%v px: big enough to read", px)

				// Same outline: the silhouette lies inside the coloured symbol
				// and covers most of it (the white of the eye is a hole).
				cm, sm := opaqueMask(col), opaqueMask(sil)
				outside, inside := 0, 0
				for i := range sm {
					if sm[i] && !cm[i] {
						outside++
					}
					if sm[i] && cm[i] {
						inside++
					}
				}
				assert.LessOrEqual(t, float64(outside), 0.01*float64(ss.opaque), "%v px: silhouette outside the outline", px)
				assert.GreaterOrEqual(t, float64(inside), 0.7*float64(cs.opaque), "%v px: silhouette covers the outline", px)

				// the glow has the silhouette's outline, in pale gold
				gl := render(t, SymbolGlowResource(s), px, px)
				gm := opaqueMask(gl)
				same := 0
				for i := range gm {
					if gm[i] == sm[i] {
						same++
					}
				}
				// (0.97: the glow is a little translucent, so its anti-aliased edge
				// crosses the 50% line a pixel earlier)
				assert.GreaterOrEqual(t, float64(same), 0.97*float64(len(gm)), "%v px: glow and silhouette share the outline", px)
				assert.Less(t, hueDistance(hue(statsOf(gl).mean), hue(GoldLight)), 10.0, "%v px: the glow is gold", px)
			}
		})
	}
}

// TestSymbolsAreDistinctAt48px: at the smallest size the six silhouettes must
// still differ clearly from each other, or the cartouche cannot be read.
func TestSymbolsAreDistinctAt48px(t *testing.T) {
	masks := make([][]bool, game.NumSymbols)
	for i, s := range game.Symbols {
		masks[i] = opaqueMask(render(t, SymbolResource(s, false), 48, 48))
	}
	for i := range masks {
		for j := i + 1; j < len(masks); j++ {
			diff, union := 0, 0
			for k := range masks[i] {
				if masks[i][k] != masks[j][k] {
					diff++
				}
				if masks[i][k] || masks[j][k] {
					union++
				}
			}
			assert.Greater(t, float64(diff)/float64(union), 0.35, "%s and %s look alike", game.Symbols[i], game.Symbols[j])
		}
	}
}

// dominantHue is the mean hue of the saturated, non-dark opaque pixels.
func dominantHue(img *image.NRGBA) float64 {
	var sx, sy float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := img.NRGBAAt(x, y)
			if p.A > 128 && saturation(p) > 0.3 && luma(p) > 0.12 {
				h := hue(p) * math.Pi / 180
				sx += math.Cos(h)
				sy += math.Sin(h)
			}
		}
	}
	return math.Mod(math.Atan2(sy, sx)*180/math.Pi+360, 360)
}

func TestStonesHaveTheirColourAndCut(t *testing.T) {
	masks := map[game.Stone][]bool{}
	for _, s := range game.Stones {
		img := render(t, StoneResource(s), 160, 160)
		h := dominantHue(img)
		want := StoneColor(s)
		best, bestD := game.Stone(0), 999.0
		for _, o := range game.Stones {
			if d := hueDistance(h, hue(StoneColor(o))); d < bestD {
				best, bestD = o, d
			}
		}
		assert.Equal(t, s, best, "%s stone's hue %.0f° is nearest %s (want %.0f°)", s, h, best, hue(want))
		assert.Less(t, bestD, 25.0, "%s stone hue %.0f°", s, h)
		masks[s] = opaqueMask(img)
	}
	// the cuts differ so the stones are told apart without colour vision
	for i, a := range game.Stones {
		for _, b := range game.Stones[i+1:] {
			diff := 0
			for k := range masks[a] {
				if masks[a][k] != masks[b][k] {
					diff++
				}
			}
			assert.Greater(t, diff, len(masks[a])/20, "%s and %s have the same outline", a, b)
		}
	}
}

func TestBricks(t *testing.T) {
	size := displaySize(BrickAspect, 80)
	for i := range NumBrickVariants {
		st := statsOf(render(t, BrickResource(i), size.Width, size.Height))
		h := hue(st.mean)
		assert.True(t, h > 20 && h < 55, "brick %d is sandstone (hue %.0f°)", i, h)
		assert.Greater(t, st.meanLuma, 0.45, "brick %d is light on the night backdrop", i)
	}
	red := render(t, BonusBrickResource(false), size.Width, size.Height)
	assert.Less(t, hueDistance(dominantHue(red), 0), 20.0, "Art. 4.7: the bonus brick is red")
	cracked := render(t, BonusBrickResource(true), size.Width, size.Height)
	diff := 0
	for i := range red.Pix {
		if d := int(red.Pix[i]) - int(cracked.Pix[i]); d > 40 || d < -40 {
			diff++
		}
	}
	assert.Greater(t, diff, len(red.Pix)/50, "the cracked brick shows its first hit")
	slot := statsOf(render(t, SlotResource(), size.Width, size.Height))
	assert.Less(t, slot.meanAlpha, 0.45, "the empty slot is faint")
}

func TestGhostMaskIsPaleAndTranslucent(t *testing.T) {
	size := displaySize(GhostMaskAspect, 240)
	img := render(t, GhostMaskResource(), size.Width, size.Height)
	var l, n float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if p := img.NRGBAAt(x, y); p.A > 0 {
				l += luma(p) * float64(p.A)
				n += float64(p.A)
			}
		}
	}
	st := statsOf(img)
	assert.Greater(t, l/n, 0.65, "Art. 4.4: a pale mask")
	assert.Greater(t, st.meanAlpha, 0.3, "visible over the playfield")
	assert.Less(t, st.meanAlpha, 0.85, "translucent: the game shows through")
}

func TestBackdropsKeepContrast(t *testing.T) {
	brick := statsOf(render(t, BrickResource(0), 180, 80)).mean
	for name, r := range map[string]fyne.Resource{"playfield": PlayfieldBackdropResource(), "home": HomeBackdropResource()} {
		size := displaySize(aspectOf(t, r), 360)
		img := render(t, r, size.Width, size.Height)
		if name == "home" {
			// the calm centre, where the text goes
			p, s := HomeContent.In(fyne.NewPos(0, 0), size)
			img = img.SubImage(image.Rect(int(p.X), int(p.Y), int(p.X+s.Width), int(p.Y+s.Height))).(*image.NRGBA)
		}
		st := statsOf(img)
		// WCAG: 4.5:1 for the bricks and symbols (graphics need 3:1), 7:1
		// (AAA) for text.
		assert.GreaterOrEqual(t, contrast(brick, st.mean), 4.5, "bricks stand out on the %s backdrop", name)
		assert.GreaterOrEqual(t, contrast(Sand, st.mean), 7.0, "text stands out on the %s backdrop", name)
		// calm: no pixel of the backdrop comes near the brightness of a brick
		assert.Less(t, maxLuma(img), luma(brick)*0.6, "%s backdrop has nothing as bright as the game", name)
	}
}

func TestCartoucheRowsSitOnTheTablet(t *testing.T) {
	const w, h = 300, 770
	img := render(t, CartoucheResource(), w, h)
	var prev Box
	for i := range game.NumSymbols {
		for _, b := range []Box{CartoucheSymbolBox(i), CartoucheCountBox(i)} {
			p, s := b.In(fyne.NewPos(0, 0), fyne.NewSize(w, h))
			stone, all := 0, 0
			for y := int(p.Y); y < int(p.Y+s.Height); y++ {
				for x := int(p.X); x < int(p.X+s.Width); x++ {
					c := img.NRGBAAt(x, y)
					all++
					if c.A == 0xFF && luma(c) > 0.7 && saturation(c) < 0.3 {
						stone++
					}
				}
			}
			assert.Equal(t, all, stone, "row %d box %+v is on the limestone, clear of rim and dividers", i, b)
		}
		sym := CartoucheSymbolBox(i)
		assert.Greater(t, CartoucheCountBox(i).X, sym.X+sym.W, "row %d: count right of the symbol", i)
		if i > 0 {
			assert.GreaterOrEqual(t, sym.Y, prev.Y+prev.H, "row %d below row %d", i, i-1)
		}
		prev = sym
	}
	assert.Equal(t, Box{}, CartoucheSymbolBox(-1))
	assert.Equal(t, Box{}, CartoucheCountBox(game.NumSymbols))
}

func TestFrameContentIsOnThePanel(t *testing.T) {
	size := fyne.NewSize(400, 270)
	img := render(t, CongratulationFrameResource(), size.Width, size.Height)
	p, s := FrameContent.In(fyne.NewPos(0, 0), size)
	sub := img.SubImage(image.Rect(int(p.X), int(p.Y), int(p.X+s.Width), int(p.Y+s.Height))).(*image.NRGBA)
	st := statsOf(sub)
	assert.Equal(t, st.total, st.opaque, "the text area is solid")
	assert.Less(t, st.meanLuma, 0.2, "the text area is lapis")
	assert.GreaterOrEqual(t, contrast(GoldLight, st.mean), 7.0, "gold amounts read on it")
}

func maxLuma(img *image.NRGBA) float64 {
	m := 0.0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			m = math.Max(m, luma(img.NRGBAAt(x, y)))
		}
	}
	return m
}
