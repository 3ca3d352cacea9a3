package id003_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/hwtest"
	"pharaon/hw/id003"
	"pharaon/hw/validator"
)

// Every state an ID-003 unit reports has its shared state, under the same key, so the screens'
// words for a state (keyed by id003.State.Key until the kiosk learned of families) still match.
func TestEveryStateMapsToAValidatorState(t *testing.T) {
	seen := map[validator.State]id003.State{}
	for _, s := range id003.States() {
		v := id003.ValidatorState(s)
		if s == id003.StateInvalidCommand {
			assert.Equal(t, validator.StateUnknown, v, "an answer, never a status")
			continue
		}
		require.NotEqual(t, validator.StateUnknown, v, "%s", s)
		assert.Equal(t, s.Key(), v.Key(), "%s", s)
		assert.Equal(t, s.Fault(), v.Fault(), "%s", s)
		assert.Equal(t, s.PowerUp(), v.PowerUp(), "%s", s)
		if o, dup := seen[v]; dup {
			t.Errorf("%s and %s both map to %s", o, s, v)
		}
		seen[v] = s
	}
	for _, v := range validator.States() {
		_, ok := seen[v]
		assert.True(t, ok, "no ID-003 state maps to %s", v)
	}
	assert.Equal(t, validator.StateUnknown, id003.ValidatorState(id003.StateUnknown))
}

func TestValidatorStatusKeepsTheUnitsBytesAndReasons(t *testing.T) {
	for _, c := range []struct {
		name   string
		status id003.Status
		want   validator.Status
		text   string // its String, as the event log wrote it before
	}{
		{"none", id003.Status{}, validator.Status{}, ""},
		{"escrow", id003.Status{Code: 0x13, Data: []byte{0x63}, State: id003.StateEscrow},
			validator.Status{State: validator.StateEscrow, Code: "13 63"}, "escrow [13 63]"},
		{"idle", id003.Status{Code: 0x11, State: id003.StateIdle},
			validator.Status{State: validator.StateIdle, Code: "11"}, "idle [11]"},
		{"rejecting", id003.Status{Code: 0x17, Data: []byte{0x77}, State: id003.StateRejecting},
			validator.Status{State: validator.StateRejecting, Code: "17 77", Reason: "photo_pattern_error"},
			"rejecting (photo pattern error) [17 77]"},
		{"rejecting, no reason", id003.Status{Code: 0x17, State: id003.StateRejecting},
			validator.Status{State: validator.StateRejecting, Code: "17"}, ""},
		{"rejecting, reason not named", id003.Status{Code: 0x17, Data: []byte{0x7A}, State: id003.StateRejecting},
			validator.Status{State: validator.StateRejecting, Code: "17 7a", Reason: "reject_7a"}, ""},
		{"failure", id003.Status{Code: 0x49, Data: []byte{0xA2}, State: id003.StateFailure},
			validator.Status{State: validator.StateFailure, Code: "49 a2", Reason: "stack_motor_failure"},
			"failure (stack motor failure) [49 a2]"},
		{"failure not named", id003.Status{Code: 0x49, Data: []byte{0xA9}, State: id003.StateFailure},
			validator.Status{State: validator.StateFailure, Code: "49 a9", Reason: "failure_a9"}, ""},
		{"jam", id003.Status{Code: 0x46, State: id003.StateJamInStacker},
			validator.Status{State: validator.StateJamInStacker, Code: "46"}, "jam in stacker [46]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := id003.ValidatorStatus(c.status)
			assert.Equal(t, c.want, got)
			if c.status.Code != 0 {
				assert.Equal(t, c.status.DeviceCode(), got.DeviceCode())
			}
			if c.text != "" {
				assert.Equal(t, c.text, got.String())
				assert.Equal(t, c.status.String(), got.String())
			}
		})
	}
	// The screens' words for the player are keyed by the reason: every named reason keeps its key.
	for _, r := range id003.RejectReasons() {
		st := id003.Status{Code: id003.StatusRejecting, Data: []byte{byte(r)}, State: id003.StateRejecting}
		assert.Equal(t, r.Key(), id003.ValidatorStatus(st).Reason)
	}
}

func TestEveryEventKindMaps(t *testing.T) {
	seen := map[validator.EventKind]bool{}
	for k := id003.EventConnected; k <= id003.EventCalled; k++ {
		e := id003.ValidatorEvent(id003.Event{Kind: k})
		assert.Equal(t, k.String(), e.Kind.String(), "kind %d", int(k))
		assert.False(t, seen[e.Kind], "%s twice", e.Kind)
		seen[e.Kind] = true
	}
	assert.Len(t, seen, int(validator.EventCalled))
	// A kind the Host does not have is not dropped: it reaches staff as an anomaly.
	e := id003.ValidatorEvent(id003.Event{Kind: 99, Detail: "x"})
	assert.Equal(t, validator.EventAnomaly, e.Kind)
	assert.Contains(t, e.Detail, "99")

	at := time.Unix(1700000000, 0)
	n := id003.Note{Code: 0x64, Cents: 2000, IntentID: "7", StackSent: true, Previous: "6"}
	e = id003.ValidatorEvent(id003.Event{Time: at, Kind: id003.EventEscrow, Note: n, Accepted: true, Detail: "d",
		Status: id003.Status{Code: 0x13, Data: []byte{0x64}, State: id003.StateEscrow}})
	assert.Equal(t, validator.Event{Time: at, Kind: validator.EventEscrow, Accepted: true, Detail: "d",
		Note:   validator.Note{Code: 0x64, Cents: 2000, IntentID: "7", StackSent: true, Previous: "6"},
		Status: validator.Status{State: validator.StateEscrow, Code: "13 64"}}, e)
}

