package ui

import (
	"strconv"

	"pharaon/game"
	"pharaon/game/breakout"
)

// GameLabels are the words of the game screen, French by default (DESIGN.md
// §8); the screens' translations may replace them with SetLabels.
type GameLabels struct {
	Stake    string // caption over the stake
	Credit   string // caption over the credit
	Auto     string // badge of a game played by the system (Art. 4.1)
	RedBrick string // caption of the bonus wall's hit count (Art. 4.7)
	// Money formats an amount (game.Money.French or English).
	Money func(game.Money) string
}

// FrenchGameLabels are the kiosk's default words.
func FrenchGameLabels() GameLabels {
	return GameLabels{
		Stake: "MISE", Credit: "CRÉDIT", Auto: "AUTO", RedBrick: "BRIQUE ROUGE",
		Money: game.Money.French,
	}
}

// EnglishGameLabels are the words in English.
func EnglishGameLabels() GameLabels {
	return GameLabels{
		Stake: "STAKE", Credit: "CREDIT", Auto: "AUTO", RedBrick: "RED BRICK",
		Money: game.Money.English,
	}
}

// withDefaults fills what l leaves empty from the French labels.
func (l GameLabels) withDefaults() GameLabels {
	d := FrenchGameLabels()
	if l.Stake == "" {
		l.Stake = d.Stake
	}
	if l.Credit == "" {
		l.Credit = d.Credit
	}
	if l.Auto == "" {
		l.Auto = d.Auto
	}
	if l.RedBrick == "" {
		l.RedBrick = d.RedBrick
	}
	if l.Money == nil {
		l.Money = d.Money
	}
	return l
}

// Texts that change while a wall is played are made once, so a frame
// formats nothing (and allocates nothing).
var (
	// gsStoneSeconds[n] is "n s": the whole seconds a spell stone still lasts.
	gsStoneSeconds [gsMaxStoneSeconds + 1]string
	// gsRedHitsText[n] is "n/2": the red brick's hits (Art. 4.7).
	gsRedHitsText = [3]string{"0/2", "1/2", "2/2"}
)

// gsMaxStoneSeconds is the longest a stone's effect can be set to last.
const gsMaxStoneSeconds = breakout.MaxStoneTicks / breakout.TicksPerSecond

func init() {
	for i := range gsStoneSeconds {
		gsStoneSeconds[i] = strconv.Itoa(i) + "\u00a0s"
	}
}
