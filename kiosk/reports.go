package kiosk

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"pharaon/game"
	"pharaon/hw/escpos"
	"pharaon/store"
)

// Printed reports (DESIGN.md §7): the collection report staff keep with
// the notes they took out of the cash box, the daily report, and the
// printer's test print. They go through the voucher printer between
// vouchers (beginPrint: never during a game or a cash-out) and move no
// money; French only, as the vouchers.

// ErrReportNotPrinted: the printer did not confirm a report or a test
// print; the error also matches the printer's condition (escpos.ErrPaperOut,
// …). Nothing else changed: a collection stays recorded, and its report
// can be printed again.
var ErrReportNotPrinted = errors.New("report not printed")

// MeterLine is one meter as the reports and the meters screen show it.
type MeterLine struct {
	Name  string // the store's meter name (store.Meter…; store.ByStake for a stake's)
	Money bool   // an amount in cents; otherwise a count
	Value int64
	// Stake is the stake of a per-stake meter, 0 for a total.
	Stake game.Stake
}

// meterOrder are the meters shown, in order, with their printed labels
// (the reports are printed in French, as the vouchers; the screens hold
// their own words for each meter name); the per-stake ones follow each of
// their totals.
var meterOrder = []struct {
	name     string
	printed  string
	money    bool
	perStake bool
}{
	{store.MeterPlays, "Parties jouées", false, true},
	{store.MeterStaked, "Montant misé", true, true},
	{store.MeterWins, "Parties gagnantes", false, true},
	{store.MeterWon, "Montant gagné", true, true},
	{store.MeterBillsInCount, "Billets acceptés", false, false},
	{store.MeterBillsIn, "Montant des billets", true, false},
	{store.MeterVouchersOutCount, "Bons imprimés", false, false},
	{store.MeterVouchersOut, "Montant des bons", true, false},
	{store.MeterVouchersPaidCount, "Bons payés", false, false},
	{store.MeterVouchersPaid, "Montant des bons payés", true, false},
	{store.MeterVouchersExpiredCount, "Bons expirés", false, false},
	{store.MeterVouchersExpired, "Montant des bons expirés", true, false},
	{store.MeterVoucherReprints, "Duplicatas", false, false},
	{store.MeterHandPaysCount, "Paiements manuels", false, false},
	{store.MeterHandPays, "Montant payé à la main", true, false},
	{store.MeterAdjustIn, "Corrections en plus", true, false},
	{store.MeterAdjustOut, "Corrections en moins", true, false},
	{store.MeterTestCount, "Mouvements de test", false, false},
}

// printedMeterLabel is a meter line's label on the printed reports.
func printedMeterLabel(l MeterLine) string {
	if l.Stake != 0 {
		return "  mise de " + l.Stake.Money().French()
	}
	for _, o := range meterOrder {
		if o.name == l.Name {
			return o.printed
		}
	}
	return l.Name
}

// MeterLines lays m out as the screens and reports show it: totals, each
// followed by its value for every stake.
func MeterLines(m store.Meters) []MeterLine {
	var out []MeterLine
	for _, l := range meterOrder {
		out = append(out, MeterLine{Name: l.name, Money: l.money, Value: m.Get(l.name)})
		if !l.perStake {
			continue
		}
		for _, s := range game.Stakes {
			n := store.ByStake(l.name, s)
			out = append(out, MeterLine{Name: n, Money: l.money, Value: m.Get(n), Stake: s})
		}
	}
	return out
}

// MeterDigits is how many digits a meter shows at least (the regulators'
// ten).
const MeterDigits = 10

// FormatMeter writes a meter's value on at least MeterDigits digits: a
// count as is, an amount in cents with its comma ("0000012345" is
// "00000123,45").
func FormatMeter(l MeterLine) string {
	if !l.Money {
		return fmt.Sprintf("%0*d", MeterDigits, l.Value)
	}
	v := l.Value
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%0*d,%02d", sign, MeterDigits-2, v/100, v%100)
}

// reportColumns is the width of a report's line (font A, 80 mm roll).
const reportColumns = voucherColumns

// reportCols writes left and right on one line of reportColumns, right-aligned.
func reportCols(left, right string) string {
	gap := reportColumns - utf8.RuneCountInString(left) - utf8.RuneCountInString(right)
	if gap < 1 {
		gap = 1
	}
	return left + strings.Repeat(" ", gap) + right
}

var reportRule = strings.Repeat("-", reportColumns)

