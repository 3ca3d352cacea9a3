package id003_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/hwtest"
	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
)

// instantClock makes every poll interval and back-off pass at once.
type instantClock struct{}

func (instantClock) Now() time.Time { return time.Unix(0, 0) }
func (instantClock) Sleep(ctx context.Context, _ time.Duration) error {
	return ctx.Err()
}

var (
	fr  = id003test.Frame
	ack = fr(id003.RespAck)
)

// ex builds an exchange: the host's frame and the unit's answer (nil: none).
func ex(write, read []byte) hwtest.Exchange { return hwtest.Exchange{Write: write, Read: read} }

func echo(cmd byte, data ...byte) hwtest.Exchange { return ex(fr(cmd, data...), fr(cmd, data...)) }

func status(code byte, data ...byte) hwtest.Exchange {
	return ex(fr(id003.CmdStatusRequest), fr(code, data...))
}

// startup is the conversation from POWER UP to an idle unit taking 5-50 €.
func startup() []hwtest.Exchange {
	cur := id003.EncodeCurrencyAssignment(id003.EURTable.Entries(id003.CountryEUR))
	return []hwtest.Exchange{
		status(id003.StatusPowerUp),
		ex(fr(id003.CmdReset), ack),
		ex(fr(id003.CmdGetVersion), fr(id003.CmdGetVersion, []byte("TEST UNIT")...)),
		ex(fr(id003.CmdGetCurrency), fr(id003.CmdGetCurrency, cur...)),
		echo(id003.CmdSetEnable, 0xE1, 0xFF),
		echo(id003.CmdSetSecurity, 0x00, 0x00),
		echo(id003.CmdSetCommMode, 0x00),
		echo(id003.CmdSetDirection, 0x00),
		echo(id003.CmdSetOptionalFun, 0x00, 0x00),
		echo(id003.CmdSetInhibit, 0x00),
		status(id003.StatusInitialize),
		status(id003.StatusIdle),
	}
}

// play runs a host against the conversation until it is over, and returns what the kiosk saw.
func play(t *testing.T, w id003.Wallet, ops ...hwtest.Exchange) (*hwtest.Playback, *recorder) {
	t.Helper()
	pb := hwtest.NewPlayback(ops...)
	var dials atomic.Int32
	rec := &recorder{}
	cfg := id003.Config{Clock: instantClock{}, OnEvent: rec.on}
	h, err := id003.New(func() (hw.Port, error) {
		if dials.Add(1) == 1 {
			return pb, nil
		}
		return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound}
	}, w, cfg)
	require.NoError(t, err)
	h.SetAccepting(true)
	require.NoError(t, h.Start())
	select {
	case <-pb.Done():
	case <-time.After(waitFor):
		t.Fatal("conversation not finished")
	}
	if err := pb.Err(); err != nil {
		h.Close()
		require.NoError(t, err, "the host said something else than the unit expected")
	}
	eventually(t, func() bool { return pb.Extra() > 0 }, "host stopped talking")
	require.NoError(t, h.Close())
	return pb, rec
}

func TestPlaybackStartupAndOneNote(t *testing.T) {
	w := &id003test.MemoryWallet{}
	ops := append(startup(),
		status(id003.StatusAccepting),
		status(id003.StatusEscrow, 0x64),
		ex(fr(id003.CmdStack1), ack),
		status(id003.StatusStacking),
		status(id003.StatusVendValid, 0x64),
		ex(fr(id003.CmdAck), nil), // the unit answers nothing to ACK
		status(id003.StatusStacked),
		status(id003.StatusIdle),
	)
	_, rec := play(t, w, ops...)
	bal, intents, credits := w.Snapshot()
	assert.Equal(t, int64(2000), bal)
	require.Len(t, credits, 1)
	assert.Equal(t, intents[0].ID, credits[0].IntentID)
	assert.True(t, rec.has(id003.EventCredited))
}

