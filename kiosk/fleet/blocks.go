package fleet

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game/block"
	"pharaon/hw"
	"pharaon/kiosk"
	"pharaon/store"
)

// Blocks from the centre (DESIGN.md §11). The centre puts a signed block
// file in the object store of its address (BlockObjectsFor: one per kiosk
// and one per group, so that a kiosk can read the files sent to it and to
// its groups and no other: a block file tells every unit's prize), named
// by its SHA-256, and publishes a delivery saying where it is to
// BlocksStream, on pharaon.blocks.kiosk.<id> or
// pharaon.blocks.group.<group>. Each kiosk reads the deliveries of its id
// and its groups through its own durable consumer, which the centre made
// (ProvisionKiosk) and whose filter says the kiosk's groups, imports the
// file through the kiosk's import (the one the maintenance screen uses),
// and writes the outcome in the bucket BlockResults under
// "<kiosk>.<delivery>", acknowledging the delivery only then.
const (
	// BlocksStream holds the deliveries of blocks.
	BlocksStream = "PHARAON_BLOCKS"
	// BlocksSubject prefixes a delivery's subject:
	// pharaon.blocks.kiosk.<id> or pharaon.blocks.group.<group>.
	BlocksSubject = "pharaon.blocks."
	// BlockObjects prefixes the object stores of the block files, one
	// per address (BlockObjectsFor).
	BlockObjects = "pharaon-blocks-"
	// BlockResults is the bucket of the kiosks' outcomes.
	BlockResults = "pharaon-block-results"
	// EventFleetBlock is the kiosk's event of a delivery's outcome
	// (source "fleet").
	EventFleetBlock = "fleet_block"
	// maxBlockObject bounds what a kiosk downloads: a block file is
	// block.FileSize bytes; anything much larger is not one.
	maxBlockObject = 2 * block.FileSize
)

// Address is where a block goes: one kiosk or a group of kiosks.
type Address struct {
	Group bool
	Name  string // the kiosk's id or the group's name: one subject token
}

// ToKiosk and ToGroup are the addresses of a kiosk and of a group.
func ToKiosk(id string) Address   { return Address{Name: id} }
func ToGroup(name string) Address { return Address{Group: true, Name: name} }

// String is "kiosk:<id>" or "group:<name>", as a delivery says it.
func (a Address) String() string {
	if a.Group {
		return "group:" + a.Name
	}
	return "kiosk:" + a.Name
}

// BlockObjectsFor is the object store of the files sent to a:
// pharaon-blocks-kiosk-<id> or pharaon-blocks-group-<group>.
func BlockObjectsFor(a Address) string {
	if a.Group {
		return BlockObjects + "group-" + a.Name
	}
	return BlockObjects + "kiosk-" + a.Name
}

// Subject is the subject of the address's deliveries.
func (a Address) Subject() string {
	if a.Group {
		return BlocksSubject + "group." + a.Name
	}
	return BlocksSubject + "kiosk." + a.Name
}

// Delivery is a block sent to an address: the message of BlocksStream.
type Delivery struct {
	To       string    `json:"to"`     // Address.String
	Bucket   string    `json:"bucket"` // the object store: BlockObjectsFor the address
	Object   string    `json:"object"` // its name there
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"` // hex, of the whole file
	Emission uint32    `json:"emission"`
	Number   uint32    `json:"number"`
	Stake    int64     `json:"stake"` // cents
	SentAt   time.Time `json:"sent_at"`
	// Seq is the delivery's sequence in the stream: its id.
	Seq uint64 `json:"-"`
}

// Outcomes of a delivery at a kiosk.
const (
	BlockImported     = "imported"     // imported now
	BlockAlready      = "already"      // the same file was imported before: nothing done
	BlockRefused      = "refused"      // the kiosk's import refused it (signature, lots, header, duplicate number)
	BlockMisaddressed = "misaddressed" // not for this kiosk: not imported
	// BlockTaken: another kiosk claimed the block (claims.go): not
	// imported. For a group's delivery it is how one member takes the
	// block and the others leave it; for a kiosk's own delivery, a
	// refusal.
	BlockTaken = "taken"
)

