package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/hw"
	"pharaon/store"
)

const (
	// RecordsStream is the stream the kiosks publish their records to.
	RecordsStream = "PHARAON_RECORDS"
	// RecordsSubject prefixes each kiosk's subject: pharaon.records.<kiosk>.
	RecordsSubject = "pharaon.records."
	// HeaderKiosk and HeaderSeq name a record's kiosk and sequence.
	HeaderKiosk = "Pharaon-Kiosk"
	HeaderSeq   = "Pharaon-Seq"
	// VoucherBucket is the key-value bucket of the fleet's vouchers.
	VoucherBucket = "vouchers"
)

// kioskIDPattern is what a kiosk id may be: one NATS subject token.
var kioskIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidKioskID reports whether id can name a kiosk in the fleet.
func ValidKioskID(id string) bool { return kioskIDPattern.MatchString(id) }

// MsgID is the de-duplication id of a kiosk's record: the server stores a
// record sent twice (a resend after a crash or a lost acknowledgement) once.
func MsgID(kiosk string, seq int64) string { return kiosk + "-" + strconv.FormatInt(seq, 10) }

// Config says how to reach the centre. An empty URL means no centre.
type Config struct {
	URL          string // nats://host:4222 or tls://host:4222; several separated by commas
	KioskID      string
	User         string // user and password, or
	Password     string
	NKeySeedFile string // a file holding the kiosk's nkey seed
	CAFile       string // the centre's CA, for TLS
	Replicas     int    // replicas of the stream and bucket when the publisher creates them (default 1)

	// Groups are the groups the kiosk takes blocks for, besides its id
	// (blocks.go).
	Groups []string

	// OnAsyncError receives what the NATS client reports outside a call
	// (a write on a connection that broke, a slow consumer), which it
	// would otherwise print on stderr by itself; nil drops them. The call
	// that meets the broken connection next returns its own error too.
	OnAsyncError func(error)
}

// Options returns the connection options of the configuration.
func (c Config) Options() ([]nats.Option, error) {
	opts := []nats.Option{nats.Name("pharaon kiosk " + c.KioskID), nats.MaxReconnects(0), nats.Timeout(5 * time.Second),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if c.OnAsyncError == nil {
				return
			}
			if sub != nil {
				err = fmt.Errorf("subscription %s: %w", sub.Subject, err)
			}
			c.OnAsyncError(err)
		})}
	if c.User != "" {
		opts = append(opts, nats.UserInfo(c.User, c.Password))
	}
	if c.NKeySeedFile != "" {
		o, err := nats.NkeyOptionFromSeed(c.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("nkey seed %s: %w", c.NKeySeedFile, err)
		}
		opts = append(opts, o)
	}
	if c.CAFile != "" {
		opts = append(opts, nats.RootCAs(c.CAFile))
	}
	return opts, nil
}

