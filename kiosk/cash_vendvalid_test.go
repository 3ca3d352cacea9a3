package kiosk

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/store"
)

// After a restart the unit repeats VEND VALID with no data byte (the parser
// takes 0 or 1): the host hands over a recovered note with code 0 and 0
// cents. It is the open intent's note, credited at its recorded value, and
// Credit returns nil so the host acknowledges: a unit at VEND VALID takes no
// reset, so a refusal would leave it stuck there. (The end to end case, over
// the pty and with SIGKILL, is in cash_crash_test.go.)
func TestRecoveredVendValidWithoutCodeCreditsTheOpenIntent(t *testing.T) {
	f, _, _ := newCashFixture(t, func(c *Config) { c.Cash = CashConfig{} })
	f.boot()
	w := wallet{f.m}
	in, err := f.st.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = f.st.MarkBillIntentStacking(ctx, in.ID)
	require.NoError(t, err)

	require.NoError(t, w.Credit(ctx, validator.Note{Recovered: true}))
	assert.Equal(t, 20*game.Euro, f.m.Snapshot().Credit)
	got, err := f.st.BillIntent(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, store.IntentCredited, got.State)
	require.NoError(t, w.Credit(ctx, validator.Note{Recovered: true}), "repeated: acknowledged, nothing more")
	assert.Equal(t, 20*game.Euro, f.m.Snapshot().Credit)

	err = w.Credit(ctx, validator.Note{Code: 0x63, Cents: 1000, Recovered: true})
	require.NoError(t, err, "the latest intent is credited: a repeat")
	assert.Equal(t, 20*game.Euro, f.m.Snapshot().Credit)
	f.m.Close()
	require.NoError(t, f.st.Verify(ctx))
	es, err := f.st.Events(ctx, 100, 0)
	require.NoError(t, err)
	var codes []string
	for _, e := range es {
		codes = append(codes, e.Code)
	}
	assert.Contains(t, strings.Join(codes, " "), "vend_valid_no_code")
}

// The credit of a note and the end of its path show together: a snapshot
// taken once the credit is committed, before the unit is acknowledged,
// has the new credit and no note on its way, so a cash-out or a stake
// asked the moment the credit shows is not refused as busy.
func TestCreditShowsWithTheNoteSettled(t *testing.T) {
	f, d, _ := newCashFixture(t, nil)
	at := make(chan Snapshot, 1)
	f.m.cash.hook = func(p string) {
		if p == pointCredited {
			at <- f.m.Snapshot()
		}
	}
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 1000)
	var s Snapshot
	select {
	case s = <-at:
	case <-time.After(15 * time.Second):
		t.Fatal("no credit within 15 s")
	}
	assert.Equal(t, 10*game.Euro, s.Credit)
	assert.False(t, s.Cash.NoteInPath, "the credit shows with the note still on its way")
}
