package breakout

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

// Record a game at several points, replay each recording: the replayed
// world is in exactly the recorded world's state (same hash), the replay
// shows the same events, and both go on identically with the same inputs
// (crash recovery resumes the very game).
func TestReplayRestoresTheGame(t *testing.T) {
	for _, stake := range game.Stakes {
		for _, kind := range []string{"tracker", "random", "jitter"} {
			t.Run(fmt.Sprintf("%d/%s", int64(stake), kind), func(t *testing.T) {
				t.Parallel()
				l := walls(t, stake, 2, true, uint64(stake)*31)
				wall := l.Main
				s := DefaultSettings()
				s.IdleTicks = MinIdleTicks
				w := newWorld(t, wall, Play, s)
				p := newPlayer(kind, uint64(stake))
				evs := newEventHash()
				for _, checkpoint := range []uint32{1, 2, 333, 1500, 4000, 9000} {
					for w.Tick() < checkpoint && !w.Done() {
						in := Input{}
						if w.Tick() < 3000 {
							in = p.input(w)
						}
						evs.add(w.Tick()+1, w.Step(in))
					}
					rec := w.AppendRecording(nil)
					replayed := newEventHash()
					r, err := Replay(wall, rec, replayed.add)
					require.NoError(t, err, "checkpoint %d", checkpoint)
					assert.Equal(t, w.Hash(), r.Hash(), "checkpoint %d", checkpoint)
					assert.Equal(t, evs.sum(), replayed.sum(), "checkpoint %d", checkpoint)
					assert.Equal(t, rec, r.AppendRecording(nil))
					// Both go on alike.
					q := newPlayer("random", uint64(checkpoint))
					for i := 0; i < 200; i++ {
						in := q.input(w)
						if w.Tick() >= 3000 {
							in = Input{}
						}
						a, b := w.Step(in), r.Step(in)
						require.Equal(t, a, b, "after checkpoint %d, step %d", checkpoint, i)
					}
					require.Equal(t, w.Hash(), r.Hash())
					evs = newEventHash() // the events before are checked; go on from here
					_, err = Replay(wall, w.AppendRecording(nil), func(tick uint32, ev []Event) {
						evs.add(tick, ev)
					})
					require.NoError(t, err)
				}
			})
		}
	}
}

// A rest (Input.Rest, a Jouer game resumed after a restart) puts a flying
// ball back on the paddle, where it waits for the launch; it is recorded,
// so the whole game, rest included, replays to the very same state, and a
// game resumed from a recording and rested goes on as the replay does.
func TestRestPutsTheBallOnThePaddleAndReplays(t *testing.T) {
	wall := walls(t, game.Stake100, 2, false, 11).Main
	w := newWorld(t, wall, Play, DefaultSettings())
	w.Step(Input{Launch: true})
	for i := 0; i < 300 && w.Ball().Phase != Flying; i++ {
		w.Step(Input{})
	}
	for i := 0; i < 30; i++ {
		w.Step(Input{})
	}
	require.Equal(t, Flying, w.Ball().Phase)
	saved := w.AppendRecording(nil)

	// The kiosk's resume: replay what was saved, then rest.
	r, err := Replay(wall, saved, nil)
	require.NoError(t, err)
	ev := r.Step(Input{Rest: true, Launch: true})
	require.Equal(t, OnPaddle, r.Ball().Phase, "the rest wins over a launch on its step")
	assert.Contains(t, ev, Event{Kind: BallOnPaddle, Brick: -1})
	assert.Zero(t, r.Idle())
	for i := 0; i < 240; i++ {
		r.Step(Input{})
	}
	require.Equal(t, OnPaddle, r.Ball().Phase, "the ball waits for the player")
	assert.Equal(t, Play, r.Mode())
	pd := r.Paddle()
	assert.Equal(t, pd.X, r.Ball().X, "on the paddle's centre")
	r.Step(Input{Launch: true})
	for i := 0; i < 120; i++ {
		r.Step(Input{})
	}
	rec := r.AppendRecording(nil)
	dec, err := DecodeRecording(rec)
	require.NoError(t, err)
	assert.Contains(t, dec.Inputs, TickInput{Tick: w.Tick() + 1, Input: Input{Rest: true}})
	assert.Equal(t, rec, dec.Append(nil), "a rest encodes back to the same bytes")
	again, err := Replay(wall, rec, nil)
	require.NoError(t, err, "the whole game, rest included, replays")
	assert.Equal(t, r.Hash(), again.Hash())

	// A rest of a ball already on the paddle is nothing, and not recorded.
	n := newWorld(t, wall, Play, DefaultSettings())
	n.Step(Input{Rest: true})
	assert.Equal(t, n.AppendRecording(nil), newWorldAt(t, wall, 1))
}

