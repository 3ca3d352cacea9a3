package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/hw"
	"pharaon/kiosk"
	"pharaon/store"
)

const (
	// RecordsStream is the stream the kiosks publish their records to.
	RecordsStream = "PHARAON_RECORDS"
	// RecordsSubject prefixes each kiosk's subject: pharaon.records.<kiosk>.
	RecordsSubject = "pharaon.records."
	// HeaderSeq carries a record's sequence. A record's kiosk is the
	// subject it was published on, which only that kiosk may publish on
	// (KioskPermissions); a header naming a kiosk (HeaderKiosk, which
	// kiosks no longer send) is a claim the centre checks, never trusts.
	HeaderSeq   = "Pharaon-Seq"
	HeaderKiosk = "Pharaon-Kiosk"
	// VoucherBucket is the key-value bucket of the fleet's vouchers.
	VoucherBucket = "vouchers"
)

// ValidKioskID reports whether id can name a kiosk or a group in the
// fleet: the kiosk's one rule (kiosk.ValidKioskID), which keeps it one
// NATS subject token.
func ValidKioskID(id string) bool { return kiosk.ValidKioskID(id) }

// MsgID is the de-duplication id of a kiosk's record: the server stores a
// record sent twice (a resend after a crash or a lost acknowledgement) once.
func MsgID(kiosk string, seq int64) string { return kiosk + "-" + strconv.FormatInt(seq, 10) }

// Outbox is what the publisher needs of the store.
type Outbox interface {
	Outbox(ctx context.Context, after int64, limit int) ([]store.OutboxRecord, error)
	OutboxState(ctx context.Context) (store.OutboxState, error)
	MarkPublished(ctx context.Context, seq int64) error
}

// Pruner deletes the published records written before a time
// (store.Store.PruneOutboxBefore); never one not yet published.
type Pruner interface {
	PruneOutboxBefore(ctx context.Context, before time.Time) (int64, error)
}

// Publisher sends a kiosk's outbox to the centre.
type Publisher struct {
	cfg  Config
	keys voucherKeys
	src  Outbox
	wake chan struct{}

	// Batch is how many records go out before the acknowledgements are
	// awaited (default 256). Poll is how often the outbox is read when
	// nothing woke the publisher (default 1 s). MinBackoff and MaxBackoff
	// bound the wait after a failure, doubled at each failure in a row
	// (defaults 250 ms and 30 s).
	Batch                  int
	Poll                   time.Duration
	MinBackoff, MaxBackoff time.Duration
	// OnAck, when set, is called with the published mark each time it
	// moves (tests wait on it); OnError with each failure.
	OnAck   func(upTo int64)
	OnError func(error)
	// OnConflict, when set, is called with each voucher this kiosk paid
	// while the centre did not answer and that was paid elsewhere too,
	// before the record of the payment is marked published (so at least
	// once: again if the record is sent again).
	OnConflict func(VoucherConflict)
	// Retention is how long the published records stay in the outbox
	// (default store.OutboxRetention): once the mark moved, the records
	// published and older are pruned (when the outbox is a Pruner), at
	// most once every PruneEvery (default 1 h), by the clock Now (default
	// time.Now; the kiosk gives its own). A negative Retention keeps them.
	Retention, PruneEvery time.Duration
	Now                   func() time.Time
	// OnPrune, when set, is called with the number of records each prune
	// deleted.
	OnPrune   func(n int64)
	lastPrune time.Time

	mu     sync.Mutex
	status Status
}

// Status is what the publisher last did, for the maintenance screen.
type Status struct {
	Connected bool
	Published int64     // the published mark
	LastError string    // the last failure, "" after a success
	LastAck   time.Time // wall time of the last acknowledgement
}

