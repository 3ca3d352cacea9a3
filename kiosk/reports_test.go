package kiosk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/sim/printersim"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
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
	setPINs(t, a)
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

// collectPrinted collects the cash box as s and prints its report, read
// back as the simulated printer's receipt n.
func collectPrinted(t *testing.T, o *Office, s *Session, d *devsim.Devices, n int) (store.Collection, *printersim.Receipt) {
	t.Helper()
	c, err := o.Collect(ctx, s)
	require.NoError(t, err)
	require.NoError(t, o.PrintCollection(ctx, s, c))
	r, err := d.Printer.WaitReceipt(ctx, n)
	require.NoError(t, err)
	return c, r
}

// The collection report, read back from the printer: the notes by
// denomination since the last collection, their total equal to the note
// meters' growth, who and when, and the meters. A second collection
// counts only the notes since the first.
func TestCollectionReportPrinted(t *testing.T) {
	f, d, o := newCashOffice(t)
	insertAll(t, f, d, 5*game.Euro, 20*game.Euro, 20*game.Euro, 10*game.Euro)
	f.clock.Advance(90 * time.Minute)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)

	before, err := f.st.Meters(ctx)
	require.NoError(t, err)
	c, r := collectPrinted(t, o, staff, d, 1)
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
	_, r = collectPrinted(t, o, staff, d, 2)
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

// A note held for staff when the cash box is collected is listed on the
// collection's report, apart from the total, with its number, time and
// value; credited by staff after that collection (they found it in the box
// they took), it is not expected again in the next box, whose report does
// not list it.
func TestCollectionReportListsHeldNotes(t *testing.T) {
	f, d, o := newCashOffice(t)
	insertAll(t, f, d, 10*game.Euro)
	f.clock.Advance(10 * time.Minute)
	in, err := kiosktest.HoldNote(ctx, f.st, 20*game.Euro)
	require.NoError(t, err)
	f.clock.Advance(time.Hour)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)

	_, r := collectPrinted(t, o, staff, d, 1)
	plain := r.Plain()
	assert.Contains(t, plain, "Montant attendu\n10\u00a0€\n", "the held note is not in the total")
	assert.Contains(t, plain, "Billets en attente du personnel\n"+
		reportCols(fmt.Sprintf("n° %d du 30/11/2026 à 11:10", in.ID), "20\u00a0€")+"\n"+
		"  en attente\u00a0: à compter à part\n"+
		"À compter à part\u00a0: 1 billet, 20\u00a0€\n", "the report lists the held note")
	keepSample(t, "collection-held.txt", r.Text)

	_, err = o.CreditHeldNote(ctx, staff, in.ID, "trouvé dans la caisse relevée")
	require.NoError(t, err)
	f.clock.Advance(30 * time.Minute)
	insertAll(t, f, d, 5*game.Euro)
	c2, r := collectPrinted(t, o, staff, d, 2)
	assert.Equal(t, 5*game.Euro, c2.Amount, "the note credited late left with the first box")
	plain = r.Plain()
	n, amount := noteLine(t, plain, 5*game.Euro)
	assert.Equal(t, "1", n)
	assert.Equal(t, "5\u00a0€", amount)
	assert.NotRegexp(t, `(?m)^20\x{a0}€\s`, plain, "no 20 € note expected")
	assert.Contains(t, plain, "Montant attendu\n5\u00a0€\n")
	assert.NotContains(t, plain, "en attente du personnel")
}

