package breakout

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

// walls returns a unit's walls from the frozen v1 layouts.
func walls(t testing.TB, stake game.Stake, tier game.Tier, viaBonus bool, seed uint64) reveal.Walls {
	t.Helper()
	l, err := reveal.Layout(stake, tier, viaBonus, seed, reveal.V1)
	require.NoError(t, err)
	return l
}

func newWorld(t testing.TB, wall reveal.Wall, mode Mode, s Settings) *World {
	t.Helper()
	w, err := New(wall, mode, s)
	require.NoError(t, err)
	return w
}

// wallOf builds a wall from rows and a content per brick (Empty when
// bricks is shorter).
func wallOf(rows []int, bricks ...reveal.Content) reveal.Wall {
	n := 0
	for _, r := range rows {
		n += r
	}
	b := make([]reveal.Content, n)
	copy(b, bricks)
	return reveal.Wall{Rows: rows, Bricks: b}
}

// player makes the inputs of a test game, tick by tick.
type player interface {
	input(w *World) Input
}

// still never touches the screen.
type still struct{}

func (still) input(*World) Input { return Input{} }

// randomPlayer drags to random places and taps at random.
type randomPlayer struct{ r *rand.Rand }

func (p randomPlayer) input(*World) Input {
	var in Input
	if p.r.IntN(8) == 0 {
		in.Steer, in.PaddleX = true, int32(p.r.IntN(FieldWidth+1))
	}
	in.Launch = p.r.IntN(60) == 0
	return in
}

// jitter shakes the paddle by a few units every tick: always activity.
type jitter struct{ r *rand.Rand }

func (p jitter) input(w *World) Input {
	return Input{Steer: true, PaddleX: w.Paddle().X + int32(p.r.IntN(9*Unit)) - 4*Unit, Launch: p.r.IntN(200) == 0}
}

// tracker follows the ball with some error and launches after a while: a
// player who plays.
type tracker struct{ r *rand.Rand }

func (p tracker) input(w *World) Input {
	b := w.Ball()
	aim := b.X + int32(p.r.IntN(120*Unit)) - 60*Unit
	return Input{Steer: true, PaddleX: aim, Launch: b.Phase == OnPaddle && p.r.IntN(40) == 0}
}

func newPlayer(kind string, seed uint64) player {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	switch kind {
	case "still":
		return still{}
	case "random":
		return randomPlayer{r}
	case "jitter":
		return jitter{r}
	case "tracker":
		return tracker{r}
	}
	panic(kind)
}

// eventHash hashes a game's event stream, step by step.
type eventHash struct{ h hash.Hash }

func newEventHash() *eventHash { return &eventHash{sha256.New()} }

func (e *eventHash) add(tick uint32, ev []Event) {
	var b [64]byte
	for _, x := range ev {
		s := binary.LittleEndian.AppendUint32(b[:0], tick)
		s = append(s, byte(x.Kind), byte(x.Content), byte(x.Symbol), byte(x.Stone))
		s = binary.LittleEndian.AppendUint64(s, uint64(int64(x.Brick)))
		s = binary.LittleEndian.AppendUint64(s, uint64(int64(x.N)))
		s = binary.LittleEndian.AppendUint64(s, uint64(int64(x.Ticks)))
		e.h.Write(s)
	}
}

func (e *eventHash) sum() string { return fmt.Sprintf("%x", e.h.Sum(nil)) }