// reportHead starts a report: its title, the kiosk, the venue and when it
// was printed.
func (m *Machine) reportHead(title string, now time.Time) *escpos.Doc {
	d := escpos.NewDoc().Init()
	d.Align(escpos.Center).Bold(true).Size(2, 2).Line("PHARAON").Size(1, 1)
	d.Line(title).Bold(false).Feed(1).Align(escpos.Left)
	for _, l := range wrap("Borne : "+m.cfg.KioskID, reportColumns) {
		d.Line(l)
	}
	if m.cfg.Venue != "" {
		for _, l := range wrap("Lieu : "+m.cfg.Venue, reportColumns) {
			d.Line(l)
		}
	}
	d.Line("Imprimé le " + now.In(m.cfg.Location).Format(frDateTimeSec))
	// The chains' heads as anchored, to compare by eye with the next
	// report's: a history cut between two reports shows as a number that
	// went back, or a seal that does not follow (a store without anchor, a
	// test bench, prints none).
	if a, err := m.st.Anchor(); err == nil {
		d.Line(fmt.Sprintf("Ancre n° %d : %s", a.Seq, a.Short()))
	}
	return d
}

// meterBlock prints the meters.
func meterBlock(d *escpos.Doc, mt store.Meters) {
	d.Line(reportRule).Bold(true).Line("Compteurs (jamais remis à zéro)").Bold(false)
	for _, l := range MeterLines(mt) {
		d.Line(reportCols(printedMeterLabel(l), FormatMeter(l)))
	}
}

// notesBlock prints notes by denomination and their total.
func notesBlock(d *escpos.Doc, notes map[game.Money]int64) (int64, game.Money) {
	denoms := make([]game.Money, 0, len(notes))
	for n := range notes {
		denoms = append(denoms, n)
	}
	sort.Slice(denoms, func(i, j int) bool { return denoms[i] < denoms[j] })
	d.Line(reportCols("Billet       Nombre", "Montant"))
	var count int64
	var sum game.Money
	for _, n := range denoms {
		c := notes[n]
		count += c
		sum += n * game.Money(c)
		d.Line(reportCols(fmt.Sprintf("%-12s %6d", n.French(), c), (n * game.Money(c)).French()))
	}
	d.Bold(true).Line(reportCols(fmt.Sprintf("%-12s %6d", "Total", count), sum.French())).Bold(false)
	return count, sum
}

// collectionDoc lays out the report of collection c.
func (m *Machine) collectionDoc(c store.Collection, mt store.Meters, now time.Time) *escpos.Doc {
	loc := m.cfg.Location
	d := m.reportHead("RELEVÉ DE LA CAISSE", now)
	d.Line(fmt.Sprintf("Relevé n° %06d", c.ID))
	d.Line("Relevé le " + c.At.In(loc).Format(frDateTimeSec))
	d.Line("Par : " + roleFR(c.By))
	if c.Since.IsZero() {
		d.Line("Depuis : la mise en service")
	} else {
		d.Line("Depuis le " + c.Since.In(loc).Format(frDateTimeSec))
	}
	d.Line(reportRule)
	notesBlock(d, c.Notes)
	d.Feed(1).Align(escpos.Center).Line("Montant attendu").Bold(true).Size(2, 2).Line(c.Amount.French()).Size(1, 1).Bold(false)
	d.Align(escpos.Left)
	heldBlock(d, c.CashBox, loc)
	meterBlock(d, mt)
	d.Feed(1).Line("Signature :").Feed(3)
	return d.Feed(2).Cut()
}

// heldStateFR says what became of a note held for staff, as printed: still
// held or unsettled (not in the total), found in the box (in it), or not
// there.
var heldStateFR = map[store.IntentState]string{
	store.IntentHeld:     "en attente\u00a0: à compter à part",
	store.IntentStacking: "non réglé\u00a0: à compter à part",
	store.IntentCredited: "crédité\u00a0: compté dans le total",
	store.IntentVoid:     "clos\u00a0: absent de la caisse",
}