func TestPlaybackCreditBeforeAck(t *testing.T) {
	// The kiosk fails its commit twice: the host must not ACK, and asks again at each VEND VALID.
	w := &id003test.MemoryWallet{}
	w.FailNext(2)
	ops := append(startup(),
		status(id003.StatusEscrow, 0x63),
		ex(fr(id003.CmdStack1), ack),
		status(id003.StatusVendValid, 0x63), // Credit fails: no ACK, next is a status request
		status(id003.StatusVendValid, 0x63), // fails again
		status(id003.StatusVendValid, 0x63), // commits
		ex(fr(id003.CmdAck), nil),
		status(id003.StatusVendValid, 0x63), // the ACK was lost on the line
		ex(fr(id003.CmdAck), nil),           // ACK again, nothing credited
		status(id003.StatusStacked),
	)
	_, rec := play(t, w, ops...)
	_, _, credits := w.Snapshot()
	assert.Len(t, credits, 1)
	assert.Equal(t, 3, w.CreditCalls)
	assert.Equal(t, 2, rec.count(id003.EventCreditFailed))
	assert.Equal(t, 1, rec.count(id003.EventAckRepeated))
}

func TestPlaybackReturnsNotesItDoesNotTake(t *testing.T) {
	w := &id003test.MemoryWallet{}
	ops := append(startup(),
		status(id003.StatusEscrow, 0x66), // 100 €: not taken, the kiosk is not even asked
		ex(fr(id003.CmdReturn), ack),
		status(id003.StatusReturning),
		status(id003.StatusEscrow, 0x6F, 0x31, 0x32), // a barcode ticket: not a note
		ex(fr(id003.CmdReturn), ack),
		status(id003.StatusReturning),
		status(id003.StatusIdle),
	)
	_, rec := play(t, w, ops...)
	assert.Zero(t, w.EscrowCalls)
	assert.Equal(t, 2, rec.count(id003.EventEscrow))
}

func TestPlaybackVendValidWithoutDenominationByte(t *testing.T) {
	// Some firmware sends VEND VALID alone: the host credits the note it stacked.
	w := &id003test.MemoryWallet{}
	ops := append(startup(),
		status(id003.StatusEscrow, 0x65),
		ex(fr(id003.CmdStack1), ack),
		status(id003.StatusVendValid),
		ex(fr(id003.CmdAck), nil),
		status(id003.StatusStacked),
	)
	play(t, w, ops...)
	_, _, credits := w.Snapshot()
	require.Len(t, credits, 1)
	assert.Equal(t, int64(5000), credits[0].Cents)
	assert.Equal(t, byte(0x65), credits[0].Code)
}

func TestPlaybackUnitWithoutCurrencyAssignment(t *testing.T) {
	// An older unit refuses 0x8A: the host goes on with its table, and says so.
	w := &id003test.MemoryWallet{}
	ops := startup()
	ops[3] = ex(fr(id003.CmdGetCurrency), fr(id003.RespInvalidCommand))
	_, rec := play(t, w, ops...)
	assert.True(t, rec.has(id003.EventAnomaly))
	assert.False(t, rec.has(id003.EventConfigError))
}

func TestPlaybackRetriesAfterCommunicationError(t *testing.T) {
	w := &id003test.MemoryWallet{}
	ops := append(startup(),
		ex(fr(id003.CmdStatusRequest), fr(id003.StatusCommunicationError)),
		status(id003.StatusIdle),
	)
	_, rec := play(t, w, ops...)
	assert.Equal(t, 1, rec.count(id003.EventLineError))
}

func TestPlaybackStartsOnAUnitAlreadyRunning(t *testing.T) {
	// After a kiosk restart the unit is idle: no reset, but every setting again.
	w := &id003test.MemoryWallet{}
	ops := startup()
	ops = append([]hwtest.Exchange{status(id003.StatusIdle)}, ops[2:10]...)
	ops = append(ops, status(id003.StatusIdle))
	play(t, w, ops...)
}
