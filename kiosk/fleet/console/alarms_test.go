package console

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/store"
)

// Each kind of alarm from what the fold finds: a hole in a kiosk's
// records, a voucher it paid twice, a kiosk rolled back, its paper out;
// each raised once however often the fold is read again.
func TestAlarmKinds(t *testing.T) {
	c := fleettest.Start(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	a, err := OpenAlarms(ctx, c.JS(t), func() time.Time { return now }, nil)
	require.NoError(t, err)
	l := NewLive(nil, nil)
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	var last int64
	// add writes an event in the kiosk's store and folds its records, the
	// record numbered skip left out (a hole).
	add := func(e store.Event, skip int64) {
		_, err := st.Log(ctx, e)
		require.NoError(t, err)
		rs, err := st.Outbox(ctx, last, 100)
		require.NoError(t, err)
		for _, r := range rs {
			last = r.Seq
			if r.Seq != skip {
				l.Add(fleet.Record{Kiosk: "borne-5", OutboxRecord: r, Stored: now})
			}
		}
		a.Check(ctx, l, "borne-5")
	}
	kinds := func() map[AlarmKind]int {
		out := map[AlarmKind]int{}
		for _, al := range a.List() {
			require.Equal(t, "borne-5", al.Kiosk)
			out[al.Kind]++
		}
		return out
	}
	add(store.Event{Level: store.LevelError, Source: "printer", Code: "paper_out", Detail: "no paper"}, 0)
	assert.Equal(t, map[AlarmKind]int{AlarmPaper: 1}, kinds())
	add(store.Event{Level: store.LevelInfo, Source: "kiosk", Code: "x"}, last+1) // this event's record never comes
	add(store.Event{Level: store.LevelCritical, Source: "fleet", Code: fleet.EventVoucherPaidTwice,
		Detail: "voucher 3 paid at the centre and here"}, 0)
	got := kinds()
	assert.Equal(t, 2, got[AlarmRecords], "a hole in the records: its sequence, its event chain")
	assert.Equal(t, 1, got[AlarmPaidTwice])
	assert.Equal(t, 1, got[AlarmOutOfService], "a critical event")
	l.Read(func(f *fleet.Fleet, _ map[string]*kioskExtra) {
		k := f.Kiosks["borne-5"]
		k.Problems = append(k.Problems, "rolled back: anchor record 9 carries counter 3, anchor record 5 carried 4")
	})
	a.Check(ctx, l, "borne-5")
	a.Check(ctx, l, "borne-5")
	assert.Equal(t, map[AlarmKind]int{AlarmPaper: 1, AlarmRecords: 2, AlarmPaidTwice: 1, AlarmOutOfService: 1, AlarmRolledBack: 1}, kinds(),
		"each once")
	add(store.Event{Level: store.LevelInfo, Source: "kiosk", Code: "paper_refilled"}, 0)
	add(store.Event{Level: store.LevelError, Source: "printer", Code: "paper_out", Detail: "no paper again"}, 0)
	assert.Equal(t, 2, kinds()[AlarmPaper], "out again: a new alarm")

	// Read again by a new console: nothing raised twice.
	again, err := OpenAlarms(ctx, c.JS(t), func() time.Time { return now }, nil)
	require.NoError(t, err)
	assert.Len(t, again.List(), 7)
}