// heldBlock prints the notes of the box held for staff or unsettled (a
// collection's state of them): each with its number, time and value, then
// those staff are still to count apart, which the expected amount leaves
// out.
func heldBlock(d *escpos.Doc, b store.CashBox, loc *time.Location) {
	if len(b.Held) == 0 {
		return
	}
	d.Line(reportRule).Bold(true).Line("Billets en attente du personnel").Bold(false)
	for _, h := range b.Held {
		d.Line(reportCols(fmt.Sprintf("n° %d du %s", h.Intent, h.At.In(loc).Format(frDateTime)), h.Denom.French()))
		d.Line("  " + heldStateFR[h.State])
	}
	if n, sum := b.Unsettled(); n > 0 {
		notes := "billet"
		if n > 1 {
			notes = "billets"
		}
		d.Bold(true).Line(fmt.Sprintf("À compter à part\u00a0: %d %s, %s", n, notes, sum.French())).Bold(false)
	}
}

// roleFR names a role as printed.
func roleFR(by string) string {
	switch Role(by) {
	case RoleStaff:
		return "personnel"
	case RoleTechnician:
		return "technicien"
	}
	return by
}

// DayBounds is the local day holding t in loc: from its midnight to the
// next (23 or 25 hours on the days the clocks change).
func DayBounds(t time.Time, loc *time.Location) (time.Time, time.Time) {
	l := t.In(loc)
	from := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	return from, time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, loc)
}

// dailyDoc lays out the daily report of tot.
func (m *Machine) dailyDoc(tot store.Totals, mt store.Meters, ever map[string]int64, now time.Time) *escpos.Doc {
	loc := m.cfg.Location
	d := m.reportHead("RAPPORT JOURNALIER", now)
	d.Line("Journée du " + tot.From.In(loc).Format("02/01/2006"))
	d.Line(fmt.Sprintf("(%s, de 00:00 à 24:00)", loc))
	d.Line(reportRule).Bold(true).Line("Parties").Bold(false)
	d.Line(reportCols("Mise      Parties   Misé", "Gagné"))
	var plays int64
	var staked, won game.Money
	for _, s := range game.Stakes {
		plays += tot.Plays[s]
		staked += tot.Staked[s]
		won += tot.Won[s]
		d.Line(reportCols(fmt.Sprintf("%-9s %7d   %s", s.Money().French(), tot.Plays[s], tot.Staked[s].French()), tot.Won[s].French()))
	}
	d.Bold(true).Line(reportCols(fmt.Sprintf("%-9s %7d   %s", "Total", plays, staked.French()), won.French())).Bold(false)
	d.Line(reportCols("Parties gagnantes", fmt.Sprint(tot.Count[store.KindWin])))
	d.Line(reportRule).Bold(true).Line("Billets acceptés").Bold(false)
	notesBlock(d, tot.Notes)
	d.Line(reportRule).Bold(true).Line("Sorties").Bold(false)
	out := func(label string, k store.Kind) {
		d.Line(reportCols(fmt.Sprintf("%-24s %5d", label, tot.Count[k]), tot.Amount[k].French()))
	}
	out("Bons imprimés", store.KindVoucherOut)
	out("Paiements manuels", store.KindHandPay)
	out("Corrections", store.KindAdjustment)
	net := tot.Amount[store.KindBillIn] - tot.Amount[store.KindVoucherOut] - tot.Amount[store.KindHandPay]
	d.Bold(true).Line(reportCols("Billets moins paiements", net.French())).Bold(false)
	d.Line(reportCols(fmt.Sprintf("%-24s %5d", "Relevés de caisse", tot.Collections), tot.CollectedCash.French()))
	if tot.Count[store.KindTest] > 0 {
		d.Line(reportCols(fmt.Sprintf("%-24s %5d", "Test (hors comptes)", tot.Count[store.KindTest]), tot.Amount[store.KindTest].French()))
	}
	// The cash staff handed out at the counter that day, by kind, under
	// the names of the meters that count it since the start.
	d.Line(reportRule).Bold(true).Line("Payé au comptoir").Bold(false)
	paid := PaidAtCounter(tot)
	for _, p := range paid.Lines {
		d.Line(reportCols(fmt.Sprintf("%-24s %5d", p.printed, p.Count), p.Amount.French()))
	}
	d.Bold(true).Line(reportCols(fmt.Sprintf("%-24s %5d", "Total payé au comptoir", paid.Count), paid.Amount.French())).Bold(false)
	// The player-protection facts: the day's, and since the kiosk's start
	// (never reset: they are rows of the settings' chain).
	d.Line(reportRule).Bold(true).Line("Protection des joueurs").Bold(false)
	d.Line(reportCols(fmt.Sprintf("%-24s %5s", "", "Jour"), "Total"))
	for _, f := range PlayerFactLines {
		d.Line(reportCols(fmt.Sprintf("%-24s %5d", f.Printed, tot.PlayerFacts[f.Key]), fmt.Sprint(ever[f.Key])))
	}
	meterBlock(d, mt)
	return d.Feed(2).Cut()
}

