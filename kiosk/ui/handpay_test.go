package ui

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// withHandPay sets the kiosk's hand-pay limit (0: the default, 1 500 €).
func withHandPay(limit game.Money) fixtureOption {
	return func(_ *scrFixture, c *kiosk.Config) { c.Cash.HandPayLimit = limit }
}

// A win above the hand-pay limit shows its congratulations, then the lock's
// screen: call the staff, with the amount, in both languages; Rejouer is
// shown unavailable on the window, with why, and refused there. Once staff recorded the payment the kiosk is home again.
func TestScreensHandPayAfterAWin(t *testing.T) {
	f := newScrFixture(t, withHandPay(0))
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	f.flush()
	require.Equal(t, ovWin, f.s.overlay, "the congratulations first (Art. 4.8)")
	hp := f.m.Snapshot().HandPay
	require.True(t, hp.Pending())
	assert.Equal(t, 10*game.Euro-game.Euro+7500*game.Euro, hp.Amount)
	// The window does not say the win went to a credit the player cannot
	// play: the staff pay it, with the rest of the credit.
	assert.NotContains(t, f.screenText(), "ajouté à votre crédit")
	assert.Contains(t, f.screenText(), "Votre gain et votre crédit vous sont payés par le personnel.")
	// Rejouer stays in its place, unavailable, with why: the credit covers
	// the stake, but the kiosk is locked until the staff pay.
	again := f.button("Rejouer " + fr(game.Stake100.Money()))
	require.NotNil(t, again, "Rejouer stays, unavailable")
	assert.True(t, again.Disabled(), "the kiosk is locked for the hand-pay")
	assert.Equal(t, "paiement par le personnel", again.Caption)
	f.golden("handpay-win-again-off.png")
	f.runUI(func() { f.s.SetLang(English) })
	again = f.button("Play again " + en(game.Stake100.Money()))
	require.NotNil(t, again)
	assert.True(t, again.Disabled())
	assert.Equal(t, "staff to pay you", again.Caption)
	f.runUI(func() { f.s.SetLang(French) })

	f.m.EndResult() // the result's time-out, or the player's touch
	f.flush()
	require.Equal(t, scrHandPay, f.s.screen)
	text := f.screenText()
	assert.Contains(t, text, "Appelez le personnel")
	assert.Contains(t, text, "Please call the staff")
	assert.Contains(t, text, "Montant à vous remettre\u00a0: 7\u00a0509\u00a0€")
	assert.Nil(t, f.button("Jouer"), "nothing to play here")
	f.golden("handpay-lock-win.png")

	_, e, err := f.m.PayHandPay(context.Background(), "staff")
	require.NoError(t, err)
	assert.Equal(t, -hp.Amount, e.Amount)
	f.flush()
	assert.Equal(t, scrHome, f.s.screen, "unlocked: home again")
}

// A cash-out above the limit prints no voucher: the lock's screen says the
// staff pay it.
func TestScreensHandPayOnCashOut(t *testing.T) {
	f := newScrFixture(t, withHandPay(5*game.Euro))
	f.credit(12 * game.Euro)
	v, err := f.m.CashOut(context.Background())
	require.ErrorIs(t, err, kiosk.ErrHandPay)
	f.runUI(func() { f.s.cashOutDone(v, err) })
	f.flush()
	require.Equal(t, scrHandPay, f.s.screen)
	assert.Contains(t, f.screenText(), "Ce montant vous est payé en main propre par le personnel.")
	assert.Contains(t, f.screenText(), "Montant à vous remettre\u00a0: 12\u00a0€")
	f.golden("handpay-lock-cashout.png")
}
