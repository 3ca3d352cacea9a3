package store

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// Hash chains (DESIGN.md §4): each row of plays, play_steps, ledger and
// events stores hash = SHA-256(domain || prev_hash || content), where
// prev_hash is the hash of the previous row of the same table (32 zero
// bytes for the first) and content is the row's fields in a fixed order,
// integers as 8 big-endian bytes, text and blobs prefixed by their length.
// Editing, inserting or removing a row breaks the chain at that row, which
// Verify reports. (Whoever can rewrite the whole file can also recompute
// the chain: this detects edits, it does not prevent them.)

// genesis is the prev_hash of the first row of every chain.
var genesis = make([]byte, sha256.Size)

// Domains keep the chains apart: no row of one table hashes like a row of
// another.
const (
	domainPlay  = "pharaon/play/v1"
	domainStep  = "pharaon/play_step/v1"
	domainEntry = "pharaon/ledger/v1"
	domainEvent = "pharaon/event/v1"
)

type rowHash struct {
	h   hash.Hash
	buf [8]byte
}

func newRowHash(domain string, prev []byte) *rowHash {
	r := &rowHash{h: sha256.New()}
	r.str(domain)
	r.h.Write(prev)
	return r
}

func (r *rowHash) int(v int64) *rowHash {
	binary.BigEndian.PutUint64(r.buf[:], uint64(v))
	r.h.Write(r.buf[:])
	return r
}

func (r *rowHash) bool(v bool) *rowHash {
	if v {
		return r.int(1)
	}
	return r.int(0)
}

func (r *rowHash) str(s string) *rowHash {
	r.int(int64(len(s)))
	r.h.Write([]byte(s))
	return r
}

func (r *rowHash) bytes(b []byte) *rowHash {
	r.int(int64(len(b)))
	r.h.Write(b)
	return r
}

func (r *rowHash) sum() []byte { return r.h.Sum(nil) }

func playHash(prev []byte, p *playRow) []byte {
	return newRowHash(domainPlay, prev).int(p.id).int(p.at).int(p.stake).str(p.mode).
		int(p.layout).int(p.blockID).int(p.unit).int(p.tier).bool(p.viaBonus).int(p.seed).
		int(p.prize).sum()
}

func stepHash(prev []byte, s *stepRow) []byte {
	return newRowHash(domainStep, prev).int(s.id).int(s.playID).int(s.at).str(s.state).
		str(s.revealed).bool(s.mismatch).bytes(s.recDigest).sum()
}

func entryHash(prev []byte, e *entryRow) []byte {
	return newRowHash(domainEntry, prev).int(e.id).int(e.at).str(e.kind).int(e.amount).
		int(e.balance).int(e.playID).str(e.ref).str(e.note).sum()
}

func eventHash(prev []byte, e *eventRow) []byte {
	return newRowHash(domainEvent, prev).int(e.id).int(e.at).str(e.level).str(e.source).
		str(e.code).str(e.detail).sum()
}

// Rows as stored, in the chains' terms (NULL text is "", NULL id is 0).
type playRow struct {
	id, at, stake   int64
	mode            string
	layout, blockID int64
	unit, tier      int64
	viaBonus        bool
	seed, prize     int64
	prevHash, hash  []byte
}

type stepRow struct {
	id, playID, at int64
	state          string
	revealed       string
	mismatch       bool
	recDigest      []byte
	prevHash, hash []byte
}

type entryRow struct {
	id, at          int64
	kind            string
	amount, balance int64
	playID          int64
	ref, note       string
	prevHash, hash  []byte
}

type eventRow struct {
	id, at                      int64
	level, source, code, detail string
	prevHash, hash              []byte
}
