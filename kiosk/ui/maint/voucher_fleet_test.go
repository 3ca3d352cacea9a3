package maint

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// fakeRegistry is the fleet's voucher registry as the counter sees it:
// vouchers paid elsewhere, other kiosks' vouchers, or a centre away.
type fakeRegistry struct {
	mu      sync.Mutex
	paid    map[string]kiosk.FleetVoucher
	foreign map[string]kiosk.FleetVoucher
	offline bool
}

func (r *fakeRegistry) Claim(_ context.Context, c kiosk.VoucherClaim) (func(context.Context) error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.offline {
		return nil, kiosk.ErrFleetOffline
	}
	if fv, ok := r.paid[c.Validation]; ok {
		return nil, &kiosk.FleetRefusal{Voucher: fv, Err: kiosk.ErrPaidElsewhere}
	}
	return func(context.Context) error { return nil }, nil
}

func (r *fakeRegistry) Lookup(_ context.Context, validation string) (kiosk.FleetVoucher, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.offline {
		return kiosk.FleetVoucher{}, kiosk.ErrFleetOffline
	}
	if fv, ok := r.foreign[validation]; ok {
		return fv, nil
	}
	return kiosk.FleetVoucher{}, store.ErrNotFound
}

// Joined to a fleet, the counter refuses with the reason a voucher the
// centre paid (where and when), another kiosk's voucher (whose, and where
// it is paid), and, while the centre does not answer, a voucher above the
// offline limit; none of them is paid here. Once the centre answers, the
// voucher is paid.
func TestVoucherRefusedByTheFleet(t *testing.T) {
	f := newShFix(t, true)
	number := f.fixedVoucher(20*game.Euro, "fleet paid")
	now := f.clock.Now()
	reg := &fakeRegistry{
		paid: map[string]kiosk.FleetVoucher{number: {Kiosk: "PH-0042", ID: 1, Amount: 20 * game.Euro, State: "paid",
			PaidBy: "guichet-7", PaidAt: now.Add(-time.Hour), Expires: now.Add(72 * time.Hour)}},
		foreign: map[string]kiosk.FleetVoucher{},
	}
	other, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	reg.foreign[other] = kiosk.FleetVoucher{Kiosk: "PH-0007", ID: 3, Amount: 50 * game.Euro, State: "printed", Expires: now.Add(72 * time.Hour)}
	f.m.SetVoucherRegistry(reg, 10*game.Euro)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un bon")

	f.scan(number)
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 de 20\u00a0€\u00a0: déjà payé le "+
		now.Add(-time.Hour).In(f.m.Location()).Format("02/01/2006 15:04:05")+
		" par le centre (guichet «\u00a0guichet-7\u00a0»). Ne le payez pas une seconde fois.")
	assert.NotContains(t, f.text(), "Remettez")
	assert.Equal(t, kiosk.FormatValidation(number), f.field().Text, "a number paid elsewhere stays in sight")
	f.golden("maint-voucher-fleet-paid.png")

	f.scan(other)
	assert.Contains(t, f.text(), "Bon n°\u00a0000003 de la borne PH-0007, 50\u00a0€\u00a0: valable et non payé, mais cette borne ne paie que ses propres bons. Il se paie à la borne PH-0007 ou au centre.")
	assert.Empty(t, f.field().Text, "the number of a voucher payable elsewhere is not left in sight")

	reg.mu.Lock()
	reg.offline = true
	reg.mu.Unlock()
	f.scan(number)
	assert.Contains(t, f.text(), "Le centre de la flotte ne répond pas\u00a0: sans lui, cette borne ne paie ses bons que jusqu’à 10\u00a0€. Le bon n°\u00a0000001 de 20\u00a0€ attendra son retour.")
	assert.Empty(t, f.field().Text, "nor that of a voucher payable once the centre answers")
	v, err := f.st.VoucherByValidation(context.Background(), number)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, v.State, "refused: nothing paid")
	m, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Zero(t, m.Get(store.MeterVouchersPaidCount))

	reg.mu.Lock()
	reg.offline = false
	delete(reg.paid, number)
	reg.mu.Unlock()
	f.scan(number)
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 payé.")
	assert.Contains(t, f.text(), "Remettez 20\u00a0€ au joueur")
}
