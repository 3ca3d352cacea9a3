package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/kiosk/fleet"
)

// AlarmKind is what an alarm is about.
type AlarmKind string

// The alarms the operator asked for: a kiosk out of service, low on paper
// or on units, missing records (or records not as they should be), rolled
// back, paying a voucher twice, silent.
const (
	AlarmOutOfService AlarmKind = "out_of_service"
	AlarmPaper        AlarmKind = "paper"
	AlarmUnits        AlarmKind = "units_low"
	AlarmRecords      AlarmKind = "records"
	AlarmRolledBack   AlarmKind = "rolled_back"
	AlarmPaidTwice    AlarmKind = "paid_twice"
	AlarmSilent       AlarmKind = "silent"
)

// AlarmKinds are the kinds, in the order the pages list them.
var AlarmKinds = []AlarmKind{AlarmOutOfService, AlarmPaper, AlarmUnits, AlarmRecords, AlarmRolledBack, AlarmPaidTwice, AlarmSilent}

// Alarm is one alarm, kept in the bucket AlarmBucket under its ID.
type Alarm struct {
	ID     string    `json:"id"`
	Kind   AlarmKind `json:"kind"`
	Kiosk  string    `json:"kiosk"`
	Detail string    `json:"detail"`
	Raised time.Time `json:"raised"`
	AckBy  string    `json:"ack_by,omitempty"`
	AckAt  time.Time `json:"ack_at,omitzero"`
}

// AlarmBucket keeps the alarms: on the fleet's server, so that they
// outlive the console and two consoles raise an alarm once.
const AlarmBucket = "console_alarms"

// Alarms derives the alarms from the fold, keeps them and sends them.
type Alarms struct {
	kv    jetstream.KeyValue
	now   func() time.Time
	hooks *Webhooks // nil: none

	// UnitsLow is the stock at a stake under which a kiosk selling at it
	// raises an alarm; Silence how long a kiosk may go without a record.
	UnitsLow int64
	Silence  time.Duration
	Logf     func(format string, args ...any)

	mu       sync.Mutex
	list     map[string]*Alarm
	problems map[string]int // kiosk → its problems already read
	send     bool           // past the catch-up: new alarms go to the webhooks
	onChange func(Alarm)
}

// OpenAlarms opens (or makes) the alarms' bucket and reads the alarms
// kept.
func OpenAlarms(ctx context.Context, js jetstream.JetStream, now func() time.Time, hooks *Webhooks) (*Alarms, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: AlarmBucket, History: 8,
		Description: "the operator's console's alarms"})
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", AlarmBucket, err)
	}
	a := &Alarms{kv: kv, now: now, hooks: hooks, UnitsLow: 10_000, Silence: 10 * time.Minute, Logf: func(string, ...any) {},
		list: map[string]*Alarm{}, problems: map[string]int{}}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		var al Alarm
		if err := json.Unmarshal(e.Value(), &al); err != nil {
			return nil, fmt.Errorf("alarm %s: %w", k, err)
		}
		a.list[al.ID] = &al
	}
	return a, nil
}

// alarmID is an alarm's key: its kind, its kiosk and what makes it this
// alarm and not the next of its kind (the record of the fault, the stake
// and its blocks…), so that reading the records again raises nothing
// twice.
func alarmID(kind AlarmKind, kiosk, identity string) string {
	h := sha256.Sum256([]byte(identity))
	return string(kind) + "." + kiosk + "." + hex.EncodeToString(h[:8])
}

// raise keeps a new alarm; an alarm already kept is left as it is (its
// acknowledgement stays).
func (a *Alarms) raise(ctx context.Context, kind AlarmKind, kiosk, identity, detail string) {
	id := alarmID(kind, kiosk, identity)
	a.mu.Lock()
	if _, ok := a.list[id]; ok {
		a.mu.Unlock()
		return
	}
	al := &Alarm{ID: id, Kind: kind, Kiosk: kiosk, Detail: detail, Raised: a.now().UTC()}
	a.list[id] = al
	send, onChange := a.send, a.onChange
	a.mu.Unlock()
	b, _ := json.Marshal(al)
	if _, err := a.kv.Create(ctx, id, b); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		// Kept in memory and shown; the next start raises it again.
		a.Logf("alarm %s not kept: %v", id, err)
	}
	if send && a.hooks != nil {
		a.hooks.Send(*al)
	}
	if onChange != nil {
		onChange(*al)
	}
}

// ErrNoAlarm: no alarm of that id.
var ErrNoAlarm = errors.New("no such alarm")