// The daily report, read back from the printer: the day's games, notes
// and payouts in the kiosk's zone, the day before left out, and the
// meters since the start.
func TestDailyReportPrinted(t *testing.T) {
	f, d, o := newCashOffice(t)
	insertAll(t, f, d, 10*game.Euro) // 30/11
	f.clock.Advance(24 * time.Hour)
	insertAll(t, f, d, 20*game.Euro, 5*game.Euro) // 1/12
	g, err := f.m.Play(ctx, game.Stake100, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)
	g.Wait()
	f.m.EndResult()
	credit := f.m.Snapshot().Credit
	waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashOut }, "cash-out possible")
	v, err := f.m.CashOut(ctx)
	require.NoError(t, err)
	require.Equal(t, credit, v.Amount)

	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	tot, err := o.DailyTotals(ctx, staff, f.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, int64(2), tot.Count[store.KindBillIn], "the note of the day before is left out")
	assert.Equal(t, int64(1), tot.Plays[game.Stake100])
	require.NoError(t, o.PrintDaily(ctx, staff, f.clock.Now()))
	r, err := d.Printer.WaitReceipt(ctx, 2) // the voucher was the first
	require.NoError(t, err)
	plain := r.Plain()
	assert.Contains(t, plain, "RAPPORT JOURNALIER")
	assert.Contains(t, plain, "Journée du 01/12/2026")
	n, amount := noteLine(t, plain, 20*game.Euro)
	assert.Equal(t, "1", n)
	assert.Equal(t, "20\u00a0€", amount)
	assert.NotContains(t, plain, "\n10\u00a0€ ", "not the note of the day before")
	won := tot.Won[game.Stake100]
	assert.Regexp(t, `(?m)^1\x{a0}€\s+1\s+1\x{a0}€\s+`+regexp.QuoteMeta(won.French())+`$`, plain)
	assert.Regexp(t, `(?m)^Bons imprimés\s+1\s+`+regexp.QuoteMeta(v.Amount.French())+`$`, plain)
	assert.Regexp(t, `(?m)^Billets moins paiements\s+`+regexp.QuoteMeta((25*game.Euro-v.Amount).French())+`$`, plain)
	assert.Contains(t, plain, "Billets acceptés                0000000003", "the meters count since the start")
	keepSample(t, "daily.txt", r.Text)
}

// The daily report has the cash paid out at the counter that day, by
// kind: the vouchers staff paid (whenever they were printed) and the
// hand-pays, and their total; the days' lines add up to what the cash
// box's printout counts since the start (the paid meters).
func TestDailyReportPaidAtTheCounter(t *testing.T) {
	f, d, _ := newCashFixture(t, func(c *Config) { c.Cash.HandPayLimit = 15 * game.Euro })
	f.boot()
	cashReady(t, f.m)
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, 1000*time.Hour)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	receipts := 0
	cashOut := func(n game.Money) store.Voucher {
		t.Helper()
		insertAll(t, f, d, n)
		waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashOut }, "cash-out possible")
		info, err := f.m.CashOut(ctx)
		require.NoError(t, err)
		receipts++
		v, err := f.st.Voucher(ctx, info.Number)
		require.NoError(t, err)
		return v
	}
	pay := func(v store.Voucher) {
		t.Helper()
		_, err := o.PayVoucher(ctx, staff, v.Validation)
		require.NoError(t, err)
	}
	daily := func() string {
		t.Helper()
		require.NoError(t, o.PrintDaily(ctx, staff, f.clock.Now()))
		receipts++
		r, err := d.Printer.WaitReceipt(ctx, receipts)
		require.NoError(t, err)
		return r.Plain()
	}
	line := func(plain, label string) (int64, string) {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + label + `\s+(\d+)\s+(\S.*€)$`).FindStringSubmatch(plain)
		require.NotNil(t, m, "no line %q in\n%s", label, plain)
		n, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		return n, m[2]
	}

	first := cashOut(10 * game.Euro) // 30/11, paid the next day
	paidToday := cashOut(5 * game.Euro)
	pay(paidToday)
	day1 := daily()
	f.clock.Advance(24 * time.Hour)
	pay(first)
	insertAll(t, f, d, 20*game.Euro)
	_, err = f.m.CashOut(ctx)
	require.ErrorIs(t, err, ErrHandPay, "above the hand-pay limit")
	_, _, err = o.PayHandPay(ctx, staff)
	require.NoError(t, err)
	day2 := daily()

	assert.Contains(t, day2, "Payé au comptoir\n")
	n, amount := line(day2, "Bons payés")
	assert.Equal(t, int64(1), n, "the voucher of the day before, paid today")
	assert.Equal(t, (10 * game.Euro).French(), amount)
	n, amount = line(day2, "Paiements manuels")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, (20 * game.Euro).French(), amount)
	n, amount = line(day2, "Total payé au comptoir")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, (30 * game.Euro).French(), amount)
	n, amount = line(day1, "Bons payés")
	assert.Equal(t, int64(1), n)
	assert.Equal(t, (5 * game.Euro).French(), amount)

	_, box := collectPrinted(t, o, staff, d, receipts+1)
	meter := func(label string) int64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + label + `\s+(\d+),?(\d*)$`).FindStringSubmatch(box.Plain())
		require.NotNil(t, m, "no meter %q in\n%s", label, box.Plain())
		v, err := strconv.ParseInt(m[1]+m[2], 10, 64)
		require.NoError(t, err)
		return v
	}
	n1, _ := line(day1, "Bons payés")
	n2, _ := line(day2, "Bons payés")
	assert.Equal(t, meter("Bons payés"), n1+n2, "the days' vouchers paid are the cash box's printout's")
	assert.Equal(t, int64(15*game.Euro), meter("Montant des bons payés"))
	h1, _ := line(day1, "Paiements manuels")
	h2, _ := line(day2, "Paiements manuels")
	assert.Equal(t, meter("Paiements manuels"), h1+h2)
	assert.Equal(t, int64(20*game.Euro), meter("Montant payé à la main"))
}