// CounterPayout is the cash staff paid out at the counter in a period, by
// kind, and its total: the daily report's and the daily view's lines.
type CounterPayout struct {
	Lines  []CounterLine
	Count  int64
	Amount game.Money
}

// CounterLine is one kind of cash paid out at the counter: Kind names it
// for the screens' catalogue ("vouchers_paid", "hand_pays": the meters'
// names, store.MeterVouchersPaid and store.MeterHandPays).
type CounterLine struct {
	Kind    string
	Count   int64
	Amount  game.Money
	printed string
}

// PaidAtCounter is the cash paid out at the counter in tot's period: the
// vouchers staff paid and the hand-pays, as the paid meters count them.
func PaidAtCounter(tot store.Totals) CounterPayout {
	p := CounterPayout{Lines: []CounterLine{
		{Kind: store.MeterVouchersPaid, Count: tot.VouchersPaid, Amount: tot.VouchersPaidAmount, printed: "Bons payés"},
		{Kind: store.MeterHandPays, Count: tot.Count[store.KindHandPay], Amount: tot.Amount[store.KindHandPay], printed: "Paiements manuels"},
	}}
	for _, l := range p.Lines {
		p.Count += l.Count
		p.Amount += l.Amount
	}
	return p
}

// testPrintDoc is the printer's test page: every character the vouchers
// use, the width of a line, a bar code.
func (m *Machine) testPrintDoc(now time.Time) *escpos.Doc {
	d := m.reportHead("TEST D'IMPRESSION", now)
	d.Line(reportRule)
	d.Line("Accents : é è ê à À ç ô ù û ï « » ° €")
	d.Line("Montant : " + game.Money(375000).French())
	ruler := strings.Repeat("1234567890", reportColumns/10+1)[:reportColumns]
	d.Line(ruler)
	d.Bold(true).Line("Gras").Bold(false).Size(2, 2).Line("Double").Size(1, 1)
	d.Align(escpos.Center).Barcode128("PHARAON-TEST").Feed(1).Line("Fin du test")
	return d.Feed(2).Cut()
}

// printReport prints doc between vouchers, marking the printer's state
// from the outcome; what names it in the log.
func (m *Machine) printReport(ctx context.Context, what string, doc *escpos.Doc) error {
	if err := m.beginPrint(false); err != nil {
		return fmt.Errorf("print %s: %w", what, err)
	}
	defer m.endPrint()
	ctx = context.WithoutCancel(ctx)
	st, err := m.cash.printer.Print(ctx, doc)
	if err == nil {
		m.setPrinterStatus(st, nil)
		return nil
	}
	m.setPrinterStatus(escpos.Status{}, err)
	code, _ := printerProblem(err)
	m.logCash(store.LevelError, "printer", "report_failed", "%s not printed (%s): %v", what, code, err)
	return fmt.Errorf("%s (%s): %w: %w", what, code, ErrReportNotPrinted, err)
}

// PrintCollection prints the report of collection c (Collect's result)
// with the meters as they are now. A report that did not print can be
// printed again: the collection is recorded either way.
func (o *Office) PrintCollection(ctx context.Context, s *Session, c store.Collection) error {
	if err := o.begin(ctx, s, RoleStaff, "print a collection report"); err != nil {
		return err
	}
	mt, err := o.m.st.Meters(ctx)
	if err != nil {
		return err
	}
	if err := o.m.printReport(ctx, fmt.Sprintf("collection report %d", c.ID), o.m.collectionDoc(c, mt, o.m.clk.Now())); err != nil {
		o.audit(store.LevelWarning, "report_failed", "collection report %d asked by %s not printed: %v", c.ID, s.role, err)
		return err
	}
	o.audit(store.LevelInfo, "report_printed", "collection report %d (%d notes, %s) printed for %s", c.ID, c.Count, c.Amount.Plain(), s.role)
	return nil
}

// DailyTotals are the day's totals of the local day holding day.
func (o *Office) DailyTotals(ctx context.Context, s *Session, day time.Time) (store.Totals, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the day's totals"); err != nil {
		return store.Totals{}, err
	}
	from, to := DayBounds(day, o.m.cfg.Location)
	return o.m.st.TotalsBetween(ctx, from, to)
}

