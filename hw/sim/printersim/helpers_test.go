package printersim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/hw/escpos"
)

// Fields of the sample voucher, as the kiosk will print them.
const (
	sampleNumber = "042917365018274639"
	sampleAmount = "3\u00a0750,50\u00a0€"
	sampleWords  = "trois mille sept cent cinquante euros et cinquante centimes"
)

// sampleVoucher is a voucher-like document: accented French, the euro sign, amounts in figures and
// words, sizes, emphasis, a Code 128 and a QR code of the validation number, a cut.
func sampleVoucher() *escpos.Doc {
	return escpos.NewDoc().Init().
		Align(escpos.Center).Bold(true).Size(2, 2).Line("PHARAON").Size(1, 1).Bold(false).
		Line("Café de la Gare – Lyon 3ᵉ").
		Line("Borne n° 0007").
		Feed(1).
		Bold(true).Line("BON DE PAIEMENT").Bold(false).
		Align(escpos.Left).
		Line("Date : 14/03/2026   Heure : 18:42").
		Line("Séquence : 000123").
		Text("Montant : ").Bold(true).Size(2, 2).Line(sampleAmount).Size(1, 1).Bold(false).
		Line(sampleWords).
		Align(escpos.Center).
		Barcode128(sampleNumber).
		QR(sampleNumber).
		Line("Validation : " + sampleNumber).
		Line("Valable jusqu'au 12/06/2026").
		Underline(true).Line("À présenter à un centre de paiement").Underline(false).
		Feed(2).Cut()
}

func sampleBytes(t testing.TB) []byte {
	t.Helper()
	b, err := sampleVoucher().Bytes()
	require.NoError(t, err)
	return b
}

// answers collects what the printer sends back.
type answers struct{ got []byte }

func (a *answers) reply(b []byte) { a.got = append(a.got, b...) }

func (a *answers) take() []byte {
	b := a.got
	a.got = nil
	return b
}

func newInterp(cfg Config) (*Interpreter, *answers) {
	a := &answers{}
	return NewInterpreter(cfg, a.reply), a
}
