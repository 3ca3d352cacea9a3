package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/store"
)

// KioskStatus is a kiosk as the centre sees it from its records.
type KioskStatus struct {
	Kiosk    string
	Records  int64     // records received
	LastSeq  int64     // the last sequence received
	LastSeen time.Time // when the server stored its last record
	LastAt   time.Time // the kiosk's time of its last record
	Credit   int64     // the balance after its last ledger row, cents
	Ledger   int64     // the sum of its ledger movements, cents (equals Credit when whole)
	Plays    int64
	Sales    int64 // stakes debited, cents
	Wins     int64 // wins credited, cents
	BillsIn  int64 // notes credited, cents
	Vouchers int64 // vouchers printed, cents
	Faults   int64 // events of level error or critical
	// Problems are what the centre found wrong: a hole in the sequence, a
	// chain whose prev_hash is not the hash before it, a ledger whose sum is
	// not its balance; and a voucher the kiosk reported paid twice.
	Problems []string

	heads      map[string]string // kind → hash of its last row
	playStakes map[int64]int64   // play id → stake
}

// StakeReport is the fleet's sales and wins at one stake.
type StakeReport struct {
	Stake int64
	Plays int64
	Sales int64
	Wins  int64
}

// Fleet folds the records of every kiosk.
type Fleet struct {
	Kiosks  map[string]*KioskStatus
	ByStake map[int64]*StakeReport
}

// NewFleet returns an empty fold.
func NewFleet() *Fleet {
	return &Fleet{Kiosks: map[string]*KioskStatus{}, ByStake: map[int64]*StakeReport{}}
}

// chained are the kinds of records whose rows are hash-chained.
var chained = map[string]bool{"play": true, "play_step": true, "ledger": true, "event": true, "voucher": true, "voucher_step": true,
	"bill_intent": true, "bill_intent_step": true}

// Apply folds one record of kiosk, stored by the server at stored.
func (f *Fleet) Apply(kiosk string, r store.OutboxRecord, stored time.Time) {
	k := f.Kiosks[kiosk]
	if k == nil {
		k = &KioskStatus{Kiosk: kiosk, heads: map[string]string{}, playStakes: map[int64]int64{}}
		f.Kiosks[kiosk] = k
	}
	if r.Seq != k.LastSeq+1 {
		k.Problems = append(k.Problems, fmt.Sprintf("sequence %d after %d", r.Seq, k.LastSeq))
	}
	k.Records++
	k.LastSeq, k.LastSeen, k.LastAt = r.Seq, stored, r.At
	var p struct {
		ID           int64  `json:"id"`
		Stake        int64  `json:"stake"`
		Kind         string `json:"kind"`
		Amount       int64  `json:"amount"`
		BalanceAfter int64  `json:"balance_after"`
		PlayID       int64  `json:"play_id"`
		Level        string `json:"level"`
		Code         string `json:"code"`
		Detail       string `json:"detail"`
		PrevHash     string `json:"prev_hash"`
		Hash         string `json:"hash"`
	}
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		k.Problems = append(k.Problems, fmt.Sprintf("record %d: %v", r.Seq, err))
		return
	}
	if chained[r.Kind] {
		if prev, ok := k.heads[r.Kind]; ok && prev != p.PrevHash {
			k.Problems = append(k.Problems, fmt.Sprintf("%s %d: chain broken (record %d)", r.Kind, p.ID, r.Seq))
		}
		k.heads[r.Kind] = p.Hash
	}
	switch r.Kind {
	case "play":
		k.Plays++
		k.playStakes[p.ID] = p.Stake
		f.stake(p.Stake).Plays++
	case "ledger":
		k.Ledger += p.Amount
		k.Credit = p.BalanceAfter
		if k.Ledger != k.Credit {
			k.Problems = append(k.Problems, fmt.Sprintf("ledger %d: balance %d, movements sum to %d", p.ID, p.BalanceAfter, k.Ledger))
			k.Ledger = k.Credit // report once, not at every row after
		}
		switch p.Kind {
		case "stake":
			k.Sales -= p.Amount
			f.stake(k.playStakes[p.PlayID]).Sales -= p.Amount
		case "win":
			k.Wins += p.Amount
			f.stake(k.playStakes[p.PlayID]).Wins += p.Amount
		case "bill_in":
			k.BillsIn += p.Amount
		case "voucher_out":
			k.Vouchers -= p.Amount
		}
	case "event":
		if p.Level == "error" || p.Level == "critical" {
			k.Faults++
		}
		if p.Code == EventVoucherPaidTwice {
			k.Problems = append(k.Problems, p.Detail)
		}
	}
}

func (f *Fleet) stake(s int64) *StakeReport {
	r := f.ByStake[s]
	if r == nil {
		r = &StakeReport{Stake: s}
		f.ByStake[s] = r
	}
	return r
}

// Sorted returns the kiosks by id.
func (f *Fleet) Sorted() []*KioskStatus {
	out := make([]*KioskStatus, 0, len(f.Kiosks))
	for _, k := range f.Kiosks {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kiosk < out[j].Kiosk })
	return out
}

// Stakes returns the report by stake, smallest first.
func (f *Fleet) Stakes() []StakeReport {
	var out []StakeReport
	for _, r := range f.ByStake {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stake < out[j].Stake })
	return out
}

// ReadRecords reads every record of the stream (of one kiosk when kiosk is
// not "") in order and gives each to fn, until the stream's end as it was
// when the read began.
func ReadRecords(ctx context.Context, js jetstream.JetStream, kiosk string, fn func(kiosk string, r store.OutboxRecord, stored time.Time) error) error {
	stream, err := js.Stream(ctx, RecordsStream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	filter := RecordsSubject + ">"
	if kiosk != "" {
		filter = RecordsSubject + kiosk
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return err
	}
	if info.State.Msgs == 0 {
		return nil
	}
	c, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		return err
	}
	for {
		batch, err := c.Fetch(1024, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, err := m.Metadata()
			if err != nil {
				return err
			}
			var r store.OutboxRecord
			if err := json.Unmarshal(m.Data(), &r); err != nil {
				return fmt.Errorf("message %d: %w", meta.Sequence.Stream, err)
			}
			k := m.Headers().Get(HeaderKiosk)
			if k == "" {
				k = strings.TrimPrefix(m.Subject(), RecordsSubject)
			}
			if err := fn(k, r, meta.Timestamp); err != nil {
				return err
			}
			if meta.Sequence.Stream >= info.State.LastSeq || meta.NumPending == 0 {
				return nil
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return err
		}
		if n == 0 {
			return errors.New("the stream ended before its last record")
		}
	}
}
