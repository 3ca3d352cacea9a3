package art

import (
	"embed"
	"fmt"
	"image/color"
	"path"
	"sort"
	"strings"

	"fyne.io/fyne/v2"

	"pharaon/game"
)

//go:embed svg/*.svg
var files embed.FS

// Silhouette colour of an unrevealed symbol: black, as Art. 4.2 says.
var silhouetteInk = color.NRGBA{A: 0xff}

// glowInk paints the halo of a symbol in a winning combination.
var glowInk = color.NRGBA{R: GoldLight.R, G: GoldLight.G, B: GoldLight.B, A: 0xE0}

// Resource names are the file names under svg/ (Fyne caches rasterised SVGs
// by resource name and size, so every drawing has its own name).
var (
	symbolFiles = [game.NumSymbols]string{
		game.Bird:   "symbol-bird.svg",
		game.Scarab: "symbol-scarab.svg",
		game.Cross:  "symbol-cross.svg",
		game.Head:   "symbol-head.svg",
		game.Eye:    "symbol-eye.svg",
		game.Snake:  "symbol-snake.svg",
	}
	stoneFiles = [game.NumStones]string{
		game.Pink:  "stone-pink.svg",
		game.Green: "stone-green.svg",
		game.Blue:  "stone-blue.svg",
	}
	brickFiles = [NumBrickVariants]string{"brick-1.svg", "brick-2.svg", "brick-3.svg"}
)

// NumBrickVariants is how many sandstone brick drawings there are; the
// screens pick one per brick (BrickResource) so a wall is not monotonous.
const NumBrickVariants = 3

var (
	byName      = map[string]fyne.Resource{}
	symbols     [game.NumSymbols]fyne.Resource
	silhouettes [game.NumSymbols]fyne.Resource
	glows       [game.NumSymbols]fyne.Resource
	stones      [game.NumStones]fyne.Resource
	bricks      [NumBrickVariants]fyne.Resource
)

func init() {
	entries, err := files.ReadDir("svg")
	if err != nil {
		panic(fmt.Sprintf("art: read embedded svg: %v", err))
	}
	for _, e := range entries {
		b, err := files.ReadFile(path.Join("svg", e.Name()))
		if err != nil {
			panic(fmt.Sprintf("art: read embedded %s: %v", e.Name(), err))
		}
		byName[e.Name()] = fyne.NewStaticResource(e.Name(), b)
	}
	for s, name := range symbolFiles {
		symbols[s] = must(name)
		sil, err := Silhouette(symbols[s].Content(), silhouetteInk)
		if err != nil {
			panic(fmt.Sprintf("art: %s: %v", name, err))
		}
		silName := strings.TrimSuffix(name, ".svg") + "-silhouette.svg"
		silhouettes[s] = fyne.NewStaticResource(silName, sil)
		byName[silName] = silhouettes[s]
		glow, err := Silhouette(symbols[s].Content(), glowInk)
		if err != nil {
			panic(fmt.Sprintf("art: %s: %v", name, err))
		}
		glowName := strings.TrimSuffix(name, ".svg") + "-glow.svg"
		glows[s] = fyne.NewStaticResource(glowName, glow)
		byName[glowName] = glows[s]
	}
	for s, name := range stoneFiles {
		stones[s] = must(name)
	}
	for i, name := range brickFiles {
		bricks[i] = must(name)
	}
}

// must returns the embedded drawing called name; a missing file is a build
// mistake that the package's tests catch, so it panics at start-up.
func must(name string) fyne.Resource {
	r, ok := byName[name]
	if !ok {
		panic("art: missing embedded drawing " + name)
	}
	return r
}

// SymbolResource is the drawing of a symbol of the cartouche (Art. 4.2): in
// colour once revealed, as a black silhouette of the same outline before
// (Art. 4.6). It returns nil for a value that is not one of game.Symbols.
// Square, 100×100 view box.
func SymbolResource(s game.Symbol, revealed bool) fyne.Resource {
	if !s.Valid() {
		return nil
	}
	if revealed {
		return symbols[s]
	}
	return silhouettes[s]
}

// SymbolGlowResource is the outline of a symbol in pale gold, to draw behind
// the coloured symbol, a little larger (about 115%), while a winning
// combination blinks on the cartouche (Art. 4.6): fade it in and out with
// canvas.Image.Translucency. Nil for an invalid symbol. Square.
func SymbolGlowResource(s game.Symbol) fyne.Resource {
	if !s.Valid() {
		return nil
	}
	return glows[s]
}

// StoneResource is the cut gem of a spell stone (Art. 4.5): pink round
// brilliant, green emerald cut, blue princess cut (the cuts differ so the
// stones are told apart without colour vision). Nil for an invalid stone.
// Square, 100×100 view box.
func StoneResource(s game.Stone) fyne.Resource {
	if !s.Valid() {
		return nil
	}
	return stones[s]
}

