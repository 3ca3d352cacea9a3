package escpos

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/hwtest"
)

// The driver's conversation with a printer, byte for byte, against a
// recorded one: each exchange must happen, in order, and none may be left
// over (hwtest.Playback fails on both).

// statusExchanges are the four DLE EOT requests answered with st.
func statusExchanges(st [4]byte) []hwtest.Exchange {
	var ex []hwtest.Exchange
	for i := range st {
		ex = append(ex, hwtest.Exchange{Write: cmdStatus[i], Read: []byte{st[i]}})
	}
	return ex
}

func playbackPrinter(t *testing.T, ops ...hwtest.Exchange) (*Printer, *hwtest.Playback) {
	t.Helper()
	pb := hwtest.NewPlayback(ops...)
	p := New(func() (hw.Port, error) { return pb, nil }, Config{StatusTimeout: 200 * time.Millisecond, PrintTimeout: 2 * time.Second})
	t.Cleanup(func() { p.Close() })
	return p, pb
}

func TestPlaybackStatus(t *testing.T) {
	p, pb := playbackPrinter(t, statusExchanges([4]byte{0x12, 0x12, 0x12, 0x12})...)
	st, err := p.Status(context.Background())
	require.NoError(t, err)
	assert.NoError(t, st.Err())
	require.NoError(t, pb.Err())
}

// A voucher is printed as: status before, the document and GS r in one
// write answered by the GS r byte, status after.
func TestPlaybackPrint(t *testing.T) {
	doc := NewDoc().Init().Line("BON DE PAIEMENT").Barcode128("000000001620010001").Cut()
	data, err := doc.Bytes()
	require.NoError(t, err)
	ok := [4]byte{0x12, 0x12, 0x12, 0x12}
	ops := statusExchanges(ok)
	ops = append(ops, hwtest.Exchange{Write: append(append([]byte{}, data...), cmdSync...), Read: []byte{0x00}})
	ops = append(ops, statusExchanges(ok)...)
	p, pb := playbackPrinter(t, ops...)
	_, err = p.Print(context.Background(), doc)
	require.NoError(t, err)
	require.NoError(t, pb.Err(), "the conversation happened exactly as recorded")
}

// A printer out of paper before the print gets no document: the
// conversation stops after the status, and the error says why.
func TestPlaybackPaperOutSendsNothing(t *testing.T) {
	p, pb := playbackPrinter(t, statusExchanges([4]byte{0x12, 0x12, 0x12, 0x72})...)
	_, err := p.Print(context.Background(), NewDoc().Init().Line("x").Cut())
	require.ErrorIs(t, err, ErrPaperOut)
	var pe *PrintError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, StageBefore, pe.Stage)
	require.NoError(t, pb.Err())
	assert.Zero(t, pb.Extra(), "nothing written after the status")
}
