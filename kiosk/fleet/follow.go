package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/store"
)

// FollowRecords gives fn every record of the stream from the first, in
// order, then each record as the server stores it, until ctx ends or fn
// fails: a fold kept up to date without reading the stream again (the
// operator's console). Each record is read as ReadRecords reads it: its
// kiosk is its subject's, what it says against that is among its Claims.
// caughtUp is called once, after the record that was the stream's last
// when the follow began (at once for an empty stream).
func FollowRecords(ctx context.Context, js jetstream.JetStream, caughtUp func(), fn func(Record) error) error {
	stream, err := js.Stream(ctx, RecordsStream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return err
	}
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		last = 0
	}
	if last == 0 && caughtUp != nil {
		caughtUp()
		caughtUp = nil
	}
	c, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{RecordsSubject + ">"}})
	if err != nil {
		return err
	}
	it, err := c.Messages()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		m, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		meta, err := m.Metadata()
		if err != nil {
			return err
		}
		var r store.OutboxRecord
		if err := json.Unmarshal(m.Data(), &r); err != nil {
			return fmt.Errorf("message %d: %w", meta.Sequence.Stream, err)
		}
		k := strings.TrimPrefix(m.Subject(), RecordsSubject)
		rec := Record{Kiosk: k, OutboxRecord: r, Stored: meta.Timestamp, StreamSeq: meta.Sequence.Stream,
			Claims: claims(k, r, m.Headers(), m.Data())}
		if err := fn(rec); err != nil {
			return err
		}
		if caughtUp != nil && meta.Sequence.Stream >= last {
			caughtUp()
			caughtUp = nil
		}
	}
}
