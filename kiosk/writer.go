package kiosk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pharaon/hw"
	"pharaon/store"
)

// playStore is what the writer needs of the store: the writes of a play,
// and reading one back.
type playStore interface {
	StartPlay(ctx context.Context, req store.PlayRequest) (store.Play, error)
	SaveRecording(ctx context.Context, id int64, rec []byte) error
	EnterBonus(ctx context.Context, id int64, rec []byte) error
	FinishPlay(ctx context.Context, id int64, f store.FinishInfo) (store.Play, error)
	Play(ctx context.Context, id int64) (store.Play, error)
	Log(ctx context.Context, e store.Event) (store.Event, error)
	// HandPayLock reads the hand-pay lock a win's finish wrote (handpay.go).
	HandPayLock(ctx context.Context) (store.HandPayLock, error)
}

var _ playStore = (*store.Store)(nil)

// errWriterClosed is given to the writes still queued when the machine
// closes: they were never made, and the play they belong to is resumed at
// the next start.
var errWriterClosed = errors.New("play writer closed")

// Retries of a write SQLite refused because another connection held the
// database (store.Transient): each attempt already waited the store's busy
// timeout, so a few more, spaced out, cover a long maintenance query.
const (
	defaultWriteTries = 5
)

var defaultWriteBackoff = hw.Backoff{Min: 100 * time.Millisecond, Max: 2 * time.Second}

// writer is the one goroutine that makes the durable writes of a play —
// its start, its periodic saves, its bonus transition, its finish and the
// events of its reveal — in the order the game asked for them. The screens
// step the game on their own goroutine and never wait for a commit there
// (a commit with synchronous=FULL waits for the disk); and one goroutine
// taking the writes in order means an older write never lands after a
// newer one.
//
// It starts with the first write it is given and stops with Close, as
// hw/id003's Host owns its polling loop.
type writer struct {
	st      playStore
	tries   int
	backoff hw.Backoff

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}

	mu      sync.Mutex
	started bool
	closed  bool
	jobs    []*writeJob // in the order given
	spare   []*writeJob // periodic saves written, their buffers reused
}

// writeJob is one write. A periodic save (do nil) writes rec and is
// dropped if it fails: the next save, or the finish, carries more. Any
// other write runs do, tried again while the store says Transient, and
// then done, on the writer's goroutine.
type writeJob struct {
	id   int64
	rec  []byte
	do   func(ctx context.Context, st playStore, attempt int) error
	done func(error)
}

func newWriter(st playStore) *writer {
	ctx, cancel := context.WithCancel(context.Background())
	return &writer{st: st, tries: defaultWriteTries, backoff: defaultWriteBackoff, ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1)}
}

// startLocked starts the goroutine once.
func (w *writer) startLocked() {
	if w.started || w.closed {
		return
	}
	w.started = true
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.loop()
	}()
}

// Close stops the writer once the write under way is made; the writes
// still queued are given errWriterClosed. It may be called more than once.
func (w *writer) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
	w.mu.Lock()
	left := w.jobs
	w.jobs = nil
	w.mu.Unlock()
	for _, j := range left {
		if j.done != nil {
			j.done(errWriterClosed)
		}
	}
}

// submit queues a write. done is called exactly once, on the writer's
// goroutine (or at once with errWriterClosed on a closed writer); it must
// not wait on the writer.
func (w *writer) submit(do func(ctx context.Context, st playStore, attempt int) error, done func(error)) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		done(errWriterClosed)
		return
	}
	w.startLocked()
	w.jobs = append(w.jobs, &writeJob{do: do, done: done})
	w.mu.Unlock()
	w.signal()
}

// save queues a periodic save of play id's recording (copied). A save not
// yet taken by the writer is replaced by a newer one of the same play,
// when nothing was queued after it. It allocates nothing once the writer
// has buffers to reuse.
func (w *writer) save(id int64, rec []byte) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.startLocked()
	if n := len(w.jobs); n > 0 && w.jobs[n-1].do == nil && w.jobs[n-1].id == id {
		j := w.jobs[n-1]
		j.rec = append(j.rec[:0], rec...)
		w.mu.Unlock()
		return
	}
	var j *writeJob
	if n := len(w.spare); n > 0 {
		j, w.spare = w.spare[n-1], w.spare[:n-1]
	} else {
		j = &writeJob{}
	}
	j.id, j.rec = id, append(j.rec[:0], rec...)
	w.jobs = append(w.jobs, j)
	w.mu.Unlock()
	w.signal()
}

func (w *writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *writer) loop() {
	for {
		w.mu.Lock()
		var j *writeJob
		if len(w.jobs) > 0 {
			j = w.jobs[0]
			w.jobs[0] = nil
			w.jobs = w.jobs[1:]
		}
		w.mu.Unlock()
		if j == nil {
			select {
			case <-w.ctx.Done():
				return
			case <-w.wake:
			}
			continue
		}
		w.run(j)
	}
}

// run makes one write.
func (w *writer) run(j *writeJob) {
	if j.do == nil {
		// A refused save is older than what the store holds
		// (ErrStaleRecording) or of a play finished since
		// (ErrPlayFinished); any other failure leaves the last save in
		// place and the next one tries again: the recording only serves a
		// resume after a crash.
		_ = w.st.SaveRecording(w.ctx, j.id, j.rec)
		w.mu.Lock()
		w.spare = append(w.spare, j)
		w.mu.Unlock()
		return
	}
	j.done(w.retry(j.do))
}

// retry runs do until it succeeds, fails for a reason other than a busy
// database, w.tries attempts are made, or the writer closes.
func (w *writer) retry(do func(ctx context.Context, st playStore, attempt int) error) error {
	for attempt := 0; ; attempt++ {
		err := do(w.ctx, w.st, attempt)
		if err == nil || !store.Transient(err) || attempt+1 >= w.tries {
			if err != nil && attempt > 0 {
				return fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return err
		}
		t := time.NewTimer(w.backoff.Delay(attempt))
		select {
		case <-w.ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %w", errWriterClosed, err)
		case <-t.C:
		}
	}
}
