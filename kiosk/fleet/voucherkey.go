package fleet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"pharaon/store"
)

// A validation number is a bearer token: whoever types it at a counter is
// paid. So no number leaves a kiosk in clear (DESIGN.md §11). Its entry in
// the bucket vouchers is keyed by "<kiosk>.<keyed hash of the number>", the
// hash an HMAC-SHA256 under the kiosk's voucher key, which the counter
// computes from what it typed; and the kiosk's records carry the number
// sealed (AES-256-GCM) under the same key, for the centre to recompute the
// rows' hashes. Each kiosk's key is derived from the fleet's voucher key,
// which only the centre holds (pharaon-central init): a kiosk can compute
// the keys of its own vouchers only, and the centre those of every kiosk.

// VoucherKeySize is the size of a kiosk's voucher key and of the fleet's.
const VoucherKeySize = 32

// KioskVoucherKey derives kiosk's voucher key from the fleet's
// (pharaon-central writes it to the kiosk's nats-voucher-key file).
func KioskVoucherKey(master []byte, kiosk string) []byte {
	return hmacOf(master, "pharaon/fleet/voucher-key/v1", kiosk)
}

func hmacOf(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// voucherKeys are a kiosk's two uses of its voucher key, kept apart.
type voucherKeys struct {
	kiosk      string
	hash, seal []byte
}

func newVoucherKeys(kiosk string, key []byte) (voucherKeys, error) {
	if len(key) != VoucherKeySize {
		return voucherKeys{}, fmt.Errorf("kiosk %s: voucher key of %d bytes, not %d", kiosk, len(key), VoucherKeySize)
	}
	return voucherKeys{kiosk: kiosk, hash: hmacOf(key, "entry key"), seal: hmacOf(key, "record seal")}, nil
}

// entryKey is the key of the kiosk's voucher numbered validation: the
// kiosk, then 128 bits of the keyed hash in hexadecimal.
func (k voucherKeys) entryKey(validation string) string {
	return k.kiosk + "." + hex.EncodeToString(hmacOf(k.hash, validation)[:16])
}

// VoucherEntryKey is the key of kiosk's voucher numbered validation, from
// the fleet's voucher key (the centre's side).
func VoucherEntryKey(master []byte, kiosk, validation string) (string, error) {
	k, err := newVoucherKeys(kiosk, KioskVoucherKey(master, kiosk))
	if err != nil {
		return "", err
	}
	return k.entryKey(validation), nil
}

// kioskOfKey is the kiosk a voucher entry's key names.
func kioskOfKey(key string) string {
	k, _, _ := strings.Cut(key, ".")
	return k
}

// aead is the seal's cipher.
func (k voucherKeys) aead() cipher.AEAD {
	b, err := aes.NewCipher(k.seal)
	if err != nil {
		panic(err) // a 32-byte key
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return g
}

// aad binds a sealed field to its record: the kiosk, the kind, the row's
// id and the field's name, so that it cannot be moved to another.
func (k voucherKeys) aad(r store.OutboxRecord, field string) []byte {
	return []byte("pharaon/fleet/sealed/v1\x00" + k.kiosk + "\x00" + r.Kind + "\x00" + strconv.FormatInt(r.RefID, 10) + "\x00" + field)
}

// The fields of the records that carry a validation number, and their
// sealed forms. A ledger row's reference is a number when it is a
// voucher's debit (store.ConfirmVoucher).
const (
	fieldValidation = "validation"
	fieldRef        = "ref"
	sealedSuffix    = "_sealed"
	fieldEntryKey   = "voucher_key" // the entry's key in the bucket
)

// isValidation reports the form of a validation number (18 digits).
func isValidation(s string) bool {
	if len(s) != store.ValidationDigits {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sealRecord returns the record as it leaves the kiosk: each validation
// number it carries (a voucher's, a voucher debit's reference) replaced by
// its sealed form and the voucher's entry key.
func (k voucherKeys) sealRecord(r store.OutboxRecord) (store.OutboxRecord, error) {
	var field string
	switch r.Kind {
	case "voucher", "voucher_state":
		field = fieldValidation
	case "ledger":
		field = fieldRef
	default:
		return r, nil
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		return r, fmt.Errorf("record %d: %w", r.Seq, err)
	}
	var v string
	if raw, ok := p[field]; !ok || json.Unmarshal(raw, &v) != nil || !isValidation(v) {
		return r, nil
	}
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return r, err
	}
	sealed := k.aead().Seal(nonce, nonce, []byte(v), k.aad(r, field))
	delete(p, field)
	p[field+sealedSuffix], _ = json.Marshal(base64.StdEncoding.EncodeToString(sealed))
	p[fieldEntryKey], _ = json.Marshal(k.entryKey(v))
	out, err := json.Marshal(p)
	if err != nil {
		return r, err
	}
	r.Payload = out
	return r, nil
}

// ErrSealed: a record's sealed number does not open under its kiosk's key
// (not sealed by that kiosk, or changed), or names another entry.
var ErrSealed = errors.New("sealed validation number does not open")

// openRecord gives back a sealed record's numbers, as the kiosk's outbox
// wrote it, so that the row's hash can be recomputed; it checks that the
// entry key the record names is its number's. A record with nothing
// sealed is returned as it is.
func (k voucherKeys) openRecord(r store.OutboxRecord) (store.OutboxRecord, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		return r, nil // the fold reports what does not decode
	}
	changed := false
	for _, field := range []string{fieldValidation, fieldRef} {
		raw, ok := p[field+sealedSuffix]
		if !ok {
			continue
		}
		var s string
		sealed, err := []byte(nil), json.Unmarshal(raw, &s)
		if err == nil {
			sealed, err = base64.StdEncoding.DecodeString(s)
		}
		if err != nil || len(sealed) < 12 {
			return r, fmt.Errorf("%s %d: %s: %w", r.Kind, r.RefID, field, ErrSealed)
		}
		v, err := k.aead().Open(nil, sealed[:12], sealed[12:], k.aad(r, field))
		if err != nil || !isValidation(string(v)) {
			return r, fmt.Errorf("%s %d: %s: %w", r.Kind, r.RefID, field, ErrSealed)
		}
		var key string
		if err := json.Unmarshal(p[fieldEntryKey], &key); err != nil || key != k.entryKey(string(v)) {
			return r, fmt.Errorf("%s %d: its entry key is not its number's: %w", r.Kind, r.RefID, ErrSealed)
		}
		delete(p, field+sealedSuffix)
		p[field], _ = json.Marshal(string(v))
		changed = true
	}
	if !changed {
		return r, nil
	}
	out, err := json.Marshal(p)
	if err != nil {
		return r, err
	}
	r.Payload = out
	return r, nil
}

// hasSealed reports whether a record carries a sealed number.
func hasSealed(r store.OutboxRecord) bool {
	var p map[string]json.RawMessage
	if json.Unmarshal(r.Payload, &p) != nil {
		return false
	}
	_, v := p[fieldValidation+sealedSuffix]
	_, ref := p[fieldRef+sealedSuffix]
	return v || ref
}

// hasClearNumber reports whether a record carries a validation number in
// clear where the outbox writes one (a voucher's, a voucher debit's
// reference).
func hasClearNumber(r store.OutboxRecord) bool {
	var p struct {
		Validation string `json:"validation"`
		Ref        string `json:"ref"`
	}
	if json.Unmarshal(r.Payload, &p) != nil {
		return false
	}
	switch r.Kind {
	case "voucher", "voucher_state":
		return isValidation(p.Validation)
	case "ledger":
		return isValidation(p.Ref)
	}
	return false
}