// Check refuses a configuration the publisher cannot run with.
func (c Config) Check() error {
	if c.URL == "" {
		return nil
	}
	if !ValidKioskID(c.KioskID) {
		return fmt.Errorf("kiosk id %q: letters, digits, - and _ only, 1 to 64", c.KioskID)
	}
	for _, g := range c.Groups {
		if !ValidKioskID(g) {
			return fmt.Errorf("group %q: letters, digits, - and _ only, 1 to 64", g)
		}
	}
	if c.User != "" && c.NKeySeedFile != "" {
		return errors.New("user/password and nkey seed file: choose one")
	}
	return nil
}

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
	return &Publisher{cfg: cfg, src: src, wake: make(chan struct{}, 1),
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
	opts, err := p.cfg.Options()
	if err != nil {
		return false, err
	}
	nc, err := nats.Connect(p.cfg.URL, opts...)
	if err != nil {
		return false, fmt.Errorf("connect %s: %w", p.cfg.URL, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return false, err
	}
	stream, kv, err := Ensure(ctx, js, p.cfg.Replicas)
	if err != nil {
		return false, err
	}
	subject := RecordsSubject + p.cfg.KioskID
	if err := p.resync(ctx, stream, kv, subject); err != nil {
		return false, err
	}
	p.setStatus(func(s *Status) { s.Connected = true })
	poll := time.NewTicker(p.Poll)
	defer poll.Stop()
	for {
		n, err := p.sendBatch(ctx, js, kv, subject)
		if n > 0 {
			progressed = true
		}
		if err != nil {
			return progressed, err
		}
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
// that sent those records may have died before it wrote them.
func (p *Publisher) resync(ctx context.Context, stream jetstream.Stream, kv jetstream.KeyValue, subject string) error {
	m, err := stream.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("last record stored: %w", err)
	}
	seq, err := strconv.ParseInt(m.Header.Get(HeaderSeq), 10, 64)
	if err != nil {
		return fmt.Errorf("last record stored: sequence %q: %w", m.Header.Get(HeaderSeq), err)
	}
	st, err := p.src.OutboxState(ctx)
	if err != nil {
		return err
	}
	if seq > st.Last {
		return fmt.Errorf("the centre holds record %d of kiosk %s, this kiosk's outbox ends at %d: another kiosk with this id, or a file restored", seq, p.cfg.KioskID, st.Last)
	}
	if seq > st.Published {
		if err := p.applyVouchers(ctx, kv, st.Published, seq); err != nil {
			return err
		}
		if err := p.src.MarkPublished(ctx, seq); err != nil {
			return err
		}
		p.acked(ctx, seq)
	}
	return nil
}

// applyVouchers brings the vouchers' entries up to the outbox records
// after the mark from, up to upTo.
func (p *Publisher) applyVouchers(ctx context.Context, kv jetstream.KeyValue, from, upTo int64) error {
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
			if err := p.applyVoucher(ctx, kv, r); err != nil {
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
func (p *Publisher) applyVoucher(ctx context.Context, kv jetstream.KeyValue, r store.OutboxRecord) error {
	err := applyVoucherRecord(ctx, kv, p.cfg.KioskID, r)
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
// over those acknowledged in order; it returns how many it sent.
func (p *Publisher) sendBatch(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue, subject string) (int, error) {
	st, err := p.src.OutboxState(ctx)
	if err != nil {
		return 0, err
	}
	recs, err := p.src.Outbox(ctx, st.Published, p.Batch)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	futures := make([]jetstream.PubAckFuture, 0, len(recs))
	for _, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			return 0, err
		}
		m := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
		m.Header.Set(HeaderKiosk, p.cfg.KioskID)
		m.Header.Set(HeaderSeq, strconv.FormatInt(r.Seq, 10))
		f, err := js.PublishMsgAsync(m, jetstream.WithMsgID(MsgID(p.cfg.KioskID, r.Seq)),
			jetstream.WithExpectStream(RecordsStream))
		if err != nil {
			return 0, fmt.Errorf("publish %d: %w", r.Seq, err)
		}
		futures = append(futures, f)
	}
	var upTo int64
	var failed error
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
wait:
	for i, f := range futures {
		select {
		case <-f.Ok():
			upTo = recs[i].Seq
		case err := <-f.Err():
			failed = fmt.Errorf("record %d: %w", recs[i].Seq, err)
			break wait
		case <-timeout.C:
			failed = fmt.Errorf("record %d: no acknowledgement", recs[i].Seq)
			break wait
		case <-ctx.Done():
			failed = ctx.Err()
			break wait
		}
	}
	if upTo > 0 {
		// The vouchers' entries follow their records before the mark moves:
		// a failure there sends the records again, and applying them twice
		// changes nothing.
		for _, r := range recs {
			if r.Seq > upTo {
				break
			}
			if err := p.applyVoucher(ctx, kv, r); err != nil {
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

// Ensure creates (or finds) the records stream and the vouchers bucket.
// The stream keeps every record (limits by age or size are the operator's
// to set on the server) and de-duplicates over a day.
func Ensure(ctx context.Context, js jetstream.JetStream, replicas int) (jetstream.Stream, jetstream.KeyValue, error) {
	if replicas < 1 {
		replicas = 1
	}
	stream, err := js.Stream(ctx, RecordsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		stream, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name: RecordsStream, Subjects: []string{RecordsSubject + ">"}, Storage: jetstream.FileStorage,
			Duplicates: 24 * time.Hour, Replicas: replicas,
		})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	kv, err := js.KeyValue(ctx, VoucherBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: VoucherBucket, History: 8,
			Storage: jetstream.FileStorage, Replicas: replicas})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("bucket %s: %w", VoucherBucket, err)
	}
	return stream, kv, nil
}
