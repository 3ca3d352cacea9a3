package reveal

import (
	"errors"
	"fmt"

	"pharaon/game"
)

// Shape limits every wall honours, so the engine can lay any wall out in
// its field: at most MaxRows rows of at most MaxPerRow bricks.
const (
	MaxRows   = 6
	MaxPerRow = 7
	MaxBricks = MaxRows * MaxPerRow
)

// Wall is one wall of bricks as plain data: the number of bricks in each
// row, top row first (each row is centred, so rows of different lengths
// interlock like courses of masonry), and the content of every brick, row
// by row from the top left. len(Bricks) is the sum of Rows.
type Wall struct {
	Rows   []int
	Bricks []Content
}

// ErrBadWall is returned for a wall that breaks the shape or content rules.
var ErrBadWall = errors.New("bad wall")

// Validate checks the shape (1..MaxRows rows of 1..MaxPerRow bricks, as
// many contents as bricks), that every content is defined and that there
// is at most one red brick.
func (w Wall) Validate() error {
	if len(w.Rows) == 0 || len(w.Rows) > MaxRows {
		return fmt.Errorf("%d rows: %w", len(w.Rows), ErrBadWall)
	}
	n := 0
	for i, r := range w.Rows {
		if r < 1 || r > MaxPerRow {
			return fmt.Errorf("row %d has %d bricks: %w", i, r, ErrBadWall)
		}
		n += r
	}
	if n != len(w.Bricks) {
		return fmt.Errorf("%d bricks for rows of %d: %w", len(w.Bricks), n, ErrBadWall)
	}
	reds := 0
	for i, c := range w.Bricks {
		if !c.Valid() {
			return fmt.Errorf("brick %d: %s: %w", i, c, ErrBadWall)
		}
		if c.IsRed() {
			reds++
		}
	}
	if reds > 1 {
		return fmt.Errorf("%d red bricks: %w", reds, ErrBadWall)
	}
	return nil
}

// Len is the number of bricks.
func (w Wall) Len() int { return len(w.Bricks) }

// Counts is how many of each symbol the wall hides: what it reveals once
// every brick has fallen.
func (w Wall) Counts() game.Counts {
	var c game.Counts
	for _, b := range w.Bricks {
		if s, ok := b.Symbol(); ok {
			c.Add(s)
		}
	}
	return c
}

// Stones is how many spell stones the wall hides.
func (w Wall) Stones() int {
	n := 0
	for _, b := range w.Bricks {
		if _, ok := b.Stone(); ok {
			n++
		}
	}
	return n
}

// Red returns the index of the red brick, if the wall has one (a bonus wall).
func (w Wall) Red() (int, bool) {
	for i, b := range w.Bricks {
		if b.IsRed() {
			return i, true
		}
	}
	return -1, false
}
