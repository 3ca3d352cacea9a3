package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// Hash chains (DESIGN.md §4): each row of plays, play_steps, ledger,
// events (and of every other chained table: vouchers, bill intents, meter
// snapshots, credentials, the PIN pad's lock) stores hash = SHA-256(domain || prev_hash || content), where
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

// RecordHash recomputes the chain hash of a row from its outbox record's
// payload (outbox_schema.go, snapshot_schema.go: the row as written, its
// hashes in hexadecimal), with the very function that hashed it, so that
// whoever holds the records (the fleet's centre) checks each row's content
// against its hash without a second copy of the algorithm. It returns the
// hash the record carries and the one its content gives; they differ when
// the content was changed. A kind whose rows are not chained (play_state,
// voucher_state, anchor) is ErrBadRequest.
func RecordHash(kind string, payload []byte) (stored, computed []byte, err error) {
	var p struct {
		ID            int64   `json:"id"`
		At            int64   `json:"at"`
		Stake         int64   `json:"stake"`
		Mode          string  `json:"mode"`
		Layout        int64   `json:"layout_version"`
		BlockID       int64   `json:"block_id"`
		UnitIdx       int64   `json:"unit_idx"`
		Tier          int64   `json:"tier"`
		ViaBonus      int64   `json:"via_bonus"`
		Seed          int64   `json:"seed"`
		Prize         int64   `json:"prize"`
		PlayID        int64   `json:"play_id"`
		State         string  `json:"state"`
		Revealed      *string `json:"revealed"`
		Mismatch      int64   `json:"mismatch"`
		RecDigest     string  `json:"rec_digest"`
		Kind          string  `json:"kind"`
		Amount        int64   `json:"amount"`
		BalanceAfter  int64   `json:"balance_after"`
		Ref           *string `json:"ref"`
		Note          string  `json:"note"`
		Level         string  `json:"level"`
		Source        string  `json:"source"`
		Code          string  `json:"code"`
		Detail        string  `json:"detail"`
		Validation    string  `json:"validation"`
		ExpiresAt     int64   `json:"expires_at"`
		VoucherID     int64   `json:"voucher_id"`
		EntryID       int64   `json:"entry_id"`
		Denom         int64   `json:"denom"`
		IntentID      int64   `json:"intent_id"`
		Reason        string  `json:"reason"`
		LedgerID      int64   `json:"ledger_id"`
		VoucherStepID int64   `json:"voucher_step_id"`
		Meters        string  `json:"meters"`
		Role          string  `json:"role"`
		Action        string  `json:"action"`
		By            string  `json:"by"`
		SecretDigest  string  `json:"secret_digest"`
		Failures      int64   `json:"failures"`
		Lockouts      int64   `json:"lockouts"`
		Remaining     int64   `json:"remaining"`
		Quiet         int64   `json:"quiet"`
		Key           string  `json:"key"`
		Count         int64   `json:"count"`
		IntentStep    int64   `json:"intent_step"`
		Value         string  `json:"value"`
		PrevHash      string  `json:"prev_hash"`
		Hash          string  `json:"hash"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, nil, fmt.Errorf("record %s: %w: %w", kind, ErrBadRequest, err)
	}
	prev, err := hex.DecodeString(p.PrevHash)
	if err != nil {
		return nil, nil, fmt.Errorf("record %s %d: prev_hash: %w: %w", kind, p.ID, ErrBadRequest, err)
	}
	stored, err = hex.DecodeString(p.Hash)
	if err != nil {
		return nil, nil, fmt.Errorf("record %s %d: hash: %w: %w", kind, p.ID, ErrBadRequest, err)
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	switch kind {
	case "play":
		computed = playHash(prev, &playRow{id: p.ID, at: p.At, stake: p.Stake, mode: p.Mode, layout: p.Layout,
			blockID: p.BlockID, unit: p.UnitIdx, tier: p.Tier, viaBonus: p.ViaBonus != 0, seed: p.Seed, prize: p.Prize})
	case "play_step":
		digest, err := hex.DecodeString(p.RecDigest)
		if err != nil {
			return nil, nil, fmt.Errorf("record %s %d: rec_digest: %w: %w", kind, p.ID, ErrBadRequest, err)
		}
		computed = stepHash(prev, &stepRow{id: p.ID, playID: p.PlayID, at: p.At, state: p.State,
			revealed: str(p.Revealed), mismatch: p.Mismatch != 0, recDigest: digest})
	case "ledger":
		computed = entryHash(prev, &entryRow{id: p.ID, at: p.At, kind: p.Kind, amount: p.Amount,
			balance: p.BalanceAfter, playID: p.PlayID, ref: str(p.Ref), note: p.Note})
	case "event":
		computed = eventHash(prev, &eventRow{id: p.ID, at: p.At, level: p.Level, source: p.Source, code: p.Code, detail: p.Detail})
	case "voucher":
		computed = voucherHash(prev, &voucherRow{id: p.ID, at: p.At, validation: p.Validation, amount: p.Amount, expires: p.ExpiresAt})
	case "voucher_step":
		computed = voucherStepHash(prev, &voucherStepRow{id: p.ID, voucherID: p.VoucherID, at: p.At, state: p.State,
			entryID: p.EntryID, detail: p.Detail})
	case "bill_intent":
		computed = intentHash(prev, &intentRow{id: p.ID, at: p.At, denom: p.Denom})
	case "bill_intent_step":
		computed = intentStepHash(prev, &intentStepRow{id: p.ID, intentID: p.IntentID, at: p.At, state: p.State,
			entryID: p.EntryID, reason: p.Reason})
	case "meters":
		computed = snapshotHash(prev, &snapshotRow{id: p.ID, at: p.At, reason: p.Reason, ledgerID: p.LedgerID,
			voucherStepID: p.VoucherStepID, meters: p.Meters})
	case "credential":
		// The record carries the digest of the credential's secret, which
		// is what its hash chains (credentials.go).
		digest, err := hex.DecodeString(p.SecretDigest)
		if err != nil {
			return nil, nil, fmt.Errorf("record %s %d: secret_digest: %w: %w", kind, p.ID, ErrBadRequest, err)
		}
		computed = credentialHash(prev, &credentialRow{id: p.ID, at: p.At, role: p.Role, action: p.Action, by: p.By, digest: digest})
	case "setting":
		computed = settingHash(prev, &settingRow{id: p.ID, at: p.At, key: p.Key, value: p.Value, source: p.Source})
	case "collection":
		computed = collectionHash(prev, &collectionRow{id: p.ID, at: p.At, by: p.By, meters: p.Meters, count: p.Count,
			amount: p.Amount, intentStep: p.IntentStep})
	case "pin_lock":
		computed = pinLockHash(prev, &pinLockRow{id: p.ID, at: p.At, failures: p.Failures, lockouts: p.Lockouts,
			remaining: p.Remaining, quiet: p.Quiet})
	default:
		return nil, nil, fmt.Errorf("record %s: not a chained row: %w", kind, ErrBadRequest)
	}
	return stored, computed, nil
}
