package fleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Bucket is a key-value bucket reached through its keys' subjects only,
// as a kiosk's permissions allow (permissions.go): a read is a direct get
// of the key's last message ($JS.API.DIRECT.GET.KV_<bucket>.$KV.<bucket>.<key>,
// which the server answers for that subject and nothing else), a write a
// JetStream publish on the key's subject ($KV.<bucket>.<key>) with the
// revision it expects. Unlike jetstream.KeyValue it never asks for the
// bucket's stream information, which lists every key, so a kiosk needs no
// right to it. The centre, whose user has every right, goes through it
// too: one path for both.
type Bucket struct {
	js   jetstream.JetStream
	name string
}

// NewBucket is the bucket name on js.
func NewBucket(js jetstream.JetStream, name string) Bucket { return Bucket{js: js, name: name} }

// entry is a key's last value and its revision (the stream sequence of
// the message that wrote it).
type entry struct {
	key      string
	value    []byte
	revision uint64
	deleted  bool // a delete marker: the key has no value
}

func (b Bucket) subject(key string) string { return "$KV." + b.name + "." + key }

// directGet reads the last message of subject in stream through the
// direct get API: jetstream.ErrMsgNotFound if there is none.
func directGet(ctx context.Context, nc *nats.Conn, stream, subject string) (*nats.Msg, uint64, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	m, err := nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET."+stream+"."+subject, nil)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, 0, fmt.Errorf("stream %s: not provisioned by the centre (pharaon-central provision): %w", stream, err)
	}
	if err != nil {
		return nil, 0, err
	}
	switch m.Header.Get("Status") {
	case "":
	case "404":
		return nil, 0, jetstream.ErrMsgNotFound
	default:
		return nil, 0, fmt.Errorf("get %s: %s %s", subject, m.Header.Get("Status"), m.Header.Get("Description"))
	}
	seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("get %s: sequence %q: %w", subject, m.Header.Get(jetstream.SequenceHeader), err)
	}
	return m, seq, nil
}

// get reads a key: jetstream.ErrKeyNotFound when it has no value.
func (b Bucket) get(ctx context.Context, key string) (entry, error) {
	e, err := b.last(ctx, key)
	if err == nil && e.deleted {
		err = jetstream.ErrKeyNotFound
	}
	return e, err
}

// last reads a key's last message, a delete marker included.
func (b Bucket) last(ctx context.Context, key string) (entry, error) {
	m, seq, err := directGet(ctx, b.js.Conn(), "KV_"+b.name, b.subject(key))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return entry{}, jetstream.ErrKeyNotFound
	}
	if err != nil {
		return entry{}, fmt.Errorf("%s %s: %w", b.name, key, err)
	}
	op := m.Header.Get("KV-Operation")
	return entry{key: key, value: m.Data, revision: seq, deleted: op == "DEL" || op == "PURGE"}, nil
}

// write publishes value on key if its last revision is rev (0: no
// message yet); header kvOp marks a delete.
func (b Bucket) write(ctx context.Context, key string, value []byte, rev uint64, kvOp string) (uint64, error) {
	m := nats.NewMsg(b.subject(key))
	m.Data = value
	if kvOp != "" {
		m.Header.Set("KV-Operation", kvOp)
	}
	ack, err := b.js.PublishMsg(ctx, m, jetstream.WithExpectLastSequencePerSubject(rev))
	if isWrongLastSeq(err) {
		return 0, fmt.Errorf("%s %s: %w: %w", b.name, key, jetstream.ErrKeyRevisionMismatch, err)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", b.name, key, err)
	}
	return ack.Sequence, nil
}

func isWrongLastSeq(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// create writes key only if it has no value (never written, or deleted):
// jetstream.ErrKeyExists otherwise.
func (b Bucket) create(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := b.write(ctx, key, value, 0, "")
	if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return rev, err
	}
	last, lerr := b.last(ctx, key)
	if lerr == nil && last.deleted {
		rev, err = b.write(ctx, key, value, last.revision, "")
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return rev, err
		}
	}
	return 0, fmt.Errorf("%s %s: %w", b.name, key, jetstream.ErrKeyExists)
}

// update writes key if its last revision is rev:
// jetstream.ErrKeyRevisionMismatch otherwise.
func (b Bucket) update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	return b.write(ctx, key, value, rev, "")
}

// put writes key whatever it held.
func (b Bucket) put(ctx context.Context, key string, value []byte) (uint64, error) {
	m := nats.NewMsg(b.subject(key))
	m.Data = value
	ack, err := b.js.PublishMsg(ctx, m)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", b.name, key, err)
	}
	return ack.Sequence, nil
}

// delete marks key deleted if its last revision is rev.
func (b Bucket) delete(ctx context.Context, key string, rev uint64) error {
	_, err := b.write(ctx, key, nil, rev, "DEL")
	return err
}