// NewPublisher returns a publisher of src's outbox; Run starts it.
func NewPublisher(cfg Config, src Outbox) (*Publisher, error) {
	if cfg.URL == "" {
		return nil, errors.New("fleet: no NATS URL")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	keys, err := cfg.voucherKeys()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &Publisher{cfg: cfg, keys: keys, src: src, wake: make(chan struct{}, 1),
		Batch: 256, Poll: time.Second, MinBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second,
		Retention: store.OutboxRetention, PruneEvery: time.Hour, Now: time.Now}, nil
}

// Notify tells the publisher that records were written. It never blocks.
func (p *Publisher) Notify() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Status returns what the publisher last did.
func (p *Publisher) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

func (p *Publisher) setStatus(f func(*Status)) {
	p.mu.Lock()
	f(&p.status)
	p.mu.Unlock()
}

// Run publishes until ctx is cancelled: it connects, sends what the outbox
// holds beyond the published mark, waits for more, and after any failure
// closes the connection, waits (doubling from MinBackoff up to
// MaxBackoff) and starts again from the mark. It returns ctx's error.
func (p *Publisher) Run(ctx context.Context) error {
	return reconnecting(ctx, p.MinBackoff, p.MaxBackoff, p.session, func(err error) {
		p.setStatus(func(s *Status) { s.Connected = false; s.LastError = err.Error() })
		if p.OnError != nil {
			p.OnError(err)
		}
	}, hw.SystemClock{}.Sleep)
}

// reconnecting runs session until ctx is cancelled: after each session
// that ends, it tells failed why, waits (doubling from lo up to hi, and
// from lo again after a session that made progress) and starts another.
// wait is how it waits (hw.SystemClock's Sleep). It returns ctx's error.
func reconnecting(ctx context.Context, lo, hi time.Duration, session func(context.Context) (progressed bool, err error),
	failed func(error), wait func(context.Context, time.Duration) error) error {
	backoff := lo
	for {
		progressed, err := session(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if progressed {
			backoff = lo
		}
		failed(err)
		if err := wait(ctx, backoff); err != nil {
			return err
		}
		backoff = min(backoff*2, hi)
	}
}

// session is one connection: it returns why it ended and whether it
// moved the mark.
func (p *Publisher) session(ctx context.Context) (progressed bool, err error) {
	nc, err := p.cfg.connect()
	if err != nil {
		return false, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return false, err
	}
	kv := NewBucket(js, VoucherBucket)
	subject := RecordsSubject + p.cfg.KioskID
	last, err := p.resync(ctx, nc, kv, subject)
	if err != nil {
		return false, err
	}
	p.setStatus(func(s *Status) { s.Connected = true })
	poll := time.NewTicker(p.Poll)
	defer poll.Stop()
	resynced := false
	for {
		n, err := p.sendBatch(ctx, js, kv, subject, &last)
		if n > 0 {
			progressed = true
		}
		if isWrongLastSeq(err) && !resynced {
			// The kiosk's subject does not end where this session thought:
			// a record sent again whose first copy the stream holds, with
			// others after it (a mark lost). Where it ends is read again,
			// once; a second refusal in a row ends the session.
			resynced = true
			if last, err = p.resync(ctx, nc, kv, subject); err != nil {
				return progressed, err
			}
			continue
		}
		if err != nil {
			return progressed, err
		}
		resynced = false
		if n == p.Batch {
			continue // more may be waiting
		}
		select {
		case <-ctx.Done():
			return progressed, ctx.Err()
		case <-p.wake:
		case <-poll.C:
		}
		if nc.IsClosed() || !nc.IsConnected() {
			return progressed, errors.New("connection lost")
		}
	}
}

// resync moves the mark to the last record the stream holds for this
// kiosk: a record stored whose acknowledgement was lost (or whose mark the
// kiosk did not write before a crash) is then not sent again, even beyond
// the server's de-duplication window. The vouchers' entries of the records
// it moves over are written first, as sendBatch writes them: the session
// that sent those records may have died before it wrote them. It returns
// the stream's sequence of that record (0: none), which the next record
// expects to follow (sendBatch).
//
// On a cluster the answer may come from a replica behind its leader (a
// direct get is answered by any replica): an older record, or none. The
// mark then stays where it is, and the next record, expecting to follow
// that older one, is refused by the leader until the replica caught up:
// never stored twice nor out of order.
func (p *Publisher) resync(ctx context.Context, nc *nats.Conn, kv Bucket, subject string) (uint64, error) {
	m, stored, err := directGet(ctx, nc, RecordsStream, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("last record stored: %w", err)
	}
	seq, err := strconv.ParseInt(m.Header.Get(HeaderSeq), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("last record stored: sequence %q: %w", m.Header.Get(HeaderSeq), err)
	}
	st, err := p.src.OutboxState(ctx)
	if err != nil {
		return 0, err
	}
	if seq > st.Last {
		return 0, fmt.Errorf("the centre holds record %d of kiosk %s, this kiosk's outbox ends at %d: another kiosk with this id, or a file restored", seq, p.cfg.KioskID, st.Last)
	}
	if seq > st.Published {
		if err := p.applyVouchers(ctx, kv, st.Published, seq); err != nil {
			return 0, err
		}
		if err := p.src.MarkPublished(ctx, seq); err != nil {
			return 0, err
		}
		p.acked(ctx, seq)
	}
	return stored, nil
}

// applyVouchers brings the vouchers' entries up to the outbox records
// after the mark from, up to upTo.
func (p *Publisher) applyVouchers(ctx context.Context, kv Bucket, from, upTo int64) error {
	for from < upTo {
		recs, err := p.src.Outbox(ctx, from, p.Batch)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("outbox: no record after %d, the centre holds up to %d", from, upTo)
		}
		for _, r := range recs {
			if r.Seq > upTo {
				return nil
			}
			if err := p.applyVoucher(ctx, kv, r, 0); err != nil {
				return err
			}
			from = r.Seq
		}
	}
	return nil
}

// applyVoucher brings the vouchers' entries up to one outbox record
// (applyVoucherRecord). A voucher paid twice is not an error: the
// centre's entry now says so, the kiosk is told (OnConflict), and the
// records go on.
func (p *Publisher) applyVoucher(ctx context.Context, kv Bucket, r store.OutboxRecord, stored uint64) error {
	err := applyVoucherRecordAt(ctx, kv, p.keys, r, stored)
	var c *VoucherConflict
	if !errors.As(err, &c) {
		return err
	}
	if p.OnConflict != nil {
		p.OnConflict(*c)
	}
	return nil
}

func (p *Publisher) acked(ctx context.Context, upTo int64) {
	p.setStatus(func(s *Status) { s.Published = upTo; s.LastAck = time.Now(); s.LastError = "" })
	p.prune(ctx) // before OnAck: who waits on an acknowledgement finds its prune done
	if p.OnAck != nil {
		p.OnAck(upTo)
	}
}

// prune deletes the published records older than the retention, at most
// once every PruneEvery. A failure is reported (OnError) and publishing
// goes on: the records stay until the next prune.
func (p *Publisher) prune(ctx context.Context) {
	pr, ok := p.src.(Pruner)
	if !ok || p.Retention < 0 {
		return
	}
	now := p.Now()
	// Within PruneEvery of the last prune, nothing; a clock put back
	// before it prunes at once.
	if !p.lastPrune.IsZero() && !now.Before(p.lastPrune) && now.Sub(p.lastPrune) < p.PruneEvery {
		return
	}
	p.lastPrune = now
	n, err := pr.PruneOutboxBefore(ctx, now.Add(-p.Retention))
	if err != nil {
		if p.OnError != nil {
			p.OnError(fmt.Errorf("prune the outbox: %w", err))
		}
		return
	}
	if p.OnPrune != nil {
		p.OnPrune(n)
	}
}

// sendBatch sends up to Batch records beyond the mark and moves the mark
// over those stored; it returns how many it sent. *last is the stream's
// sequence of the kiosk's last record (resync's), moved at each record
// stored.
//
// The records go one after the other, each once the one before it is
// stored, and each only if the kiosk's subject ends with the one before
// it (Nats-Expected-Last-Subject-Sequence): on a cluster, records sent
// together to a leader that stops are lost or stored each on its own, so
// that a later one could be stored while an earlier one was lost, the
// kiosk's records at the centre out of order or with a hole, and the
// resync moving the mark over the hole (TestFleetClusterFaults found it).
// A record sent again whose first copy was stored is answered as a
// duplicate (its Nats-Msg-Id) with the first copy's sequence.
func (p *Publisher) sendBatch(ctx context.Context, js jetstream.JetStream, kv Bucket, subject string, last *uint64) (int, error) {
	st, err := p.src.OutboxState(ctx)
	if err != nil {
		return 0, err
	}
	recs, err := p.src.Outbox(ctx, st.Published, p.Batch)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	var upTo int64
	var failed error
	stored := make([]uint64, 0, len(recs)) // each record's sequence in the stream
	for _, r := range recs {
		// No validation number leaves the kiosk in clear.
		sealed, err := p.keys.sealRecord(r)
		if err != nil {
			return 0, err
		}
		data, err := json.Marshal(sealed)
		if err != nil {
			return 0, err
		}
		m := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
		m.Header.Set(HeaderSeq, strconv.FormatInt(r.Seq, 10))
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ack, err := js.PublishMsg(pctx, m, jetstream.WithMsgID(MsgID(p.cfg.KioskID, r.Seq)),
			jetstream.WithExpectStream(RecordsStream), jetstream.WithExpectLastSequencePerSubject(*last))
		cancel()
		if err != nil {
			failed = fmt.Errorf("record %d: %w", r.Seq, err)
			break
		}
		*last, upTo = ack.Sequence, r.Seq
		stored = append(stored, ack.Sequence)
	}
	if upTo > 0 {
		// The vouchers' entries follow their records before the mark moves:
		// a failure there sends the records again, and applying them twice
		// changes nothing.
		for i, r := range recs[:len(stored)] {
			if err := p.applyVoucher(ctx, kv, r, stored[i]); err != nil {
				return 0, err
			}
		}
		if err := p.src.MarkPublished(ctx, upTo); err != nil {
			return 0, err
		}
		p.acked(ctx, upTo)
	}
	return len(recs), failed
}
