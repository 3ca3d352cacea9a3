package breakout

import (
	"encoding/binary"
	"errors"
	"fmt"

	"pharaon/game/reveal"
)

// A recording is everything needed, with the wall, to replay a game bit
// for bit: for game recall (Art. 4.1: a player who missed the end can see
// it again) and to resume a game after a restart. It is compact, so the
// kiosk can store it with the play at every change:
//
//	magic "PB", format 1, engine version (bytes)
//	stone, idle and ghost ticks (uvarints)
//	starting mode (byte)
//	wall digest (8 bytes, little endian, WallDigest)
//	entries, one per step with input activity:
//	  uvarint(ticks since the previous entry << 3 | flags)
//	  flags: 1 paddle target moved, 2 launch, 4 Auto
//	  if flag 1: varint (zigzag) of the target's change in sub-units
//	  (the target starts at the field's centre); flags 1 alone with a
//	  change of 0 is a rest (Input.Rest: the ball put back on the
//	  paddle), which no move can be
//	end: uvarint(ticks since the last entry << 3), flags 0: the world's
//	  tick when recorded.
//
// Only activity is recorded (see World.input), and only in Jouer; an Auto
// game's recording is its header and end.

const (
	recMagic0, recMagic1 = 'P', 'B'
	recFormat            = 1

	flagPaddle = 1
	flagLaunch = 2
	flagAuto   = 4
	flagsKnown = flagPaddle | flagLaunch | flagAuto

	// MaxTicks bounds a game's length, and so a replay's work: a day.
	MaxTicks = 24 * 3600 * TicksPerSecond
)

// Errors of DecodeRecording and Replay.
var (
	ErrBadRecording  = errors.New("bad recording")
	ErrEngineVersion = errors.New("recording made by another engine version")
	ErrWrongWall     = errors.New("recording is of another wall")
	ErrReplay        = errors.New("replay does not reproduce the recording")
)

// record appends an entry for the current tick.
func (w *World) record(flags byte) {
	w.rec = binary.AppendUvarint(w.rec, uint64(w.tick-w.recTick)<<3|uint64(flags))
	if flags&flagPaddle != 0 {
		w.rec = binary.AppendVarint(w.rec, int64(w.target-w.recTarget))
		w.recTarget = w.target
	}
	w.recTick = w.tick
}

// recordRest appends a rest entry for the current tick: the paddle flag
// with no change of target (see the format above).
func (w *World) recordRest() {
	w.rec = binary.AppendUvarint(w.rec, uint64(w.tick-w.recTick)<<3|flagPaddle)
	w.rec = binary.AppendVarint(w.rec, 0)
	w.recTick = w.tick
}

func (w *World) appendHeader(dst []byte) []byte {
	return appendHeader(dst, w.settings, w.startMode, w.digest)
}

func appendHeader(dst []byte, s Settings, m Mode, digest uint64) []byte {
	dst = append(dst, recMagic0, recMagic1, recFormat, EngineVersion)
	dst = binary.AppendUvarint(dst, uint64(s.StoneTicks))
	dst = binary.AppendUvarint(dst, uint64(s.IdleTicks))
	dst = binary.AppendUvarint(dst, uint64(s.GhostTicks))
	dst = append(dst, byte(m))
	return binary.LittleEndian.AppendUint64(dst, digest)
}

// AppendRecording appends the game's recording so far to dst: replaying
// it (Replay) gives back this world in this very state. It allocates only
// if dst is too small.
func (w *World) AppendRecording(dst []byte) []byte {
	dst = w.appendHeader(dst)
	dst = append(dst, w.rec...)
	return binary.AppendUvarint(dst, uint64(w.tick-w.recTick)<<3)
}

// WallDigest identifies a wall's shape and contents (FNV-1a, 64 bits). A
// recording names its wall by it, so it is never replayed on another.
func WallDigest(wall reveal.Wall) uint64 {
	h := uint64(14695981039346656037)
	add := func(b byte) {
		h ^= uint64(b)
		h *= 1099511628211
	}
	add(byte(len(wall.Rows)))
	for _, r := range wall.Rows {
		add(byte(r))
	}
	add(byte(len(wall.Bricks)))
	for _, c := range wall.Bricks {
		add(byte(c))
	}
	return h
}

// TickInput is one recorded input and the tick (1 for the first Step) it
// was given at.
type TickInput struct {
	Tick  uint32
	Input Input
}

