package kiosk

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A play's recording, as the store keeps it, holds the engine's recording of
// the main wall and, once the bonus started, of the bonus wall:
//
//	'K' version(1) uvarint(len main) main uvarint(len bonus) bonus
const recordingsVersion = 1

// ErrBadRecordings is returned for a stored recording that this version
// cannot read.
var ErrBadRecordings = errors.New("bad play recording")

func encodeRecordings(dst, main, bonus []byte) []byte {
	dst = append(dst, 'K', recordingsVersion)
	dst = binary.AppendUvarint(dst, uint64(len(main)))
	dst = append(dst, main...)
	dst = binary.AppendUvarint(dst, uint64(len(bonus)))
	return append(dst, bonus...)
}

// decodeRecordings splits a stored recording. An empty one (a play saved
// before its first step) is two empty recordings.
func decodeRecordings(b []byte) (main, bonus []byte, err error) {
	if len(b) == 0 {
		return nil, nil, nil
	}
	if len(b) < 2 || b[0] != 'K' || b[1] != recordingsVersion {
		return nil, nil, fmt.Errorf("%w: unknown header", ErrBadRecordings)
	}
	rest := b[2:]
	part := func(what string) ([]byte, error) {
		n, k := binary.Uvarint(rest)
		if k <= 0 || k != uvarintLen(n) || n > uint64(len(rest)-k) {
			return nil, fmt.Errorf("%w: %s length", ErrBadRecordings, what)
		}
		p := rest[k : k+int(n)]
		rest = rest[k+int(n):]
		return p, nil
	}
	if main, err = part("main wall"); err != nil {
		return nil, nil, err
	}
	if bonus, err = part("bonus wall"); err != nil {
		return nil, nil, err
	}
	if len(rest) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the end", ErrBadRecordings, len(rest))
	}
	return main, bonus, nil
}

// uvarintLen is the length of the canonical (shortest) encoding of n.
func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], n)
}
