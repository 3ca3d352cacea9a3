package kiosk

import (
	"fmt"
	"strings"
)

// The kiosk id names a kiosk on its vouchers and reports ("Borne : …"), in
// the fleet (its NATS subject pharaon.records.<id>, its credentials, its
// voucher key) and at the centre. One rule holds wherever an id is typed
// or read: the configuration's kiosk-id, the first start's setup, the
// settings view, the fleet's configuration and pharaon-central's kiosks
// and groups. It is one NATS subject token, so no dot, space or wildcard;
// and it fits on one printed line after "Borne : " (42 columns).

// KioskIDMaxLen is the longest kiosk id.
const KioskIDMaxLen = 32

// KioskIDSeparators are the characters a kiosk id may hold besides ASCII
// letters and digits.
const KioskIDSeparators = "-_"

// ErrKioskID: a kiosk id that breaks the rule (CheckKioskID).
var ErrKioskID = fmt.Errorf("a kiosk id is 1 to %d letters (A-Z, a-z), digits or %s, without spaces", KioskIDMaxLen,
	strings.Join(strings.Split(KioskIDSeparators, ""), " "))

// CheckKioskID refuses an id that is not 1 to KioskIDMaxLen ASCII letters,
// digits or KioskIDSeparators (wrapping ErrKioskID, with the id).
func CheckKioskID(id string) error {
	if !ValidKioskID(id) {
		return fmt.Errorf("kiosk id %q: %w", id, ErrKioskID)
	}
	return nil
}

// ValidKioskID reports whether id keeps the kiosk id's rule.
func ValidKioskID(id string) bool {
	if id == "" || len(id) > KioskIDMaxLen {
		return false
	}
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(KioskIDSeparators, r)) {
			return false
		}
	}
	return true
}

// IsKioskIDRune reports whether r may be in a kiosk id (what an on-screen
// keyboard offers).
func IsKioskIDRune(r rune) bool { return ValidKioskID(string(r)) }
