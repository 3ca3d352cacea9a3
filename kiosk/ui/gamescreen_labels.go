package ui

import (
	"strconv"

	"pharaon/game/breakout"
)

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
