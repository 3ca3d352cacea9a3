package reveal

import (
	"fmt"

	"pharaon/game"
)

// Content is what lies under one brick: nothing, one of the six symbols
// (Art. 4.2), one of the three spell stones (Art. 4.5), or, on the bonus
// wall only, the red brick (Art. 4.7). The zero value is Empty.
//
// The numeric values are part of the frozen layout versions and of the
// recordings' wall digest: never renumber them.
type Content uint8

const (
	Empty Content = 0
	// 1..6 are the symbols in game.Symbols order, 7..9 the stones in
	// game.Stones order.
	firstSymbol Content = 1
	firstStone  Content = firstSymbol + game.NumSymbols
	// Red is the bonus wall's red brick, which falls on its second hit.
	Red Content = firstStone + game.NumStones
)

// SymbolContent is a brick hiding symbol s.
func SymbolContent(s game.Symbol) Content {
	if !s.Valid() {
		panic(fmt.Sprintf("reveal: invalid %s", s))
	}
	return firstSymbol + Content(s)
}

// StoneContent is a brick hiding spell stone s.
func StoneContent(s game.Stone) Content {
	if !s.Valid() {
		panic(fmt.Sprintf("reveal: invalid %s", s))
	}
	return firstStone + Content(s)
}

// Symbol returns the symbol under the brick, if it hides one.
func (c Content) Symbol() (game.Symbol, bool) {
	if c >= firstSymbol && c < firstStone {
		return game.Symbol(c - firstSymbol), true
	}
	return 0, false
}

// Stone returns the spell stone under the brick, if it hides one.
func (c Content) Stone() (game.Stone, bool) {
	if c >= firstStone && c < Red {
		return game.Stone(c - firstStone), true
	}
	return 0, false
}

// IsRed reports whether this is the bonus wall's red brick.
func (c Content) IsRed() bool { return c == Red }

// Valid reports whether c is one of the defined contents.
func (c Content) Valid() bool { return c <= Red }

// codes are the two-letter codes of the text form (Layout.String).
var codes = [Red + 1]string{"..", "Bi", "Sc", "Cr", "He", "Ey", "Sn", "pk", "gn", "bl", "RR"}

// Code is the content's two-letter code in the text form of a layout:
// ".." empty, "Bi" "Sc" "Cr" "He" "Ey" "Sn" the symbols, "pk" "gn" "bl"
// the stones, "RR" the red brick.
func (c Content) Code() string {
	if c.Valid() {
		return codes[c]
	}
	return "??"
}

func (c Content) String() string {
	if s, ok := c.Symbol(); ok {
		return s.String()
	}
	if s, ok := c.Stone(); ok {
		return s.String() + " stone"
	}
	switch c {
	case Empty:
		return "empty"
	case Red:
		return "red"
	}
	return fmt.Sprintf("content(%d)", uint8(c))
}