// BlockResult is what a kiosk did with a delivery: an entry of the bucket
// BlockResults, key "<kiosk>.<delivery>".
type BlockResult struct {
	Kiosk    string    `json:"kiosk"`
	Delivery uint64    `json:"delivery"`
	To       string    `json:"to"`
	Object   string    `json:"object"`
	Emission uint32    `json:"emission"`
	Number   uint32    `json:"number"`
	Outcome  string    `json:"outcome"`
	BlockID  int64     `json:"block_id,omitempty"` // the block's id at the kiosk (imported, already)
	Detail   string    `json:"detail,omitempty"`
	At       time.Time `json:"at"` // the kiosk's clock
}

// ResultKey is the key of a kiosk's result of a delivery.
func ResultKey(kiosk string, delivery uint64) string {
	return kiosk + "." + strconv.FormatUint(delivery, 10)
}

// objectsFor finds, or makes, the object store of an address's files
// (the centre, when it sends a block), with the deliveries' replicas.
func objectsFor(ctx context.Context, js jetstream.JetStream, a Address) (jetstream.ObjectStore, error) {
	name := BlockObjectsFor(a)
	obj, err := js.ObjectStore(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		replicas := 1
		if s, err := js.Stream(ctx, BlocksStream); err == nil {
			replicas = max(s.CachedInfo().Config.Replicas, 1)
		}
		obj, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: name,
			Storage: jetstream.FileStorage, Replicas: replicas})
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", name, err)
	}
	return obj, nil
}

// SendBlock puts a block file in the object store (named by its SHA-256:
// the same file sent again is one object) and publishes its delivery to
// to. The file's header, when it can be read, names the block in the
// delivery; the kiosk verifies the file, not the centre. A block claimed
// by a kiosk, or delivered to another address, is not sent (CheckSend):
// a block is on sale at one kiosk only.
func SendBlock(ctx context.Context, js jetstream.JetStream, file []byte, to Address, now time.Time) (Delivery, error) {
	if s, _ := block.Inspect(bytes.NewReader(file), nil); s.Header.Emission != 0 {
		sum := sha256.Sum256(file)
		if err := CheckSend(ctx, js, s.Header.Emission, s.Header.Number, hex.EncodeToString(sum[:]), to); err != nil {
			return Delivery{}, err
		}
	}
	return publishBlock(ctx, js, file, to, now)
}

// ErrBlockElsewhere: the block is claimed by a kiosk, or was delivered to
// another address, so it is not sent to this one.
var ErrBlockElsewhere = errors.New("block already given to another kiosk")

// SendRefusal is ErrBlockElsewhere with the claim or the delivery that
// holds the block.
type SendRefusal struct {
	Emission, Number uint32
	To               Address
	Claim            *BlockClaim // the kiosk that claimed it, or
	Delivery         *Delivery   // the delivery to another address no kiosk refused
}

func (e *SendRefusal) Error() string {
	if e.Claim != nil {
		return fmt.Sprintf("block %d/%d is on sale at kiosk %s since %s (%s): not sent to %s: %v", e.Emission, e.Number,
			e.Claim.Kiosk, e.Claim.At.UTC().Format(time.RFC3339), e.Claim.Via, e.To, ErrBlockElsewhere)
	}
	return fmt.Sprintf("block %d/%d was sent to %s (delivery %d, %s): not sent to %s: %v", e.Emission, e.Number,
		e.Delivery.To, e.Delivery.Seq, e.Delivery.SentAt.UTC().Format(time.RFC3339), e.To, ErrBlockElsewhere)
}
func (e *SendRefusal) Unwrap() error { return ErrBlockElsewhere }

// CheckSend refuses (a *SendRefusal) to send a block to to when a kiosk
// other than to claimed it (to a group, when any kiosk claimed it: the
// centre does not know the groups' members; it is sent again to its
// kiosk), or when it was delivered to another address and no kiosk there
// refused it. Sent again to the same address, it is the kiosk's to say
// "already".
func CheckSend(ctx context.Context, js jetstream.JetStream, emission, number uint32, sha string, to Address) error {
	c, err := ReadClaim(ctx, NewBucket(js, ClaimsBucket), emission, number)
	switch {
	case err == nil:
		if to.Group || c.Kiosk != to.Name {
			return &SendRefusal{Emission: emission, Number: number, To: to, Claim: &c}
		}
		return nil
	case !errors.Is(err, ErrNoClaim):
		return err
	}
	deliveries, err := ReadDeliveries(ctx, js)
	if err != nil {
		return err
	}
	results, err := ReadBlockResults(ctx, js)
	if err != nil {
		return err
	}
	// A delivery is closed when a kiosk answered it and none imported
	// it: refused (a tampered file), misaddressed, or taken elsewhere.
	open := map[uint64]bool{}
	answered := map[uint64]bool{}
	for _, r := range results {
		answered[r.Delivery] = true
		if r.Outcome == BlockImported || r.Outcome == BlockAlready {
			open[r.Delivery] = true
		}
	}
	for _, d := range deliveries {
		same := d.SHA256 == sha || d.Emission == emission && d.Number == number
		if !same || d.To == to.String() || answered[d.Seq] && !open[d.Seq] {
			continue
		}
		return &SendRefusal{Emission: emission, Number: number, To: to, Delivery: &d}
	}
	return nil
}