func TestPowerUpPlaces(t *testing.T) {
	for _, s := range id003.States() {
		p, ok := id003.PowerUpPlace(s)
		switch s {
		case id003.StatePowerUpBillInAcceptor:
			assert.Equal(t, validator.InAcceptor, p)
		case id003.StatePowerUpBillInStacker:
			assert.Equal(t, validator.InStacker, p)
		default:
			assert.False(t, ok, "%s", s)
		}
	}
}

// placeWallet is a validator.Wallet that records the calls it gets and takes every note.
type placeWallet struct {
	mu      sync.Mutex
	calls   []string
	places  []validator.Place
	credits []validator.Note
	next    int
}

func (w *placeWallet) log(s string) { w.mu.Lock(); w.calls = append(w.calls, s); w.mu.Unlock() }

func (w *placeWallet) Escrow(_ context.Context, n validator.Note) (bool, string, error) {
	w.mu.Lock()
	w.next++
	id := string(rune('0' + w.next))
	w.mu.Unlock()
	w.log("escrow")
	return true, id, nil
}

func (w *placeWallet) Stacking(_ context.Context, n validator.Note) error {
	w.log("stacking " + n.IntentID)
	return nil
}

func (w *placeWallet) PowerUp(_ context.Context, at validator.Place, n validator.Note) error {
	w.mu.Lock()
	w.places = append(w.places, at)
	w.mu.Unlock()
	w.log("power up")
	return nil
}

func (w *placeWallet) Credit(_ context.Context, n validator.Note) error {
	w.mu.Lock()
	w.credits = append(w.credits, n)
	w.mu.Unlock()
	w.log("credit " + n.IntentID)
	return nil
}

// The driver over a recorded conversation: a power cut with a note in the stacker reaches the
// wallet with its place, a note's way the wallet's calls in the money rule's order, and the
// snapshot says the family and the unit's version.
func TestDriverTranslatesForTheWallet(t *testing.T) {
	ops := append([]hwtest.Exchange{status(id003.StatusPowerUpBillInStacker)}, startup()[1:]...)
	ops = append(ops,
		status(id003.StatusEscrow, 0x64),
		ex(fr(id003.CmdStack1), ack),
		status(id003.StatusVendValid, 0x64),
		ex(fr(id003.CmdAck), nil),
		status(id003.StatusStacked),
		status(id003.StatusIdle),
	)
	pb := hwtest.NewPlayback(ops...)
	var dials atomic.Int32
	w := &placeWallet{}
	var mu sync.Mutex
	var events []validator.Event
	d, err := id003.NewDriver(func() (hw.Port, error) {
		if dials.Add(1) == 1 {
			return pb, nil
		}
		return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound}
	}, w, id003.Config{Clock: instantClock{}}, func(e validator.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	require.NoError(t, err)
	var _ validator.Driver = d
	d.SetAccepting(true)
	require.NoError(t, d.Start())
	select {
	case <-pb.Done():
	case <-time.After(waitFor):
		t.Fatal("conversation not finished")
	}
	require.NoError(t, pb.Err())
	snap := d.Snapshot()
	require.NoError(t, d.Close())

	assert.Equal(t, []validator.Place{validator.InStacker}, w.places)
	assert.Equal(t, []string{"power up", "escrow", "stacking 1", "credit 1"}, w.calls)
	require.Len(t, w.credits, 1)
	assert.Equal(t, validator.Note{Code: 0x64, Cents: 2000, IntentID: "1"}, w.credits[0])
	assert.Equal(t, validator.Identity{Family: validator.FamilyID003, Version: "TEST UNIT"}, snap.Identity)
	assert.True(t, snap.Accepting)

	mu.Lock()
	defer mu.Unlock()
	var kinds []validator.EventKind
	for _, e := range events {
		if e.Kind == validator.EventCredited || e.Kind == validator.EventConfigured {
			kinds = append(kinds, e.Kind)
		}
		if e.Kind == validator.EventState {
			assert.NotEmpty(t, e.Status.Code, "%s", e)
		}
	}
	assert.Equal(t, []validator.EventKind{validator.EventConfigured, validator.EventCredited}, kinds)
}

// The boot self-test's probe: the status and the version, nothing else sent.
func TestProbe(t *testing.T) {
	pb := hwtest.NewPlayback(
		status(id003.StatusJamInStacker),
		ex(fr(id003.CmdGetVersion), fr(id003.CmdGetVersion, []byte(" iVIZION-100 V1.2 ")...)),
	)
	id, st, err := id003.Probe(context.Background(), pb, id003.Config{})
	require.NoError(t, err)
	require.NoError(t, pb.Err())
	assert.Equal(t, validator.Identity{Family: validator.FamilyID003, Version: "iVIZION-100 V1.2"}, id)
	assert.Equal(t, validator.Status{State: validator.StateJamInStacker, Code: "46"}, st)

	// A unit that refuses GET VERSION still passes, with no version.
	pb = hwtest.NewPlayback(status(id003.StatusIdle), ex(fr(id003.CmdGetVersion), fr(id003.RespInvalidCommand)))
	id, st, err = id003.Probe(context.Background(), pb, id003.Config{})
	require.NoError(t, err)
	assert.Equal(t, "", id.Version)
	assert.Equal(t, validator.StateIdle, st.State)

	// Garbage: a protocol error, the status is not guessed.
	pb = hwtest.NewPlayback(ex(fr(id003.CmdStatusRequest), []byte{0xFC, 0x05, 0x11, 0x00, 0x00}))
	_, _, err = id003.Probe(context.Background(), pb, id003.Config{ReplyTimeout: 20 * time.Millisecond})
	require.Error(t, err)
	assert.ErrorIs(t, err, hw.ErrProtocol)
}
