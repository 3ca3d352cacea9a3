package kiosk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"pharaon/store"
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

// saver writes the recordings of the game in progress from its own
// goroutine, so that a durable commit never holds up a frame. Only the latest
// offer counts: an older one waiting is replaced.
type saver struct {
	st   *store.Store
	mu   sync.Mutex
	id   int64
	rec  []byte
	wake chan struct{}
}

func newSaver(st *store.Store) *saver { return &saver{st: st, wake: make(chan struct{}, 1)} }

func (s *saver) offer(id int64, rec []byte) {
	s.mu.Lock()
	s.id = id
	s.rec = append(s.rec[:0], rec...)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *saver) run(ctx context.Context) {
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		s.mu.Lock()
		id := s.id
		buf = append(buf[:0], s.rec...)
		s.id = 0
		s.mu.Unlock()
		if id == 0 {
			continue
		}
		// A play finished meanwhile refuses the save (ErrPlayFinished): its
		// final recording is already kept. Any other failure is retried by
		// the next offer; the recording only serves a resume after a crash.
		_ = s.st.SaveRecording(ctx, id, buf)
	}
}

// uvarintLen is the length of the canonical (shortest) encoding of n.
func uvarintLen(n uint64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], n)
}