// The test page prints every character the vouchers use; a printer out of
// paper refuses it with the reason, logged.
func TestTestPrint(t *testing.T) {
	f, d, o := newCashOffice(t)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.NoError(t, o.TestPrint(ctx, staff))
	r, err := d.Printer.WaitReceipt(ctx, 1)
	require.NoError(t, err)
	assert.Contains(t, r.Plain(), "Accents : é è ê à À ç ô ù û ï « » ° €")
	assert.Contains(t, r.Plain(), "123456789012345678901234567890123456789012\n")
	require.Len(t, officeEvents(t, f, "test_print"), 1)

	require.NoError(t, d.Cause(devsim.PrinterPaperOut))
	waitFor(t, func() bool { return f.m.Snapshot().Cash.Printer.Code == "paper_out" }, "paper out seen")
	err = o.TestPrint(ctx, staff)
	require.ErrorIs(t, err, ErrCashOutUnavailable)
	require.Len(t, officeEvents(t, f, "test_print_failed"), 1)
}

// Paper refilled: the acknowledgement is refused while the printer still
// says it has none (or little), and accepted once it confirms; both are
// logged with the role, and the printer's state clears.
func TestPaperRefilled(t *testing.T) {
	f, d, o := newCashOffice(t)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.NoError(t, d.Cause(devsim.PrinterPaperOut))
	waitFor(t, func() bool { return f.m.Snapshot().Cash.Printer.Code == "paper_out" }, "paper out seen")
	st, err := o.PaperRefilled(ctx, staff)
	require.ErrorIs(t, err, ErrPaperNotConfirmed)
	assert.Equal(t, "paper_out", st.Code)
	require.Len(t, officeEvents(t, f, "paper_not_confirmed"), 1)

	require.NoError(t, d.Repair())
	require.NoError(t, d.Cause(devsim.PrinterPaperLow))
	_, err = o.PaperRefilled(ctx, staff)
	require.ErrorIs(t, err, ErrPaperNotConfirmed, "a roll near its end is not a new roll")

	require.NoError(t, d.Repair())
	st, err = o.PaperRefilled(ctx, staff)
	require.NoError(t, err)
	assert.True(t, st.OK)
	assert.True(t, st.Warning.IsZero())
	assert.True(t, f.m.Snapshot().Cash.Printer.OK, "the paper-out state is cleared")
	ok := officeEvents(t, f, "paper_refilled")
	require.Len(t, ok, 1)
	assert.Contains(t, ok[0].Detail, "by staff")
}

// A staff report prints the chains' heads as anchored (their number and
// seal), so two reports side by side show a history cut between them; a
// store without anchor prints none.
func TestReportsPrintTheAnchor(t *testing.T) {
	for _, anchored := range []bool{false, true} {
		f, d, _ := newCashFixture(t, nil)
		if anchored {
			f.stop()
			f.path, f.anchored = anchoredCopy(t), true
			f.start()
		}
		f.boot()
		cashReady(t, f.m)
		insertAll(t, f, d, 10*game.Euro)
		a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
		setPINs(t, a)
		o := NewOffice(f.m, a, time.Hour)
		tech, err := o.Login(ctx, "246800")
		require.NoError(t, err)
		require.NoError(t, o.TestPrint(ctx, tech))
		r, err := d.Printer.WaitReceipt(ctx, 1)
		require.NoError(t, err)
		if !anchored {
			assert.NotContains(t, r.Plain(), "Ancre")
			continue
		}
		// The seal printed is the heads' as they were at the print: the
		// audit line of the print came after it.
		m := regexp.MustCompile(`Ancre n° ([1-9][0-9]*) : ([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4})`).FindStringSubmatch(r.Plain())
		require.NotNil(t, m, "no anchor on the report:\n%s", r.Plain())
		heads, err := f.st.Anchor()
		require.NoError(t, err)
		seq, err := strconv.ParseUint(m[1], 10, 64)
		require.NoError(t, err)
		assert.Less(t, seq, heads.Seq, "the audit of the print moved the heads after it")
		assert.NotEqual(t, heads.Short(), m[2], "another seal for other heads")
	}
}
