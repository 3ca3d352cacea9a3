package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/kiosk/devsim"
)

// While no voucher can be printed the kiosk takes no note: the validator
// is inhibited and the snapshot says why before a note goes in; notes are
// taken again as soon as the printer is back.
func TestNoNotesWhileNoVoucherCanBePrinted(t *testing.T) {
	f, d, _ := newCashFixture(t, nil)
	f.boot()
	cashReady(t, f.m)
	assert.Equal(t, Message{}, f.m.Snapshot().Cash.CashInOff)

	require.NoError(t, d.Cause(devsim.PrinterPaperOut))
	why := Message{Code: MsgCashInPrinterDown}
	// (A validator reconnecting under load would say its own reason first.)
	waitFor(t, func() bool { c := f.m.Snapshot().Cash; return !c.Printer.OK && c.Validator.OK && c.CashInOff == why },
		"paper out seen: %+v", f.m.Snapshot().Cash.CashInOff)
	c := f.m.Snapshot().Cash
	assert.Zero(t, f.m.Snapshot().Credit)
	assert.False(t, c.CanCashIn, "no note while no voucher can be printed")
	assert.Equal(t, Message{Code: MsgPaperOut}, c.Printer.Message, "the screens say why with the printer's own message")
	waitFor(t, func() bool { return !f.m.cash.validator.Snapshot().Accepting }, "validator inhibited")
	waitFor(t, func() bool { return d.Validator.State() == id003.StateDisabled }, "unit disabled")
	require.ErrorIs(t, d.Validator.InsertNote(1000), id003sim.ErrDisabled)

	require.NoError(t, d.Repair())
	cashReady(t, f.m)
	assert.True(t, f.m.Snapshot().Cash.CanCashIn)
	assert.Equal(t, Message{}, f.m.Snapshot().Cash.CashInOff)
	insert(t, d, 1000)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 10*game.Euro }, "credited once the printer is back")
}