// newWorldAt is the recording of a Jouer world on wall stepped ticks times
// with no input.
func newWorldAt(t *testing.T, wall reveal.Wall, ticks int) []byte {
	w := newWorld(t, wall, Play, DefaultSettings())
	for i := 0; i < ticks; i++ {
		w.Step(Input{})
	}
	return w.AppendRecording(nil)
}

// The recording is compact: a dragged paddle costs a few bytes a step.
func TestRecordingIsCompact(t *testing.T) {
	wall := walls(t, game.Stake200, 0, false, 5).Main
	w := newWorld(t, wall, Play, DefaultSettings())
	p := newPlayer("tracker", 9)
	for w.Tick() < 60*TicksPerSecond && !w.Done() {
		w.Step(p.input(w))
	}
	rec := w.AppendRecording(nil)
	r, err := DecodeRecording(rec)
	require.NoError(t, err)
	perInput := float64(len(rec)) / float64(len(r.Inputs))
	t.Logf("%d ticks, %d inputs, %d bytes (%.2f bytes an input)", w.Tick(), len(r.Inputs), len(rec), perInput)
	assert.Less(t, perInput, 4.0)
}

func TestDecodeRecordingRoundTrip(t *testing.T) {
	r := Recording{
		Settings: DefaultSettings(),
		Mode:     Play,
		Wall:     0x0123456789abcdef,
		Inputs: []TickInput{
			{1, Input{Launch: true}},
			{2, Input{Steer: true, PaddleX: 0}},
			{300, Input{Steer: true, PaddleX: FieldWidth, Launch: true}},
			{301, Input{Auto: true}},
		},
		End: 900,
	}
	b := r.Append(nil)
	got, err := DecodeRecording(b)
	require.NoError(t, err)
	assert.Equal(t, r, got)
	assert.Equal(t, b, got.Append(nil))
	// An entry that is no change is not written, as the world would not.
	r.Inputs = append([]TickInput{{1, Input{Steer: true, PaddleX: FieldWidth / 2}}}, r.Inputs[1:]...)
	got, err = DecodeRecording(r.Append(nil))
	require.NoError(t, err)
	assert.Len(t, got.Inputs, 3)
}

