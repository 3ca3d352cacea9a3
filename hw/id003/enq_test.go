package id003_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
	"pharaon/hw/sim/id003sim"
)

// A unit's ENQ can come between the host's question and its answer (the unit's own clock moved it
// on meanwhile), in either form: the host skips it, takes the answer that follows, and logs each
// form once. Before, the framed ENQ was read as the answer: a status 05 that is none, and a retry.
func TestPlaybackSkipsENQInBothFormsBeforeAnAnswer(t *testing.T) {
	w := &id003test.MemoryWallet{}
	enq := fr(id003.ENQ)
	ops := append(startup(),
		ex(fr(id003.CmdStatusRequest), append(enq, fr(id003.StatusEscrow, 0x63)...)),
		ex(fr(id003.CmdStack1), append([]byte{id003.ENQ}, ack...)),
		ex(fr(id003.CmdStatusRequest), append(append(enq, id003.ENQ), fr(id003.StatusVendValid, 0x63)...)),
		ex(fr(id003.CmdAck), nil),
		status(id003.StatusStacked),
	)
	_, rec := play(t, w, ops...)
	_, _, credits := w.Snapshot()
	require.Len(t, credits, 1)
	assert.Equal(t, int64(1000), credits[0].Cents)
	assert.Zero(t, rec.count(id003.EventLineError), "an ENQ is no line error")
	var forms []string
	for _, e := range rec.all() {
		if e.Kind == id003.EventCalled {
			forms = append(forms, e.Detail)
		}
	}
	require.Len(t, forms, 2, "each form logged once")
	assert.Contains(t, forms[0], id003.ENQFramed.String())
	assert.Contains(t, forms[1], id003.ENQByte.String())
}

// Our host in either interrupt mode, against a unit that calls in either form: a note is taken and
// credited once, the host polls when called (and rarely else), and its log says which form it saw.
func TestHostInterruptModesTakeEitherENQForm(t *testing.T) {
	for _, form := range []id003.ENQForm{id003.ENQFramed, id003.ENQByte} {
		for _, mode := range []byte{id003.CommInterrupt1, id003.CommInterrupt2} {
			t.Run(fmt.Sprintf("%s mode %d", strings.Fields(form.String())[0], mode), func(t *testing.T) {
				r := newRig(t, id003sim.Config{ENQ: form, MoveOnUnseen: true}, func(c *id003.Config) {
					c.CommMode = mode
					c.InterruptPoll = 2 * time.Second
				})
				r.insert(1000)
				r.settled(1)
				r.waitState(id003.StateIdle)
				assert.Equal(t, int64(1000), r.credits()[0].Cents)
				assert.Equal(t, 1, r.sim.Counts().Acked)
				called := ""
				for _, e := range r.rec.all() {
					if e.Kind == id003.EventCalled {
						called += e.Detail + "\n"
					}
				}
				assert.Contains(t, called, form.String())
				assert.Zero(t, r.rec.count(id003.EventLineError))
				// Called, not polling on a 3 ms timer: a note's whole way takes a handful of
				// status requests, not hundreds.
				assert.Less(t, r.sim.Commands()[id003.CmdStatusRequest], 60)
			})
		}
	}
}

func TestHostRefusesACommModeTheProtocolLacks(t *testing.T) {
	_, err := id003.New(nil, &id003test.MemoryWallet{}, id003.Config{CommMode: 3})
	require.Error(t, err)
	_, err = id003.New(func() (hw.Port, error) { return nil, nil }, &id003test.MemoryWallet{}, id003.Config{CommMode: 3})
	assert.ErrorContains(t, err, "comm mode")
}