// Recording is a decoded recording.
type Recording struct {
	Settings Settings
	Mode     Mode   // the mode the game started in
	Wall     uint64 // WallDigest of the wall
	Inputs   []TickInput
	End      uint32 // the world's tick when recorded
}

// DecodeRecording parses a recording. It accepts only what
// AppendRecording writes (canonical varints, ticks increasing, targets in
// the field, no change that is not a change, nothing after the end), so
// encoding the result gives back exactly b. It never panics.
func DecodeRecording(b []byte) (Recording, error) {
	var r Recording
	d := decoder{b: b}
	if len(b) < 4 || b[0] != recMagic0 || b[1] != recMagic1 || b[2] != recFormat {
		return r, fmt.Errorf("decode recording: header: %w", ErrBadRecording)
	}
	if b[3] != EngineVersion {
		return r, fmt.Errorf("decode recording: engine %d, this is %d: %w", b[3], EngineVersion, ErrEngineVersion)
	}
	d.i = 4
	st, idle, ghost := d.uvarint(), d.uvarint(), d.uvarint()
	mode := d.readByte()
	digest := d.readUint64()
	if d.err != nil {
		return r, fmt.Errorf("decode recording: header: %w", d.err)
	}
	if st > MaxStoneTicks || idle > MaxIdleTicks || ghost > MaxGhostTicks {
		return r, fmt.Errorf("decode recording: settings: %w", ErrBadSettings)
	}
	r.Settings = Settings{StoneTicks: int(st), IdleTicks: int(idle), GhostTicks: int(ghost)}
	if err := r.Settings.Validate(); err != nil {
		return r, fmt.Errorf("decode recording: %w", err)
	}
	if mode != byte(Play) && mode != byte(Auto) {
		return r, fmt.Errorf("decode recording: mode %d: %w", mode, ErrBadRecording)
	}
	r.Mode, r.Wall = Mode(mode), digest

	tick, target := uint64(0), int64(FieldWidth/2)
	auto := r.Mode == Auto
	for {
		v := d.uvarint()
		if d.err != nil {
			return r, fmt.Errorf("decode recording: entry %d: %w", len(r.Inputs), d.err)
		}
		flags, delta := byte(v&7), v>>3
		if delta > MaxTicks || tick+delta > MaxTicks {
			return r, fmt.Errorf("decode recording: beyond %d ticks: %w", MaxTicks, ErrBadRecording)
		}
		tick += delta
		if flags == 0 {
			r.End = uint32(tick)
			break
		}
		if delta == 0 || auto {
			return r, fmt.Errorf("decode recording: entry %d at tick %d: %w", len(r.Inputs), tick, ErrBadRecording)
		}
		in := Input{Launch: flags&flagLaunch != 0, Auto: flags&flagAuto != 0}
		if flags&flagPaddle != 0 {
			dt := d.varint()
			if d.err != nil {
				return r, fmt.Errorf("decode recording: entry %d: %w", len(r.Inputs), d.err)
			}
			if dt == 0 && flags == flagPaddle {
				r.Inputs = append(r.Inputs, TickInput{Tick: uint32(tick), Input: Input{Rest: true}})
				continue
			}
			if dt == 0 || dt < -FieldWidth || dt > FieldWidth || target+dt < 0 || target+dt > FieldWidth {
				return r, fmt.Errorf("decode recording: entry %d: target change %d: %w", len(r.Inputs), dt, ErrBadRecording)
			}
			target += dt
			in.Steer, in.PaddleX = true, int32(target)
		}
		auto = auto || in.Auto
		r.Inputs = append(r.Inputs, TickInput{Tick: uint32(tick), Input: in})
	}
	if d.i != len(b) {
		return r, fmt.Errorf("decode recording: %d bytes after the end: %w", len(b)-d.i, ErrBadRecording)
	}
	return r, nil
}

