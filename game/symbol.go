package game

import "fmt"

// Symbol is one of the six symbols hidden under the wall and listed on the
// cartouche (Art. 4.2), in the regulation's order.
type Symbol uint8

const (
	Bird   Symbol = iota // oiseau
	Scarab               // scarabée
	Cross                // croix (ankh)
	Head                 // tête
	Eye                  // œil
	Snake                // serpent

	// NumSymbols is the number of symbols on the cartouche.
	NumSymbols = 6
)

// Symbols lists the six symbols in the cartouche's order.
var Symbols = [NumSymbols]Symbol{Bird, Scarab, Cross, Head, Eye, Snake}

var symbolNames = [NumSymbols]string{"bird", "scarab", "cross", "head", "eye", "snake"}

// String is the symbol's identifier in logs and files ("bird"); the screens
// translate it.
func (s Symbol) String() string {
	if s < NumSymbols {
		return symbolNames[s]
	}
	return fmt.Sprintf("symbol(%d)", uint8(s))
}

// Valid reports whether s is one of the six symbols.
func (s Symbol) Valid() bool { return s < NumSymbols }

// Stone is a spell stone (symbole sortilège, Art. 4.5).
type Stone uint8

const (
	Pink  Stone = iota // widens the paddle for a few seconds
	Green              // narrows the paddle for a few seconds
	Blue               // makes the ball stick to the paddle until launched, for a few seconds

	NumStones = 3
)

// Stones lists the three spell stones.
var Stones = [NumStones]Stone{Pink, Green, Blue}

var stoneNames = [NumStones]string{"pink", "green", "blue"}

func (s Stone) String() string {
	if s < NumStones {
		return stoneNames[s]
	}
	return fmt.Sprintf("stone(%d)", uint8(s))
}

// Valid reports whether s is one of the three stones.
func (s Stone) Valid() bool { return s < NumStones }

// Counts is how many of each symbol a wall has revealed, indexed by Symbol.
type Counts [NumSymbols]int

// Add counts one more s.
func (c *Counts) Add(s Symbol) { c[s]++ }
