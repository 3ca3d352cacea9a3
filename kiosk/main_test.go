package kiosk

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// The tests share one database template holding a block of each stake whose
// first units are a scenario: a loser, then every tier won directly, then
// every tier won through the bonus; the rest of the block follows. Each test
// copies the template, so every test sells the same units in the same order.

var (
	testKey  = ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	testKeys = block.NewKeySet(testKey.Public().(ed25519.PublicKey))

	templateDir  string
	templateOnce sync.Once
	templateErr  error
)

// scenario is the head of every test block.
type scenarioUnit struct {
	tier     game.Tier
	viaBonus bool
}

func scenario() []scenarioUnit {
	s := []scenarioUnit{{game.TierLose, false}}
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		s = append(s, scenarioUnit{t, false})
	}
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		s = append(s, scenarioUnit{t, true})
	}
	return s
}

// writeScenarioBlock writes a signed block of stake whose first units are
// scenario(), with seeds derived from the position.
func writeScenarioBlock(w io.Writer, stake game.Stake, number uint32) error {
	tab := game.Table(stake)
	var bonus [game.NumTiers]uint32
	for i, n := range block.DefaultBonusShare {
		lots := tab.Prizes[i].Lots
		bonus[i] = uint32((lots*int(n) + 500) / 1000)
		if bonus[i] == 0 {
			bonus[i] = 1
		}
	}
	h := block.Header{Emission: 1, Number: number, Stake: stake, BonusLots: bonus,
		Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	bw, err := block.NewWriter(w, h, testKey)
	if err != nil {
		return err
	}
	// What remains to place, per tier: direct and via bonus.
	var direct, via [game.NumTiers + 1]int
	direct[0] = tab.Losers()
	for i, p := range tab.Prizes {
		direct[i+1] = p.Lots - int(bonus[i])
		via[i+1] = int(bonus[i])
	}
	idx := uint32(0)
	put := func(t game.Tier, vb bool) error {
		u := block.Unit{Index: idx, Tier: t, ViaBonus: vb, Seed: uint64(idx)*0x9e3779b97f4a7c15 + uint64(stake)}
		idx++
		if vb {
			via[t]--
		} else {
			direct[t]--
		}
		return bw.Write(u)
	}
	for _, s := range scenario() {
		if err := put(s.tier, s.viaBonus); err != nil {
			return err
		}
	}
	for t := game.Tier(0); t <= game.NumTiers; t++ {
		for direct[t] > 0 {
			if err := put(t, false); err != nil {
				return err
			}
		}
		for via[t] > 0 {
			if err := put(t, true); err != nil {
				return err
			}
		}
	}
	return bw.Close()
}

func buildTemplate() {
	templateDir, templateErr = os.MkdirTemp("", "kiosk-template-")
	if templateErr != nil {
		return
	}
	st, err := store.Open(filepath.Join(templateDir, "pharaon.db"))
	if err != nil {
		templateErr = err
		return
	}
	defer st.Close()
	for i, s := range game.Stakes {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeScenarioBlock(pw, s, uint32(i+1))) }()
		if _, err := st.ImportBlock(context.Background(), pr, testKeys); err != nil {
			templateErr = fmt.Errorf("import %s block: %w", s, err)
			return
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if templateDir != "" {
		os.RemoveAll(templateDir)
	}
	os.Exit(code)
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	t     *testing.T
	path  string
	clock *fakeClock
	st    *store.Store
	m     *Machine
	cfg   Config
}

// newFixture copies the template database and starts a development machine on it.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	templateOnce.Do(buildTemplate)
	if templateErr != nil {
		t.Fatalf("template database: %v", templateErr)
	}
	b, err := os.ReadFile(filepath.Join(templateDir, "pharaon.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pharaon.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, path: path, clock: &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		cfg: Config{Dev: true, Keys: testKeys}}
	f.start()
	t.Cleanup(f.stop)
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	st, err := store.Open(f.path, store.WithClock(f.clock.Now))
	if err != nil {
		f.t.Fatalf("open store: %v", err)
	}
	m, err := New(st, f.clock, f.cfg)
	if err != nil {
		f.t.Fatalf("new machine: %v", err)
	}
	f.st, f.m = st, m
}

func (f *fixture) boot() {
	f.t.Helper()
	if err := f.m.Start(context.Background()); err != nil {
		f.t.Fatalf("start: %v", err)
	}
}

// stop closes the machine and the store, as a process ending would.
func (f *fixture) stop() {
	if f.m != nil {
		f.m.Close()
		f.m = nil
	}
	if f.st != nil {
		f.st.Close()
		f.st = nil
	}
}

// credit gives the kiosk credit for the tests that are not about bank
// notes: a technician's test movement of the ledger (counted apart from the
// money meters), shown at once as the machine's cash loop would read it
// back. The kiosk has no API that gives credit: it comes from notes.
func (f *fixture) credit(amount game.Money) {
	f.t.Helper()
	e, err := f.st.TestModeMovement(context.Background(), amount, "", "test credit")
	if err != nil {
		f.t.Fatalf("test credit: %v", err)
	}
	f.m.update(func() { f.m.setCreditLocked(e.ID, e.Balance) })
}

// restart is a crash and a reboot: nothing is finished on the way out.
func (f *fixture) restart() {
	f.t.Helper()
	f.stop()
	f.start()
	f.boot()
}