// Append encodes r after dst, as AppendRecording does for a world.
func (r Recording) Append(dst []byte) []byte {
	dst = appendHeader(dst, r.Settings, r.Mode, r.Wall)
	tick, target := uint32(0), int32(FieldWidth/2)
	for _, ti := range r.Inputs {
		if ti.Input.Rest {
			dst = binary.AppendUvarint(dst, uint64(ti.Tick-tick)<<3|flagPaddle)
			dst = binary.AppendVarint(dst, 0)
			tick = ti.Tick
			continue
		}
		var flags byte
		if ti.Input.Steer && ti.Input.PaddleX != target {
			flags |= flagPaddle
		}
		if ti.Input.Launch {
			flags |= flagLaunch
		}
		if ti.Input.Auto {
			flags |= flagAuto
		}
		if flags == 0 {
			continue // not activity: the world would not have recorded it
		}
		dst = binary.AppendUvarint(dst, uint64(ti.Tick-tick)<<3|uint64(flags))
		if flags&flagPaddle != 0 {
			dst = binary.AppendVarint(dst, int64(ti.Input.PaddleX-target))
			target = ti.Input.PaddleX
		}
		tick = ti.Tick
	}
	return binary.AppendUvarint(dst, uint64(r.End-tick)<<3)
}

// Replay plays a recording again on its wall and returns the world in the
// state it was in when recorded, ready to go on (crash recovery), calling
// observe, if not nil, with each step's tick and events (game recall). It
// fails if the recording is not of this wall or of this engine, or if the
// replay does not record exactly the same inputs again (a recording that
// no game could have produced).
func Replay(wall reveal.Wall, rec []byte, observe func(tick uint32, events []Event)) (*World, error) {
	r, err := DecodeRecording(rec)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if r.Wall != WallDigest(wall) {
		return nil, fmt.Errorf("replay: %w", ErrWrongWall)
	}
	w, err := New(wall, r.Mode, r.Settings)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	next := 0
	for t := uint32(1); t <= r.End && !w.done; t++ {
		var in Input
		if next < len(r.Inputs) && r.Inputs[next].Tick == t {
			in = r.Inputs[next].Input
			next++
		}
		ev := w.Step(in)
		if observe != nil {
			observe(w.tick, ev)
		}
	}
	if w.tick != r.End || next != len(r.Inputs) {
		return nil, fmt.Errorf("replay: ended at tick %d of %d, %d of %d inputs: %w", w.tick, r.End, next, len(r.Inputs), ErrReplay)
	}
	if got := w.AppendRecording(nil); string(got) != string(rec) {
		return nil, fmt.Errorf("replay: %w", ErrReplay)
	}
	return w, nil
}

// decoder reads a recording, remembering the first error.
type decoder struct {
	b   []byte
	i   int
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.err = fmt.Errorf("truncated or overlong number: %w", ErrBadRecording)
		return 0
	}
	// Canonical only: the shortest encoding, so one game has one recording.
	if n != uvarintLen(v) {
		d.err = fmt.Errorf("non-canonical number: %w", ErrBadRecording)
		return 0
	}
	d.i += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.i:])
	if n <= 0 {
		d.err = fmt.Errorf("truncated or overlong number: %w", ErrBadRecording)
		return 0
	}
	if n != uvarintLen(zigzag(v)) {
		d.err = fmt.Errorf("non-canonical number: %w", ErrBadRecording)
		return 0
	}
	d.i += n
	return v
}

func (d *decoder) readByte() byte {
	if d.err != nil {
		return 0
	}
	if d.i >= len(d.b) {
		d.err = fmt.Errorf("truncated: %w", ErrBadRecording)
		return 0
	}
	d.i++
	return d.b[d.i-1]
}

func (d *decoder) readUint64() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.i < 8 {
		d.err = fmt.Errorf("truncated: %w", ErrBadRecording)
		return 0
	}
	d.i += 8
	return binary.LittleEndian.Uint64(d.b[d.i-8:])
}

// uvarintLen is the length of v's shortest uvarint encoding.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// zigzag is how binary.AppendVarint maps a signed value to an unsigned one.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// EndsInAuto reports whether the recorded game was in Auto when recorded:
// started in Auto, handed to Auto by the player (Input.Auto), or left
// IdleTicks without activity (World.input). It reads the recording only,
// without replaying it: a history can say "Jouer, then Auto".
func (r Recording) EndsInAuto() bool {
	if r.Mode == Auto {
		return true
	}
	last := uint32(0) // the last step with activity (0: the start)
	for _, in := range r.Inputs {
		if int(in.Tick-1-last) >= r.Settings.IdleTicks {
			return true // idle through the steps between
		}
		if in.Input.Auto {
			return true
		}
		last = in.Tick
	}
	return r.End > last && int(r.End-last) >= r.Settings.IdleTicks
}
