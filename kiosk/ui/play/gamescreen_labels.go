package play

import (
	"strconv"

	"pharaon/game/breakout"
)

// Texts that change while a wall is played are made once, so a frame
// formats nothing (and allocates nothing).
var (
	// stoneSeconds[n] is "n s": the whole seconds a spell stone still lasts.
	stoneSeconds [maxStoneSeconds + 1]string
	// redHitsText[n] is "n/2": the red brick's hits (Art. 4.7).
	redHitsText = [3]string{"0/2", "1/2", "2/2"}
)

// maxStoneSeconds is the longest a stone's effect can be set to last.
const maxStoneSeconds = breakout.MaxStoneTicks / breakout.TicksPerSecond

func init() {
	for i := range stoneSeconds {
		stoneSeconds[i] = strconv.Itoa(i) + "\u00a0s"
	}
}