// BrickResource is a carved sandstone brick; variant is any number (the brick's
// index in the wall will do) and is folded onto the NumBrickVariants drawings.
// Aspect BrickAspect (180×80 view box).
func BrickResource(variant int) fyne.Resource {
	v := variant % NumBrickVariants
	if v < 0 {
		v += NumBrickVariants
	}
	return bricks[v]
}

// BonusBrickResource is the red brick in the centre of the bonus wall
// (Art. 4.7), intact or cracked after the first of its two hits.
// Aspect BrickAspect.
func BonusBrickResource(cracked bool) fyne.Resource {
	if cracked {
		return must("brick-red-cracked.svg")
	}
	return must("brick-red.svg")
}

// SlotResource is the faint recess drawn where a destroyed brick uncovered
// nothing. Aspect BrickAspect; mostly transparent, meant over the playfield
// backdrop.
func SlotResource() fyne.Resource { return must("slot.svg") }

// SymbolPlaqueResource is a limestone roundel with a gold rim to put behind a
// symbol revealed on the playfield, so the symbol reads on the dark backdrop
// before it flies to the cartouche. Square.
func SymbolPlaqueResource() fyne.Resource { return must("plaque.svg") }

// PaddleResource is the whole paddle at its normal width (aspect PaddleAspect).
// A paddle widened or narrowed by a stone should be drawn with the three
// slices of PaddleSliceResources so its end caps keep their shape.
func PaddleResource() fyne.Resource { return must("paddle.svg") }

// PaddleSliceResources are the paddle's left cap, stretchable middle and right
// cap. The caps have aspect PaddleCapAspect (width/height); the middle is
// drawn with horizontal bands only, so stretching it sideways does not show.
func PaddleSliceResources() (left, middle, right fyne.Resource) {
	return must("paddle-left.svg"), must("paddle-body.svg"), must("paddle-right.svg")
}

// CountPipResource is a bead for counting a symbol on the cartouche (Art. 4.6):
// filled (gold and carnelian) for each one revealed, empty (a recess in the
// stone) for the rest up to game.MaxPerSymbol. Square. Text ("×2") works too;
// pips need no translation.
func CountPipResource(filled bool) fyne.Resource {
	if filled {
		return must("pip-full.svg")
	}
	return must("pip-empty.svg")
}

// BallResource is the polished gold ball. Square.
func BallResource() fyne.Resource { return must("ball.svg") }

// GhostMaskResource is the pale translucent funerary mask of a pharaoh's
// ghost shown when the ball is lost (Art. 4.4). It is already translucent;
// fade it in and out with canvas.Image.Translucency. Aspect GhostMaskAspect.
func GhostMaskResource() fyne.Resource { return must("ghost-mask.svg") }

// PlayfieldBackdropResource is the tomb-wall night behind the brick-breaker:
// deep lapis, faint ceiling stars, a low frieze. Calm, so bricks, ball and
// symbols keep their contrast. Aspect BackdropAspect; draw it with
// canvas.ImageFillCover or at that aspect.
func PlayfieldBackdropResource() fyne.Resource { return must("backdrop-playfield.svg") }

// HomeBackdropResource is the backdrop of the home screen, richer than the
// playfield's, with a calm centre for the rules and the stakes. 16:9
// (HomeBackdropAspect); draw it with canvas.ImageFillCover.
func HomeBackdropResource() fyne.Resource { return must("backdrop-home.svg") }

// CartoucheResource is the gold-rimmed oval tablet on the right of the game
// screen (Art. 4.2). It is tall (CartoucheAspect); the six symbols and their
// counts go in the rows given by CartoucheRow.
func CartoucheResource() fyne.Resource { return must("cartouche.svg") }

// CongratulationFrameResource is the frame of the congratulation windows
// (Art. 4.6, 4.7, 4.8). Aspect FrameAspect; its text area is FrameContent.
func CongratulationFrameResource() fyne.Resource { return must("frame-congratulation.svg") }

// WordmarkResource is the "PHARAON" title drawn as shapes (no font needed).
// Aspect WordmarkAspect.
func WordmarkResource() fyne.Resource { return must("wordmark.svg") }

// Named is one drawing of the package with the name it is listed under.
type Named struct {
	Name     string
	Resource fyne.Resource
}

// All lists every drawing of the package, symbol silhouettes and glows included, sorted
// by name: for tests, contact sheets and preloading.
func All() []Named {
	out := make([]Named, 0, len(byName))
	for n, r := range byName {
		out = append(out, Named{Name: n, Resource: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
