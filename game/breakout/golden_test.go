package breakout

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

var update = flag.Bool("update", false, "rewrite the golden replays of testdata/golden (only with a new EngineVersion)")

// goldenGame is a committed game: the unit it was played on (v1 layout),
// the wall, and how it was played when the recording was made.
type goldenGame struct {
	name     string
	stake    game.Stake
	tier     game.Tier
	viaBonus bool
	seed     uint64
	bonus    bool   // the bonus wall rather than the main one
	player   string // "" for Auto from the start
	play     int    // ticks of play before the player walks away
}

var goldenGames = []goldenGame{
	{"050-main-auto", game.Stake050, 0, false, 11, false, "", 0},
	{"100-main-auto", game.Stake100, 6, false, 12, false, "", 0},
	{"200-main-auto", game.Stake200, 3, true, 13, false, "", 0},
	{"200-bonus-auto", game.Stake200, 3, true, 13, true, "", 0},
	{"050-main-tracker", game.Stake050, 7, false, 21, false, "tracker", 30 * TicksPerSecond},
	{"100-main-tracker", game.Stake100, 0, false, 22, false, "tracker", 30 * TicksPerSecond},
	{"200-main-tracker", game.Stake200, 1, false, 23, false, "tracker", 30 * TicksPerSecond},
	{"100-bonus-tracker", game.Stake100, 5, true, 24, true, "tracker", 30 * TicksPerSecond},
	{"050-main-random", game.Stake050, 8, true, 31, false, "random", 20 * TicksPerSecond},
	{"200-main-jitter", game.Stake200, 0, false, 32, false, "jitter", 10 * TicksPerSecond},
}

func (g goldenGame) wall(t testing.TB) reveal.Wall {
	l := walls(t, g.stake, g.tier, g.viaBonus, g.seed)
	if g.bonus {
		return l.Bonus
	}
	return l.Main
}

// record plays the game anew (only with -update).
func (g goldenGame) record(t *testing.T) []byte {
	mode := Play
	if g.player == "" {
		mode = Auto
	}
	w := newWorld(t, g.wall(t), mode, DefaultSettings())
	var p player = still{}
	if g.player != "" {
		p = newPlayer(g.player, g.seed)
	}
	for !w.Done() {
		in := Input{}
		if int(w.Tick()) < g.play {
			in = p.input(w)
		}
		w.Step(in)
	}
	return w.AppendRecording(nil)
}

// Golden replays: each committed recording replays to the committed final
// tick, state hash and event-stream hash. A failure here means the engine
// plays past games differently: restore the behaviour, or bump
// EngineVersion and keep the old engine for recall.
func TestGoldenReplays(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	sums := filepath.Join(dir, "sums.txt")
	if *update {
		var b strings.Builder
		b.WriteString("# name end-tick state-sha256 events-sha256 (go test ./game/breakout -run Golden -update)\n")
		for _, g := range goldenGames {
			rec := g.record(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, g.name+".rec"), rec, 0o644))
			evs := newEventHash()
			w, err := Replay(g.wall(t), rec, evs.add)
			require.NoError(t, err)
			fmt.Fprintf(&b, "%s %d %x %s\n", g.name, w.Tick(), w.Hash(), evs.sum())
		}
		require.NoError(t, os.WriteFile(sums, []byte(b.String()), 0o644))
	}
	f, err := os.Open(sums)
	require.NoError(t, err)
	defer f.Close()
	want := map[string][3]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		var name, tick, state, events string
		_, err := fmt.Sscan(line, &name, &tick, &state, &events)
		require.NoError(t, err, line)
		want[name] = [3]string{tick, state, events}
	}
	require.NoError(t, sc.Err())
	require.Len(t, want, len(goldenGames))
	for _, g := range goldenGames {
		t.Run(g.name, func(t *testing.T) {
			rec, err := os.ReadFile(filepath.Join(dir, g.name+".rec"))
			require.NoError(t, err)
			evs := newEventHash()
			w, err := Replay(g.wall(t), rec, evs.add)
			require.NoError(t, err)
			assert.True(t, w.Done(), "a golden game is played to its end")
			got := [3]string{fmt.Sprint(w.Tick()), fmt.Sprintf("%x", w.Hash()), evs.sum()}
			assert.Equal(t, want[g.name], got)
		})
	}
}
