package reveal

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func TestContentRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range game.Symbols {
		c := SymbolContent(s)
		got, ok := c.Symbol()
		require.True(t, ok)
		assert.Equal(t, s, got)
		_, isStone := c.Stone()
		assert.False(t, isStone)
		assert.False(t, c.IsRed())
		assert.Equal(t, s.String(), c.String())
		seen[c.Code()] = true
	}
	for _, s := range game.Stones {
		c := StoneContent(s)
		got, ok := c.Stone()
		require.True(t, ok)
		assert.Equal(t, s, got)
		_, isSym := c.Symbol()
		assert.False(t, isSym)
		seen[c.Code()] = true
	}
	for _, c := range []Content{Empty, Red} {
		_, isSym := c.Symbol()
		_, isStone := c.Stone()
		assert.False(t, isSym || isStone, "%s", c)
		seen[c.Code()] = true
	}
	assert.True(t, Red.IsRed())
	assert.Len(t, seen, int(Red)+1, "codes are distinct")
	assert.False(t, Content(Red+1).Valid())
	assert.Equal(t, "??", Content(200).Code())
	assert.Equal(t, "content(200)", Content(200).String())
	assert.Panics(t, func() { SymbolContent(game.Symbol(6)) })
	assert.Panics(t, func() { StoneContent(game.Stone(3)) })
}

// The numbers are part of the frozen formats (layouts, wall digests).
func TestContentNumbersAreFrozen(t *testing.T) {
	assert.Equal(t, Content(0), Empty)
	assert.Equal(t, Content(1), SymbolContent(game.Bird))
	assert.Equal(t, Content(6), SymbolContent(game.Snake))
	assert.Equal(t, Content(7), StoneContent(game.Pink))
	assert.Equal(t, Content(9), StoneContent(game.Blue))
	assert.Equal(t, Content(10), Red)
}

func TestWallValidate(t *testing.T) {
	ok := Wall{Rows: []int{2, 1}, Bricks: []Content{Empty, Red, SymbolContent(game.Eye)}}
	require.NoError(t, ok.Validate())
	cases := map[string]Wall{
		"no rows":       {},
		"too many rows": {Rows: []int{1, 1, 1, 1, 1, 1, 1}, Bricks: make([]Content, 7)},
		"empty row":     {Rows: []int{0}, Bricks: nil},
		"long row":      {Rows: []int{8}, Bricks: make([]Content, 8)},
		"count":         {Rows: []int{2}, Bricks: make([]Content, 3)},
		"bad content":   {Rows: []int{1}, Bricks: []Content{11}},
		"two reds":      {Rows: []int{2}, Bricks: []Content{Red, Red}},
	}
	for name, w := range cases {
		assert.ErrorIs(t, w.Validate(), ErrBadWall, name)
	}
	i, isBonus := ok.Red()
	assert.True(t, isBonus)
	assert.Equal(t, 1, i)
}
