package kiosk

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/devsim"
	"pharaon/store"
)

// newCashOffice is a booted machine with both simulated devices ready and
// its back office (staff 1357, technician 24680).
func newCashOffice(t *testing.T) (*fixture, *devsim.Devices, *Office) {
	t.Helper()
	f, d, _ := newCashFixture(t, nil)
	f.boot()
	cashReady(t, f.m)
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	require.NoError(t, a.SetPIN(ctx, "", RoleTechnician, "24680"))
	require.NoError(t, a.SetPIN(ctx, RoleTechnician, RoleStaff, "1357"))
	return f, d, NewOffice(f.m, a, time.Hour)
}

// insertAll puts notes in, one after the other, each credited before the next.
func insertAll(t *testing.T, f *fixture, d *devsim.Devices, notes ...game.Money) {
	t.Helper()
	for _, n := range notes {
		want := f.m.Snapshot().Credit + n
		insert(t, d, int64(n))
		waitFor(t, func() bool { return f.m.Snapshot().Credit == want }, "note of %s credited", n)
	}
}

// keepSample writes a printed report under docs/reports when
// PHARAON_UPDATE_GOLDEN is set, and otherwise checks it is the same.
func keepSample(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("..", "docs", "reports", name)
	if os.Getenv("PHARAON_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s missing: run with PHARAON_UPDATE_GOLDEN=1", path)
	}
	require.NoError(t, err)
	assert.Equal(t, string(want), text)
}

// noteLine finds the count and amount a report prints for a denomination.
func noteLine(t *testing.T, plain string, denom game.Money) (string, string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(denom.French()) + `\s+(\d+)\s+(\S.*€)$`)
	m := re.FindStringSubmatch(plain)
	require.NotNil(t, m, "no line for %s in\n%s", denom, plain)
	return m[1], m[2]
}

// The collection report, read back from the printer: the notes by
// denomination since the last collection, their total equal to the note
// meters' growth, who and when, and the meters. A second collection
// counts only the notes since the first.
func TestCollectionReportPrinted(t *testing.T) {
	f, d, o := newCashOffice(t)
	insertAll(t, f, d, 5*game.Euro, 20*game.Euro, 20*game.Euro, 10*game.Euro)
	f.clock.Advance(90 * time.Minute)
	staff, err := o.Login(ctx, "1357")
	require.NoError(t, err)

	before, err := f.st.Meters(ctx)
	require.NoError(t, err)
	c, err := o.Collect(ctx, staff)
	require.NoError(t, err)
	require.NoError(t, o.PrintCollection(ctx, staff, c))
	r, err := d.Printer.WaitReceipt(ctx, 1)
	require.NoError(t, err)
	require.True(t, r.Complete)
	plain := r.Plain()
	for _, denom := range []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro} {
		n, amount := noteLine(t, plain, denom)
		meter := before.Get(store.NoteMeter(denom))
		assert.Equal(t, strconv.FormatInt(meter, 10), n, "%s: the count is the note meter", denom)
		assert.Equal(t, (denom * game.Money(meter)).French(), amount)
	}
	total := regexp.MustCompile(`(?m)^Total\s+(\d+)\s+(\S.*€)$`).FindStringSubmatch(plain)
	require.NotNil(t, total, plain)
	assert.Equal(t, strconv.FormatInt(before.Get(store.MeterBillsInCount), 10), total[1], "the count of notes is the meter's")
	assert.Equal(t, game.Money(before.Get(store.MeterBillsIn)).French(), total[2], "the total is the notes meter")
	assert.Equal(t, 55*game.Euro, c.Amount)
	assert.Equal(t, game.Money(before.Get(store.MeterBillsIn)), c.Amount, "the expected amount is the notes meter")
	assert.Contains(t, plain, "Montant attendu\n55\u00a0€\n")
	assert.Contains(t, plain, "Par : personnel")
	assert.Contains(t, plain, "Relevé le 30/11/2026 à 12:30:00", "local time (Paris, UTC+1)")
	assert.Contains(t, plain, "Depuis : la mise en service")
	assert.Contains(t, plain, "Billets acceptés                0000000004")
	assert.Contains(t, plain, "Montant des billets            00000055,00")
	keepSample(t, "collection.txt", r.Text)

	f.clock.Advance(30 * time.Minute)
	insertAll(t, f, d, 50*game.Euro)
	c2, err := o.Collect(ctx, staff)
	require.NoError(t, err)
	require.NoError(t, o.PrintCollection(ctx, staff, c2))
	r, err = d.Printer.WaitReceipt(ctx, 2)
	require.NoError(t, err)
	plain = r.Plain()
	n, amount := noteLine(t, plain, 50*game.Euro)
	assert.Equal(t, "1", n)
	assert.Equal(t, "50\u00a0€", amount)
	assert.NotContains(t, plain, "20\u00a0€  ", "only the notes since the last collection")
	assert.Contains(t, plain, "Depuis le 30/11/2026 à 12:30:00")
	assert.Contains(t, plain, "Billets acceptés                0000000005", "the meters are never reset")

	printed := officeEvents(t, f, "report_printed")
	require.Len(t, printed, 2)
	assert.Contains(t, printed[1].Detail, "collection report 1 (4 notes, 55 EUR) printed for staff")
}

