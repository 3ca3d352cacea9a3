package breakout

import (
	"crypto/sha256"
	"encoding/binary"
)

// Hash is the SHA-256 of the world's whole state: the engine version, the
// settings, the wall, every brick, the ball, the paddle, the effects, the
// revealed symbols, the idle count and the Auto controller's memory. Two
// worlds with the same hash are in the same state; golden replays pin it.
func (w *World) Hash() [32]byte {
	var b [512]byte
	s := b[:0]
	u := func(v int64) { s = binary.LittleEndian.AppendUint64(s, uint64(v)) }
	u(EngineVersion)
	u(int64(w.settings.StoneTicks))
	u(int64(w.settings.IdleTicks))
	u(int64(w.settings.GhostTicks))
	u(int64(w.digest))
	for _, br := range w.bricks {
		s = append(s, byte(br.Hits))
	}
	u(int64(w.alive))
	u(int64(w.Standing())) // kept in the hash so the golden state hashes stay valid
	u(int64(w.tick))
	u(int64(w.mode))
	u(int64(w.startMode))
	if w.done {
		u(1)
	} else {
		u(0)
	}
	for _, v := range []int32{w.bx, w.by, w.vx, w.vy, int32(w.phase), w.ghost, w.stuck, w.px, w.target, int32(w.lastDir), w.idle} {
		u(int64(v))
	}
	for _, e := range w.effects {
		u(int64(e))
	}
	for _, c := range w.revealed {
		u(int64(c))
	}
	a := w.auto
	for _, v := range []int64{b2i(a.dirty), b2i(a.planned), int64(a.target), a.predX, int64(a.predTick), int64(a.predAlive), int64(a.predHW)} {
		u(v)
	}
	h := sha256.New()
	h.Write(s)
	h.Write(w.rec)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