// publishBlock is SendBlock without its check.
func publishBlock(ctx context.Context, js jetstream.JetStream, file []byte, to Address, now time.Time) (Delivery, error) {
	if !ValidKioskID(to.Name) {
		return Delivery{}, fmt.Errorf("address %q, named as a kiosk is: %w", to.Name, kiosk.ErrKioskID)
	}
	obj, err := objectsFor(ctx, js, to)
	if err != nil {
		return Delivery{}, err
	}
	sum := sha256.Sum256(file)
	d := Delivery{To: to.String(), Bucket: BlockObjectsFor(to), Object: "block-" + hex.EncodeToString(sum[:]), Size: int64(len(file)),
		SHA256: hex.EncodeToString(sum[:]), SentAt: now.UTC()}
	if s, _ := block.Inspect(bytes.NewReader(file), nil); s.Header.Emission != 0 {
		d.Emission, d.Number, d.Stake = s.Header.Emission, s.Header.Number, int64(s.Header.Stake)
	}
	if info, err := obj.GetInfo(ctx, d.Object); err != nil || info.Size != uint64(len(file)) {
		if _, err := obj.Put(ctx, jetstream.ObjectMeta{Name: d.Object,
			Description: fmt.Sprintf("block %d/%d", d.Emission, d.Number)}, bytes.NewReader(file)); err != nil {
			return Delivery{}, fmt.Errorf("put %s: %w", d.Object, err)
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return Delivery{}, err
	}
	ack, err := js.Publish(ctx, to.Subject(), data, jetstream.WithExpectStream(BlocksStream))
	if err != nil {
		return Delivery{}, fmt.Errorf("publish the delivery to %s: %w", to, err)
	}
	d.Seq = ack.Sequence
	return d, nil
}

// ReadDeliveries returns the deliveries of the stream, oldest first.
func ReadDeliveries(ctx context.Context, js jetstream.JetStream) ([]Delivery, error) {
	stream, err := js.Stream(ctx, BlocksStream)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", BlocksStream, err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []Delivery
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var d Delivery
		if err := json.Unmarshal(m.Data, &d); err != nil {
			d = Delivery{To: "? " + m.Subject}
		}
		d.Seq = m.Sequence
		out = append(out, d)
	}
	return out, nil
}

// ReadBlockResults returns every kiosk's results, by kiosk then delivery.
func ReadBlockResults(ctx context.Context, js jetstream.JetStream) ([]BlockResult, error) {
	kv, err := js.KeyValue(ctx, BlockResults)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", BlockResults, err)
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []BlockResult
	for key := range lister.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var r BlockResult
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("result %s: %w", key, err)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b BlockResult) int {
		if c := strings.Compare(a.Kiosk, b.Kiosk); c != 0 {
			return c
		}
		return cmp.Compare(a.Delivery, b.Delivery)
	})
	return out, nil
}

// BlockStore is what the block fetcher needs of the kiosk's store.
type BlockStore interface {
	Blocks(ctx context.Context) ([]store.BlockInfo, error)
	Log(ctx context.Context, e store.Event) (store.Event, error)
}

// ImportFunc imports a block file the way the kiosk does
// (kiosk.Machine.ImportBlock: the store's verifying import, then the
// stakes on sale read again).
type ImportFunc func(ctx context.Context, r io.Reader) (store.BlockInfo, error)

// BlockFetcher brings the blocks addressed to a kiosk (its id or one of
// its groups) into it.
type BlockFetcher struct {
	cfg Config
	st  BlockStore
	imp ImportFunc

	// Poll is how long a fetch waits for a delivery (default 5 s);
	// MinBackoff and MaxBackoff bound the wait after a failure (defaults
	// 250 ms and 30 s). Now is the kiosk's clock for the results (default
	// time.Now).
	Poll                   time.Duration
	MinBackoff, MaxBackoff time.Duration
	Now                    func() time.Time
	// OnResult, when set, is called with each delivery's outcome once it
	// is recorded; OnError with each failure.
	OnResult func(BlockResult)
	OnError  func(error)

	// reclaim asks the session to claim the blocks the kiosk holds
	// (Reclaim).
	reclaim chan struct{}

	// beforeAck, in tests, runs between the result and the
	// acknowledgement; an error from it ends the session there (a crash).
	beforeAck func(BlockResult) error
}

