package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// AnchorOnDisk is the newest record of an anchor file whose HMAC holds:
// what a crash or a power cut left of the anchor on the disk.
type AnchorOnDisk struct {
	Seq uint64
	// Counter is the trust root's counter the record goes with.
	Counter uint64
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
//
// The secret comes from a.Trust, or from the files trust root in
// a.TrustDir, read as it is (never made).
func ReadAnchor(a AnchorConfig) (AnchorOnDisk, error) {
	secret, err := trustSecret(a)
	if err != nil {
		return AnchorOnDisk{}, err
	}
	f, err := os.Open(a.Path)
	if err != nil {
		return AnchorOnDisk{}, fmt.Errorf("the anchor: %w", err)
	}
	defer f.Close()
	anc := &anchor{cfg: a, key: deriveKey(secret, domainAnchorKey), f: f}
	r, err := anc.read()
	if err != nil {
		return AnchorOnDisk{}, err
	}
	out := AnchorOnDisk{Seq: r.seq, Counter: r.counter, Committed: headList(&r.committed)}
	if r.pending != nil {
		out.Pending = headList(r.pending)
	}
	return out, nil
}

// trustSecret is a's trust root's secret, without making a trust root.
func trustSecret(a AnchorConfig) ([]byte, error) {
	var secret []byte
	if a.Trust != nil {
		secret = a.Trust.Secret()
	} else {
		var err error
		if secret, err = os.ReadFile(filepath.Join(a.TrustDir, TrustSecretFile)); err != nil {
			return nil, fmt.Errorf("the trust root's secret: %w", err)
		}
	}
	if len(secret) != keySize {
		return nil, fmt.Errorf("the trust root's secret is %d bytes, not %d: %w", len(secret), keySize, ErrTrust)
	}
	return secret, nil
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

// AnchorKeyOf is the key that seals the anchor records of the kiosk whose
// anchor is a (AnchorKey of its trust root's secret, read as it is): what
// the operator of kiosks without a TPM may keep for the centre's checks
// of the seals. A TPM's secret never leaves it: the centre then checks
// the heads and the counter without the seals.
func AnchorKeyOf(a AnchorConfig) ([]byte, error) {
	secret, err := trustSecret(a)
	if err != nil {
		return nil, err
	}
	return AnchorKey(secret), nil
}
