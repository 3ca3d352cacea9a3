package breakout

import (
	"fmt"

	"pharaon/game"
	"pharaon/game/reveal"
)

// EventKind says what happened during a step.
type EventKind uint8

const (
	// BrickHit: the ball hit brick Brick; N is the hits it still needs
	// (0 when this hit destroys it).
	BrickHit EventKind = iota + 1
	// BrickDestroyed: brick Brick fell, uncovering Content.
	BrickDestroyed
	// SymbolRevealed: a destroyed brick uncovered Symbol; the cartouche
	// counts it (Art. 4.6).
	SymbolRevealed
	// StoneStarted: a destroyed brick uncovered Stone, whose effect now
	// lasts Ticks (Art. 4.5). A stone already in effect starts again.
	StoneStarted
	// StoneEnded: Stone's effect is over (its time ran out, the opposite
	// stone replaced it, or the wall is cleared).
	StoneEnded
	// BallLost: the ball fell past the paddle; the ghost mask shows for
	// Ticks (Art. 4.4).
	BallLost
	// BallOnPaddle: the ball is on the paddle, waiting to be launched:
	// back after a loss, or caught by the blue stone's magnet.
	BallOnPaddle
	// Launched: the ball left the paddle.
	Launched
	// PaddleHit: the ball bounced on the paddle (for sound).
	PaddleHit
	// WallBounce: the ball bounced on the field's side or top (for sound).
	WallBounce
	// RedBrickHit: the bonus wall's red brick was hit, N of 2 (Art. 4.7).
	RedBrickHit
	// WallCleared: the wall is done: every brick fell (main wall), or the
	// red brick fell (bonus wall). Step does nothing afterwards.
	WallCleared
	// AutoEngaged: the game continues in Auto after IdleTicks without
	// input, or because the input asked for it.
	AutoEngaged
)

var eventNames = [...]string{
	BrickHit: "brick-hit", BrickDestroyed: "brick-destroyed", SymbolRevealed: "symbol",
	StoneStarted: "stone-started", StoneEnded: "stone-ended", BallLost: "ball-lost",
	BallOnPaddle: "ball-on-paddle", Launched: "launched", PaddleHit: "paddle-hit",
	WallBounce: "wall-bounce", RedBrickHit: "red-brick-hit", WallCleared: "wall-cleared",
	AutoEngaged: "auto-engaged",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Event is one thing that happened during a step. Fields beyond Kind are
// set as each kind's comment says and are zero otherwise (Brick is -1 when
// no brick is concerned).
type Event struct {
	Kind    EventKind
	Brick   int            // index in the wall
	Content reveal.Content // what the brick hides
	Symbol  game.Symbol    // SymbolRevealed
	Stone   game.Stone     // StoneStarted, StoneEnded
	N       int            // BrickHit: hits left; RedBrickHit: 1 or 2
	Ticks   int            // StoneStarted: duration; BallLost: ghost duration
}

func (e Event) String() string {
	switch e.Kind {
	case BrickHit:
		return fmt.Sprintf("%s #%d left=%d", e.Kind, e.Brick, e.N)
	case BrickDestroyed:
		return fmt.Sprintf("%s #%d %s", e.Kind, e.Brick, e.Content)
	case SymbolRevealed:
		return fmt.Sprintf("%s %s", e.Kind, e.Symbol)
	case StoneStarted:
		return fmt.Sprintf("%s %s %d", e.Kind, e.Stone, e.Ticks)
	case StoneEnded:
		return fmt.Sprintf("%s %s", e.Kind, e.Stone)
	case RedBrickHit:
		return fmt.Sprintf("%s %d/2", e.Kind, e.N)
	case BallLost:
		return fmt.Sprintf("%s %d", e.Kind, e.Ticks)
	}
	return e.Kind.String()
}