// NewBlockFetcher returns the fetcher of the blocks for cfg's kiosk (and
// the groups the centre put it in); Run starts it.
func NewBlockFetcher(cfg Config, st BlockStore, imp ImportFunc) (*BlockFetcher, error) {
	if cfg.URL == "" {
		return nil, errors.New("fleet: no NATS URL")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &BlockFetcher{cfg: cfg, st: st, imp: imp, Poll: 5 * time.Second, reclaim: make(chan struct{}, 1),
		MinBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second, Now: time.Now}, nil
}

// Reclaim asks the fetcher to claim in the fleet every block the kiosk
// holds, at its next poll (within Poll) if it is connected, else when it
// connects: a block imported while the centre did not answer.
func (f *BlockFetcher) Reclaim() {
	select {
	case f.reclaim <- struct{}{}:
	default:
	}
}

// Run fetches until ctx is cancelled, reconnecting after a failure with
// a doubling wait. It returns ctx's error.
func (f *BlockFetcher) Run(ctx context.Context) error {
	return reconnecting(ctx, f.MinBackoff, f.MaxBackoff, f.session, func(err error) {
		if f.OnError != nil {
			f.OnError(err)
		}
	}, hw.SystemClock{}.Sleep)
}

// session is one connection: it takes the deliveries one at a time.
func (f *BlockFetcher) session(ctx context.Context) (progressed bool, err error) {
	nc, err := f.cfg.connect()
	if err != nil {
		return false, err
	}
	defer nc.Close()
	// Stopping the kiosk ends a fetch waiting for a delivery at once.
	defer context.AfterFunc(ctx, nc.Close)()
	js, err := jetstream.New(nc)
	if err != nil {
		return false, err
	}
	// The kiosk's durable consumer, made by the centre: the server keeps
	// what it acknowledged across restarts, and its filter is the kiosk's
	// id and the groups the centre put it in.
	cons, err := js.Consumer(ctx, BlocksStream, BlocksConsumer(f.cfg.KioskID))
	if err != nil {
		return false, fmt.Errorf("consumer of the blocks (made by pharaon-central kiosk add): %w", err)
	}
	addrs, err := addressesOf(cons.CachedInfo())
	if err != nil {
		return false, err
	}
	s := &fetchSession{js: js, cons: cons, addrs: addrs, objects: map[string]jetstream.ObjectStore{},
		claims: claimsClient{nc: nc, kiosk: f.cfg.KioskID}, results: NewBucket(js, BlockResults)}
	// The blocks imported while the centre did not answer are claimed
	// first, before any delivery is taken.
	select {
	case <-f.reclaim:
	default:
	}
	if err := claimHeld(ctx, s.claims, f.st, f.cfg.KioskID, f.Now()); err != nil {
		return false, fmt.Errorf("claim the blocks held: %w", err)
	}
	for {
		if ctx.Err() != nil {
			return progressed, ctx.Err()
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(f.Poll))
		if err != nil {
			return progressed, fmt.Errorf("fetch a delivery: %w", err)
		}
		for m := range batch.Messages() {
			if err := f.take(ctx, s, m); err != nil {
				// Not acknowledged: delivered again after the ack wait.
				_ = m.Nak()
				return progressed, err
			}
			progressed = true
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
			return progressed, fmt.Errorf("fetch a delivery: %w", err)
		}
		if nc.IsClosed() || !nc.IsConnected() {
			return progressed, errors.New("connection lost")
		}
		select {
		case <-f.reclaim:
			// A failure ends the session: the next one claims the
			// blocks held before it takes a delivery.
			if err := claimHeld(ctx, s.claims, f.st, f.cfg.KioskID, f.Now()); err != nil {
				return progressed, fmt.Errorf("claim the blocks held: %w", err)
			}
		default:
		}
	}
}

// fetchSession is what one connection of the fetcher holds.
type fetchSession struct {
	js      jetstream.JetStream
	cons    jetstream.Consumer
	addrs   []Address // the kiosk's, from its consumer's filter
	objects map[string]jetstream.ObjectStore
	claims  claimsClient
	results Bucket
}

// address is the kiosk's address whose subject is subject, nil if none.
// A subject not among those the session began with is looked up again in
// the consumer's filter: the centre may have put the kiosk in a group
// since.
func (s *fetchSession) address(ctx context.Context, subject string) (*Address, error) {
	for range 2 {
		for _, a := range s.addrs {
			if a.Subject() == subject {
				return &a, nil
			}
		}
		info, err := s.cons.Info(ctx)
		if err != nil {
			return nil, err
		}
		if s.addrs, err = addressesOf(info); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// objectStore opens the object store name, once a session; the kiosk's
// permissions let it open its addresses' only.
func (s *fetchSession) objectStore(ctx context.Context, name string) (jetstream.ObjectStore, error) {
	if o, ok := s.objects[name]; ok {
		return o, nil
	}
	o, err := s.js.ObjectStore(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", name, err)
	}
	s.objects[name] = o
	return o, nil
}

// take handles one delivery: an outcome is recorded (event, result) and
// the delivery acknowledged; an error leaves it to be delivered again
// (nothing the kiosk cannot do again: a file imported is found by its
// digest and not imported twice).
func (f *BlockFetcher) take(ctx context.Context, s *fetchSession, m jetstream.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return err
	}
	var d Delivery
	r := BlockResult{Kiosk: f.cfg.KioskID, Delivery: meta.Sequence.Stream}
	if err := json.Unmarshal(m.Data(), &d); err != nil {
		r.Outcome, r.Detail = BlockRefused, fmt.Sprintf("delivery unreadable: %v", err)
	} else {
		d.Seq = meta.Sequence.Stream
		r.To, r.Object, r.Emission, r.Number = d.To, d.Object, d.Emission, d.Number
		r.Outcome, r.BlockID, r.Detail, err = f.deliver(ctx, s, m.Subject(), d)
		if err != nil {
			return err
		}
	}
	r.At = f.Now()
	if err := f.record(ctx, s.results, r); err != nil {
		return err
	}
	if f.beforeAck != nil {
		if err := f.beforeAck(r); err != nil {
			return err
		}
	}
	if err := m.DoubleAck(ctx); err != nil {
		return fmt.Errorf("acknowledge delivery %d: %w", r.Delivery, err)
	}
	return nil
}

// deliver checks a delivery's address, downloads its file and imports it.
// An error is a failure to try again (the network, the kiosk stopping);
// every other case is an outcome.
func (f *BlockFetcher) deliver(ctx context.Context, s *fetchSession, subject string, d Delivery) (outcome string, id int64, detail string, err error) {
	mine, err := s.address(ctx, subject)
	if err != nil {
		return "", 0, "", fmt.Errorf("delivery %d: %w", d.Seq, err)
	}
	if mine == nil || mine.String() != d.To || d.Bucket != BlockObjectsFor(*mine) {
		return BlockMisaddressed, 0, fmt.Sprintf("addressed to %s on %s in %s, this kiosk is %s", d.To, subject, d.Bucket, addressList(s.addrs)), nil
	}
	obj, err := s.objectStore(ctx, d.Bucket)
	if err != nil {
		return "", 0, "", fmt.Errorf("delivery %d: %w", d.Seq, err)
	}
	info, err := obj.GetInfo(ctx, d.Object)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return BlockRefused, 0, fmt.Sprintf("file %s not in the object store", d.Object), nil
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("delivery %d: %w", d.Seq, err)
	}
	if info.Size > maxBlockObject {
		return BlockRefused, 0, fmt.Sprintf("file %s has %d bytes, a block file %d", d.Object, info.Size, block.FileSize), nil
	}
	t0 := time.Now()
	res, err := obj.Get(ctx, d.Object)
	if err != nil {
		return "", 0, "", fmt.Errorf("delivery %d: get %s: %w", d.Seq, d.Object, err)
	}
	file, err := io.ReadAll(io.LimitReader(res, maxBlockObject+1))
	res.Close()
	if errors.Is(err, jetstream.ErrDigestMismatch) {
		return BlockRefused, 0, fmt.Sprintf("file %s: %v", d.Object, err), nil
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("delivery %d: read %s: %w", d.Seq, d.Object, err)
	}
	sum := sha256.Sum256(file)
	if hex.EncodeToString(sum[:]) != d.SHA256 {
		return BlockRefused, 0, fmt.Sprintf("file %s: SHA-256 %x, the delivery says %s", d.Object, sum[:8], d.SHA256), nil
	}
	// The same file imported before (a delivery sent again, or a crash
	// between the import and the acknowledgement) is not imported again.
	blocks, err := f.st.Blocks(ctx)
	if err != nil {
		return "", 0, "", err
	}
	for _, b := range blocks {
		if b.FileDigest == sum {
			return BlockAlready, b.ID, fmt.Sprintf("%s is block id %d, %s", b.Name(), b.ID, b.State), nil
		}
	}
	// Claimed in the fleet before it is imported: a block is on sale at
	// one kiosk only. The header is the file's own; a file whose header
	// cannot be read is refused by the import, nothing claimed.
	var claim BlockClaim
	if h, _ := block.Inspect(bytes.NewReader(file), nil); h.Header.Emission != 0 {
		r, err := s.claims.ask(ctx, claimRequest{Op: opClaim, Emission: h.Header.Emission, Number: h.Header.Number,
			SHA256: d.SHA256, At: f.Now(), Via: "delivery " + strconv.FormatUint(d.Seq, 10)})
		if err != nil {
			return "", 0, "", fmt.Errorf("delivery %d: %w", d.Seq, err)
		}
		claim = *r.Holder
		if claim.Kiosk != f.cfg.KioskID {
			return BlockTaken, 0, fmt.Sprintf("block %d/%d is on sale at kiosk %s since %s (%s)", claim.Emission, claim.Number,
				claim.Kiosk, claim.At.Format(time.RFC3339), claim.Via), nil
		}
	}
	t1 := time.Now()
	b, err := f.imp(ctx, bytes.NewReader(file))
	if err != nil && claim.Kiosk == f.cfg.KioskID && ctx.Err() == nil && !errors.Is(err, store.ErrClosed) {
		// Refused here (the file, the disk): the claim (this one, or one
		// left by a crash before an import) is given back so that the
		// block may go to another kiosk, unless the store holds a block
		// of that number after all. The service keeps it if the kiosk
		// claimed the block again since (another import of it).
		if held, herr := f.holds(ctx, claim.Emission, claim.Number); herr == nil && !held {
			if _, rerr := s.claims.ask(ctx, claimRequest{Op: opRelease, Emission: claim.Emission, Number: claim.Number,
				Token: claim.Token}); rerr != nil {
				return "", 0, "", fmt.Errorf("delivery %d: give back the claim: %w", d.Seq, rerr)
			}
		}
	}
	switch {
	case err == nil:
		return BlockImported, b.ID, fmt.Sprintf("%s at %s: block id %d, %s (download %d ms, import %d ms)", b.Name(), b.Stake, b.ID, b.State,
			t1.Sub(t0).Milliseconds(), time.Since(t1).Milliseconds()), nil
	case ctx.Err() != nil || errors.Is(err, store.ErrClosed):
		return "", 0, "", err
	default:
		// Every refusal of the import (the file, a number imported, the
		// disk) is final for this delivery: the centre sees it and sends
		// again if it must.
		return BlockRefused, 0, err.Error(), nil
	}
}

// holds reports whether the kiosk's store has a block of that emission and
// number.
func (f *BlockFetcher) holds(ctx context.Context, emission, number uint32) (bool, error) {
	blocks, err := f.st.Blocks(ctx)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(blocks, func(b store.BlockInfo) bool { return b.Emission == emission && b.Number == number }), nil
}

func addressList(as []Address) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// record writes the outcome in the kiosk's event log (which the outbox
// carries to the centre) and in the bucket of results.
func (f *BlockFetcher) record(ctx context.Context, kv Bucket, r BlockResult) error {
	level := store.LevelInfo
	if r.Outcome == BlockRefused || r.Outcome == BlockMisaddressed || r.Outcome == BlockTaken && !strings.HasPrefix(r.To, "group:") {
		level = store.LevelWarning
	}
	if _, err := f.st.Log(ctx, store.Event{Level: level, Source: "fleet", Code: EventFleetBlock,
		Detail: fmt.Sprintf("delivery %d (%s, %s): %s: %s", r.Delivery, r.To, r.Object, r.Outcome, r.Detail)}); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := kv.put(ctx, ResultKey(r.Kiosk, r.Delivery), data); err != nil {
		return fmt.Errorf("result of delivery %d: %w", r.Delivery, err)
	}
	if f.OnResult != nil {
		f.OnResult(r)
	}
	return nil
}