func TestDecodeRecordingRefusesBadBytes(t *testing.T) {
	good := Recording{Settings: DefaultSettings(), Mode: Play, Wall: 7,
		Inputs: []TickInput{{5, Input{Steer: true, PaddleX: 100}}}, End: 10}.Append(nil)
	hdr := len(appendHeader(nil, DefaultSettings(), Play, 7))
	with := func(tail ...byte) []byte { return append(append([]byte(nil), good[:hdr]...), tail...) }
	uv := func(v uint64) []byte { return binary.AppendUvarint(nil, v) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	badSettings := appendHeader(nil, Settings{StoneTicks: 1, IdleTicks: MinIdleTicks, GhostTicks: MinGhostTicks}, Play, 7)
	hugeSettings := appendHeader(nil, Settings{StoneTicks: 1 << 40, IdleTicks: MinIdleTicks, GhostTicks: MinGhostTicks}, Play, 7)
	cases := map[string]struct {
		b   []byte
		err error
	}{
		"empty":              {nil, ErrBadRecording},
		"magic":              {append([]byte("XB"), good[2:]...), ErrBadRecording},
		"format":             {append([]byte{'P', 'B', 9}, good[3:]...), ErrBadRecording},
		"engine":             {append([]byte{'P', 'B', 1, EngineVersion + 1}, good[4:]...), ErrEngineVersion},
		"truncated header":   {good[:hdr-3], ErrBadRecording},
		"no end":             {good[:hdr], ErrBadRecording},
		"truncated entry":    {good[:len(good)-2], ErrBadRecording},
		"trailing":           {append(append([]byte(nil), good...), 0), ErrBadRecording},
		"bad settings":       {append(badSettings, 0), ErrBadSettings},
		"huge settings":      {append(hugeSettings, 0), ErrBadSettings},
		"bad mode":           {append(append(append([]byte(nil), good[:hdr-9]...), 5), good[hdr-8:]...), ErrBadRecording},
		"zero delta":         {with(cat(uv(0<<3|flagLaunch), uv(0))...), ErrBadRecording},
		"no change":          {with(cat(uv(1<<3|flagPaddle|flagLaunch), binary.AppendVarint(nil, 0), uv(0))...), ErrBadRecording},
		"off the field":      {with(cat(uv(1<<3|flagPaddle), binary.AppendVarint(nil, FieldWidth), uv(0))...), ErrBadRecording},
		"non-canonical":      {with(0x80|flagLaunch|1<<3, 0x00, 0), ErrBadRecording},
		"overlong varint":    {with(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrBadRecording},
		"too long a game":    {with(uv(uint64(MaxTicks+1) << 3)...), ErrBadRecording},
		"input after auto":   {with(cat(uv(1<<3|flagAuto), uv(1<<3|flagLaunch), uv(0))...), ErrBadRecording},
		"input in auto game": {append(appendHeader(nil, DefaultSettings(), Auto, 7), cat(uv(1<<3|flagLaunch), uv(0))...), ErrBadRecording},
	}
	for name, c := range cases {
		_, err := DecodeRecording(c.b)
		assert.ErrorIs(t, err, c.err, name)
	}
	_, err := DecodeRecording(good)
	require.NoError(t, err)
}

func TestReplayRefusesAnotherGame(t *testing.T) {
	l := walls(t, game.Stake050, 0, false, 1)
	w := newWorld(t, l.Main, Play, DefaultSettings())
	for i := 0; i < 100; i++ {
		w.Step(Input{Steer: true, PaddleX: int32(i) * Unit, Launch: i == 3})
	}
	rec := w.AppendRecording(nil)
	_, err := Replay(walls(t, game.Stake050, 0, false, 2).Main, rec, nil)
	assert.ErrorIs(t, err, ErrWrongWall)

	// A recording that says the game went on after it was over.
	one := wallOf([]int{1})
	g := newWorld(t, one, Auto, DefaultSettings())
	for !g.Done() {
		g.Step(Input{})
	}
	r, err := DecodeRecording(g.AppendRecording(nil))
	require.NoError(t, err)
	r.End += 10
	_, err = Replay(one, r.Append(nil), nil)
	assert.ErrorIs(t, err, ErrReplay)

	// Input recorded after the game went to Auto by itself: no world
	// records that.
	s := DefaultSettings()
	s.IdleTicks = MinIdleTicks
	r = Recording{Settings: s, Mode: Play, Wall: WallDigest(l.Main), End: uint32(s.IdleTicks + 10),
		Inputs: []TickInput{{uint32(s.IdleTicks + 5), Input{Launch: true}}}}
	_, err = Replay(l.Main, r.Append(nil), nil)
	assert.ErrorIs(t, err, ErrReplay)

	_, err = Replay(l.Main, []byte("PB"), nil)
	assert.ErrorIs(t, err, ErrBadRecording)
}

func TestVarintLengths(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, 1 << 20, -(1 << 20), 1<<62 - 1, -(1 << 62), 1<<63 - 1, -1 << 63} {
		assert.Equal(t, len(binary.AppendVarint(nil, v)), uvarintLen(zigzag(v)), "%d", v)
		assert.Equal(t, len(binary.AppendUvarint(nil, uint64(v))), uvarintLen(uint64(v)), "%d", v)
	}
}

func TestWallDigest(t *testing.T) {
	a := walls(t, game.Stake100, 3, true, 1)
	b := walls(t, game.Stake100, 3, true, 2)
	assert.NotEqual(t, WallDigest(a.Main), WallDigest(b.Main))
	assert.NotEqual(t, WallDigest(a.Main), WallDigest(a.Bonus))
	c := reveal.Wall{Rows: append([]int(nil), a.Main.Rows...), Bricks: append([]reveal.Content(nil), a.Main.Bricks...)}
	assert.Equal(t, WallDigest(a.Main), WallDigest(c), "a copy has the same digest")
	c.Bricks[0], c.Bricks[1] = c.Bricks[1], c.Bricks[0]
	if c.Bricks[0] != c.Bricks[1] {
		assert.NotEqual(t, WallDigest(a.Main), WallDigest(c))
	}
}

// FuzzDecodeRecording: a stored recording is outside bytes; decoding never
// panics, accepts only canonical recordings (re-encoding gives the same
// bytes), and replaying what it accepts either works or fails cleanly.
func FuzzDecodeRecording(f *testing.F) {
	wall := wallOf([]int{3, 4}, reveal.StoneContent(game.Blue), reveal.SymbolContent(game.Eye))
	for _, mode := range []Mode{Play, Auto} {
		w, err := New(wall, mode, DefaultSettings())
		require.NoError(f, err)
		p := newPlayer("tracker", 1)
		for i := 0; i < 300 && !w.Done(); i++ {
			w.Step(p.input(w))
		}
		f.Add(w.AppendRecording(nil))
	}
	f.Add([]byte("PB\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRecording(b)
		if err != nil {
			return
		}
		require.Equal(t, b, r.Append(nil), "canonical")
		if r.End > 4000 {
			return
		}
		r.Wall = WallDigest(wall)
		w, err := Replay(wall, r.Append(nil), nil)
		if err == nil {
			require.LessOrEqual(t, w.Tick(), r.End)
		}
	})
}
