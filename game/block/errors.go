package block

import "errors"

// Sentinel errors. Every error of the package wraps one of them (or an I/O
// error of the underlying reader or writer) with context saying which block,
// which unit and what is wrong, for example
//
//	block 1/7: tier 3 has 74 units, the table has 75: lot counts
var (
	// ErrFormat: the bytes are not a well-formed block file (magic, a unit's
	// index, tier or flags).
	ErrFormat = errors.New("malformed block file")
	// ErrVersion: the file's format version is not FormatVersion.
	ErrVersion = errors.New("unsupported block format version")
	// ErrUnknownKey: the file is signed by a key the kiosk does not trust.
	ErrUnknownKey = errors.New("untrusted issuer key")
	// ErrNoKeys: the kiosk trusts no issuer key at all (none configured),
	// which is not the same fix as a file signed by another issuer's key.
	// It is also ErrUnknownKey.
	ErrNoKeys error = noKeysError{}
	// ErrSignature: the signature does not match the file's content.
	ErrSignature = errors.New("bad signature")
	// ErrTruncated: the file ends before its signature does.
	ErrTruncated = errors.New("truncated block file")
	// ErrTrailing: bytes follow the signature.
	ErrTrailing = errors.New("data after the signature")
	// ErrCounts: the units do not hold exactly the prize table's lots, or
	// not the header's bonus lots.
	ErrCounts = errors.New("lot counts")
	// ErrHeader: the header is not one of a valid block (stake, unit count,
	// table digest, bonus lots, emission or block number, signing key).
	ErrHeader = errors.New("invalid block header")
)

// noKeysError is ErrNoKeys: its own words, and ErrUnknownKey for the
// callers that only ask whether the key is trusted.
type noKeysError struct{}

func (noKeysError) Error() string        { return "no issuer key configured" }
func (noKeysError) Is(target error) bool { return target == ErrUnknownKey }
