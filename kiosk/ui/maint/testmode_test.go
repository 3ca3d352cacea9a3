package maint

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// Test mode from the screen: a note inserted is listed, given back, and
// no meter moves; it does not start with a credit.
func TestTestModeView(t *testing.T) {
	f := newRptFix(t)
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, 15*time.Second, 5*time.Millisecond)
	before, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	f.show("testmode", f.tech)
	assert.Contains(t, f.text(), "Mode test arrêté")
	f.tap("Démarrer le mode test")
	assert.Contains(t, f.text(), "Mode test en marche")
	assert.Contains(t, f.text(), "Aucun billet inséré depuis le démarrage du mode test.")
	require.Eventually(t, func() bool { return f.dev.InsertNote(20*game.Euro) == nil }, 15*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { _, n, _ := f.o.TestMode(context.Background(), f.tech); return len(n) == 1 }, 15*time.Second, 5*time.Millisecond)
	f.tap("Actualiser")
	assert.Contains(t, f.text(), "30/11/2026 11:00:00\u00a0: billet de 20\u00a0€ reconnu, rendu")
	f.golden("maint-testmode.png")
	after, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, before, after, "no meter moved")
	assert.Zero(t, f.m.Snapshot().Credit)
	f.tap("Arrêter le mode test")
	assert.Contains(t, f.text(), "Mode test arrêté")

	f.billIn(5 * game.Euro)
	require.Eventually(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, 15*time.Second, 5*time.Millisecond)
	f.tap("Démarrer le mode test")
	assert.Contains(t, f.text(), "Le mode test ne démarre que sans crédit ni partie en cours.")
	assert.Contains(t, f.text(), "Mode test arrêté")
}