// ErrAcknowledged: the alarm was acknowledged already (by whom is in it).
var ErrAcknowledged = errors.New("alarm already acknowledged")

// Ack acknowledges an alarm in the name of the operator by, once: the
// bucket's compare-and-set keeps the first of two consoles.
func (a *Alarms) Ack(ctx context.Context, id, by string) (Alarm, error) {
	e, err := a.kv.Get(ctx, id)
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return Alarm{}, ErrNoAlarm
		}
		return Alarm{}, err
	}
	var al Alarm
	if err := json.Unmarshal(e.Value(), &al); err != nil {
		return Alarm{}, err
	}
	if al.AckBy != "" {
		return al, ErrAcknowledged
	}
	al.AckBy, al.AckAt = by, a.now().UTC()
	b, _ := json.Marshal(al)
	if _, err := a.kv.Update(ctx, id, b, e.Revision()); err != nil {
		return al, fmt.Errorf("acknowledge %s: %w", id, err)
	}
	a.mu.Lock()
	a.list[id] = &al
	onChange := a.onChange
	a.mu.Unlock()
	if onChange != nil {
		onChange(al)
	}
	return al, nil
}

// List returns the alarms, the newest first.
func (a *Alarms) List() []Alarm {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Alarm, 0, len(a.list))
	for _, al := range a.list {
		out = append(out, *al)
	}
	slices.SortFunc(out, func(x, y Alarm) int {
		if c := y.Raised.Compare(x.Raised); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out
}

// startSending: from now on new alarms go to the webhooks too. The alarms
// raised while the console read the records kept before its start are
// not sent: they are on the page, and a console started again does not
// flood the operator's chat with the past.
func (a *Alarms) startSending() {
	a.mu.Lock()
	a.send = true
	a.mu.Unlock()
}

// Check derives kiosk's alarms from the fold, as it stands after a record.
func (a *Alarms) Check(ctx context.Context, l *Live, kiosk string) {
	type raise struct {
		kind             AlarmKind
		identity, detail string
	}
	var rs []raise
	l.Read(func(f *fleet.Fleet, extra map[string]*kioskExtra) {
		k, x := f.Kiosks[kiosk], extra[kiosk]
		if k == nil || x == nil {
			return
		}
		if x.OutOfOrder {
			rs = append(rs, raise{AlarmOutOfService, fmt.Sprint("record ", x.FaultSeq), x.Fault})
		}
		if x.Paper == "out" {
			rs = append(rs, raise{AlarmPaper, fmt.Sprint("record ", x.PaperSeq), "printer: " + x.PaperWhy})
		}
		for _, s := range k.Stock() {
			n := 0
			for _, b := range k.Blocks {
				if b.Stake == s.Stake && b.ID != 0 {
					n++
				}
			}
			if n > 0 && s.Left < a.UnitsLow {
				rs = append(rs, raise{AlarmUnits, fmt.Sprintf("stake %d blocks %d", s.Stake, n),
					fmt.Sprintf("%s: %s units left", game.Money(s.Stake), game.Count(int(s.Left)))})
			}
		}
		a.mu.Lock()
		seen := a.problems[kiosk]
		a.problems[kiosk] = len(k.Problems)
		a.mu.Unlock()
		for _, p := range k.Problems[min(seen, len(k.Problems)):] {
			kind := AlarmRecords
			switch {
			case strings.HasPrefix(p, "rolled back"):
				kind = AlarmRolledBack
			case x.PaidTwice > 0 && p == x.PaidTwiceD:
				kind = AlarmPaidTwice
			}
			rs = append(rs, raise{kind, p, p})
		}
	})
	for _, r := range rs {
		a.raise(ctx, r.kind, kiosk, r.identity, r.detail)
	}
}

// CheckSilence raises an alarm for each kiosk whose last record the
// server stored longer than Silence ago.
func (a *Alarms) CheckSilence(ctx context.Context, l *Live) {
	now := a.now()
	type silent struct {
		kiosk string
		seq   int64
		seen  time.Time
	}
	var ss []silent
	l.Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
		for id, k := range f.Kiosks {
			if now.Sub(k.LastSeen) > a.Silence {
				ss = append(ss, silent{id, k.LastSeq, k.LastSeen})
			}
		}
	})
	for _, s := range ss {
		a.raise(ctx, AlarmSilent, s.kiosk, fmt.Sprint("after record ", s.seq),
			fmt.Sprintf("no record since %s (record %d)", s.seen.UTC().Format(time.RFC3339), s.seq))
	}
}