// PrintDaily prints the daily report of the local day holding day (in the
// kiosk's zone): the day's games by stake, notes, payouts, collections,
// and the meters.
func (o *Office) PrintDaily(ctx context.Context, s *Session, day time.Time) error {
	if err := o.begin(ctx, s, RoleStaff, "print the daily report"); err != nil {
		return err
	}
	from, to := DayBounds(day, o.m.cfg.Location)
	tot, err := o.m.st.TotalsBetween(ctx, from, to)
	if err != nil {
		return err
	}
	// The meters printed are a snapshot the fleet's centre receives too
	// (store.SnapshotMeters); a store that refuses the write still prints
	// its meters as read.
	var mt store.Meters
	if snap, err := o.m.st.SnapshotMeters(ctx, store.SnapshotReport); err == nil {
		mt = snap.Meters
	} else {
		o.audit(store.LevelWarning, "snapshot_failed", "meter snapshot of the daily report: %v", err)
		if mt, err = o.m.st.Meters(ctx); err != nil {
			return err
		}
	}
	ever, err := o.m.st.PlayerFactCounts(ctx, time.Time{}, time.Time{})
	if err != nil {
		return err
	}
	date := from.Format("2006-01-02")
	if err := o.m.printReport(ctx, "daily report "+date, o.m.dailyDoc(tot, mt, ever, o.m.clk.Now())); err != nil {
		o.audit(store.LevelWarning, "report_failed", "daily report of %s asked by %s not printed: %v", date, s.role, err)
		return err
	}
	o.audit(store.LevelInfo, "report_printed", "daily report of %s printed for %s", date, s.role)
	return nil
}

// TestPrint prints the printer's test page.
func (o *Office) TestPrint(ctx context.Context, s *Session) error {
	if err := o.begin(ctx, s, RoleStaff, "print a test page"); err != nil {
		return err
	}
	if err := o.m.printReport(ctx, "test page", o.m.testPrintDoc(o.m.clk.Now())); err != nil {
		o.audit(store.LevelWarning, "test_print_failed", "test page asked by %s not printed: %v", s.role, err)
		return err
	}
	o.audit(store.LevelInfo, "test_print", "test page printed for %s", s.role)
	return nil
}

// ErrPaperNotConfirmed: staff said the paper was refilled, but the printer
// still reports it out or near its end.
var ErrPaperNotConfirmed = errors.New("the printer does not confirm the paper")

// PaperRefilled records that staff put a new roll in: the printer's status
// is read at once, and the paper-out or paper-low state clears only if the
// printer confirms it (ErrPaperNotConfirmed otherwise, with its status).
// Both outcomes are logged with the role.
func (o *Office) PaperRefilled(ctx context.Context, s *Session) (DeviceStatus, error) {
	if err := o.begin(ctx, s, RoleStaff, "acknowledge a paper refill"); err != nil {
		return DeviceStatus{}, err
	}
	if o.m.cash.printer == nil {
		return DeviceStatus{}, fmt.Errorf("paper refill: %w", ErrCashOutUnavailable)
	}
	o.m.CheckPrinter(ctx)
	p := o.m.Snapshot().Cash.Printer
	if p.Code == "paper_out" || !p.Warning.IsZero() || !p.Connected {
		why := p.Message.String()
		if !p.Warning.IsZero() {
			why = p.Warning.String()
		}
		o.audit(store.LevelWarning, "paper_not_confirmed", "paper refill by %s not confirmed by the printer: %s", s.role, why)
		return p, fmt.Errorf("paper refill: %s: %w", why, ErrPaperNotConfirmed)
	}
	o.audit(store.LevelInfo, "paper_refilled", "paper refilled by %s; printer: %s", s.role, p.Message)
	return p, nil
}

// PrinterStatus is the voucher printer's state as the cash loop last read
// it (Configured false: the kiosk has no printer).
func (o *Office) PrinterStatus(ctx context.Context, s *Session) (DeviceStatus, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the printer's state"); err != nil {
		return DeviceStatus{}, err
	}
	return o.m.Snapshot().Cash.Printer, nil
}

// EventSources lists the sources the event log holds, for its filter.
func (o *Office) EventSources(ctx context.Context, s *Session) ([]string, error) {
	if err := o.begin(ctx, s, RoleStaff, "read the event log"); err != nil {
		return nil, err
	}
	return o.m.st.EventSources(ctx)
}
