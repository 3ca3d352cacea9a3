package store

import (
	"bytes"
	"fmt"
	"os"
)

// AnchorOnDisk is the newest record of an anchor file whose HMAC holds:
// what a crash or a power cut left of the anchor on the disk.
type AnchorOnDisk struct {
	Seq uint64
	// Committed are the heads the record says the database is at.
	Committed []Head
	// Pending are the heads a transaction announced before its COMMIT
	// (nil: the record is a confirmation, nothing announced). After a
	// crash the database may be at either: at Pending when the commit was
	// done and its confirmation did not reach the disk (the window of
	// DESIGN.md §4), at Committed when the commit was not done.
	Pending []Head
}

// ReadAnchor reads the newest whole record of the anchor a, without a
// store: the fault harness reads what a power cut left on the disk before
// the kiosk starts again. The database is not read.
func ReadAnchor(a AnchorConfig) (AnchorOnDisk, error) {
	key, err := os.ReadFile(a.Key)
	if err != nil {
		return AnchorOnDisk{}, fmt.Errorf("the anchor's secret: %w", err)
	}
	if len(key) != keySize {
		return AnchorOnDisk{}, fmt.Errorf("the anchor's secret %s is %d bytes, not %d: %w", a.Key, len(key), keySize, ErrAnchor)
	}
	f, err := os.Open(a.Path)
	if err != nil {
		return AnchorOnDisk{}, fmt.Errorf("the anchor: %w", err)
	}
	defer f.Close()
	anc := &anchor{cfg: a, key: key, f: f}
	r, err := anc.read()
	if err != nil {
		return AnchorOnDisk{}, err
	}
	out := AnchorOnDisk{Seq: r.seq, Committed: headList(&r.committed)}
	if r.pending != nil {
		out.Pending = headList(r.pending)
	}
	return out, nil
}

func headList(h *heads) []Head {
	out := make([]Head, 0, numChains)
	for c, table := range chainTables {
		out = append(out, Head{Table: table, ID: h[c].id, Hash: bytes.Clone(h[c].hash[:])})
	}
	return out
}

// SameHeads says whether two lists of heads name the same rows.
func SameHeads(a, b []Head) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Table != b[i].Table || a[i].ID != b[i].ID || !bytes.Equal(a[i].Hash, b[i].Hash) {
			return false
		}
	}
	return true
}
