package maint

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/validator"
	"pharaon/kiosk"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/ui/play"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// The fit test's fixture: a kiosk's back office with the figures of a busy
// kiosk (fitOffice), and the check that walks what a window draws
// (fitCheck).

// fitSizes are the screens of the kiosks in shops.
var fitSizes = []fyne.Size{{Width: 1024, Height: 768}, {Width: 1280, Height: 800}, {Width: 1366, Height: 768}, {Width: 1920, Height: 1080}}

// fitOffice is the real back office of a shell fixture, with what a busy
// kiosk shows where the layout depends on it: long texts, 10-digit
// figures, full pages of events, 20 blocks, a pending hand-pay, a fault.
type fitOffice struct {
	Office
	now   time.Time
	plays []store.Recalled // real plays, which replay
	// above is the number CheckVoucher says is above the payout limit.
	above string
	// testOff: test mode is off (on, with notes, otherwise).
	testOff bool
}

const (
	fitVenue = "Tabac-Presse de la Gare Saint-Jean, 14 place de la Libération, 69007 Lyon"
	// fitPath is a stable serial path as kiosks configure them.
	fitPath = "/dev/serial/by-id/usb-JCM_ID-003_0A1B2C3D-if00-port0"
)

func (o *fitOffice) Events(_ context.Context, _ *kiosk.Session, q store.EventQuery) ([]store.Event, error) {
	n := q.N
	if n <= 0 {
		n = 50
	}
	details := []string{
		"payment refused to staff: pay voucher: voucher: not found",
		"open " + fitPath + ": no such file or directory",
		"no valid answer to a status request within 3s (the printer is off or unplugged)",
		"block 2026/123 imported: 350000 units, 0,50 €, signed by issuer key 7f3a9c21e0b4d6f8",
		"setting cash.max_credit: \"200,00\" -> \"1500,00\" (technician)",
	}
	levels := []store.Level{store.LevelInfo, store.LevelWarning, store.LevelError, store.LevelCritical}
	sources := []string{"maintenance", "validator", "printer", "store", "kiosk"}
	codes := []string{"voucher_refused", "validator_disconnected", "printer_offline", "block_imported", "setting_changed"}
	out := make([]store.Event, n)
	for i := range out {
		out[i] = store.Event{ID: 1_234_567 - int64(i), At: o.now.Add(-time.Duration(i) * 7 * time.Minute),
			Level: levels[i%len(levels)], Source: sources[i%len(sources)], Code: codes[i%len(codes)], Detail: details[i%len(details)]}
	}
	return out, nil
}

func (o *fitOffice) EventSources(context.Context, *kiosk.Session) ([]string, error) {
	return []string{"kiosk", "maintenance", "printer", "store", "validator", "fleet"}, nil
}

// Blocks are 20 blocks of every stake and state.
func (o *fitOffice) Blocks(context.Context, *kiosk.Session) ([]store.BlockInfo, error) {
	states := []store.BlockState{store.BlockOpen, store.BlockQueued, store.BlockExhausted, store.BlockWithdrawn}
	out := make([]store.BlockInfo, 20)
	for i := range out {
		s := game.Stakes[i%len(game.Stakes)]
		b := store.BlockInfo{ID: int64(i + 1), Emission: 2026, Number: uint32(12_340 + i), Stake: s, Units: game.UnitsPerBlock,
			State: states[i%len(states)], Sold: game.UnitsPerBlock * (i%7 + 1) / 8, Imported: o.now.AddDate(0, 0, -i)}
		if b.State == store.BlockExhausted {
			b.Sold = b.Units
		}
		if b.State == store.BlockWithdrawn {
			b.Note = "rouleau de tickets abîmé par un dégât des eaux dans la réserve du magasin"
		}
		out[i] = b
	}
	return out, nil
}

func (o *fitOffice) BlockProgress(ctx context.Context, s *kiosk.Session, id int64) (store.Progress, error) {
	blocks, _ := o.Blocks(ctx, s)
	b := blocks[id-1]
	p := store.Progress{Block: b, Sold: b.Sold, Remaining: b.Remaining()}
	table := game.Table(b.Stake)
	for t := game.Tier(0); t <= game.NumTiers; t++ {
		lots := table.LotsOf(t)
		sold := int(int64(lots) * int64(b.Sold) / int64(b.Units))
		p.Tiers[t] = store.TierProgress{Lots: lots, Sold: sold, Remaining: lots - sold}
		if t > 0 {
			p.Tiers[t].Won = game.Money(sold) * table.Amount(t)
			p.Won += p.Tiers[t].Won
		}
	}
	return p, nil
}

// Recall lists ten games with big figures, each a real play that replays.
func (o *fitOffice) Recall(context.Context, *kiosk.Session, store.RecallQuery) ([]store.Recalled, error) {
	out := make([]store.Recalled, 10)
	for i := range out {
		r := o.plays[i%len(o.plays)]
		r.ID = 1_234_567 - int64(i)
		r.Unit = 349_999 - uint32(i)
		r.Number = 12_345
		r.Emission = 2026
		r.CreditBefore = 1_499*game.Euro + 50
		r.CreditAfter = r.CreditBefore - r.Stake.Money() + r.Prize
		out[i] = r
	}
	return out, nil
}

func (o *fitOffice) PendingHandPay(context.Context, *kiosk.Session) (kiosk.HandPay, error) {
	return kiosk.HandPay{Ref: "win-1234567", Cause: store.HandPayWin, Amount: 15_000 * game.Euro, PlayID: 1_234_567, At: o.now.Add(-time.Hour)}, nil
}

func (o *fitOffice) CashBox(context.Context, *kiosk.Session) (store.CashBox, error) {
	b := store.CashBox{Since: o.now.AddDate(0, 0, -6), Notes: map[game.Money]int64{}}
	for i, d := range []game.Money{5, 10, 20, 50, 100, 200, 500} {
		n := int64(12_345 / (i + 1))
		b.Notes[d*game.Euro] = n
		b.Count += n
		b.Amount += game.Money(n) * d * game.Euro
	}
	for i, st := range []store.IntentState{store.IntentHeld, store.IntentStacking, store.IntentCredited, store.IntentVoid} {
		b.Held = append(b.Held, store.HeldNote{Intent: 123_456 + int64(i), Denom: 50 * game.Euro, At: o.now.Add(-time.Duration(i) * time.Hour), State: st})
	}
	return b, nil
}

func (o *fitOffice) DailyTotals(_ context.Context, _ *kiosk.Session, day time.Time) (store.Totals, error) {
	t := store.Totals{From: day, To: day.AddDate(0, 0, 1), Count: map[store.Kind]int64{}, Amount: map[store.Kind]game.Money{},
		Plays: map[game.Stake]int64{}, Wins: map[game.Stake]int64{}, Staked: map[game.Stake]game.Money{}, Won: map[game.Stake]game.Money{},
		Notes: map[game.Money]int64{}, Collections: 12, CollectedCash: 1_234_567 * game.Euro}
	for _, s := range game.Stakes {
		t.Plays[s] = 123_456
		t.Wins[s] = 45_678
		t.Staked[s] = game.Money(123_456) * s.Money()
		t.Won[s] = 98_765*game.Euro + 50
	}
	for _, k := range []store.Kind{store.KindBillIn, store.KindVoucherOut, store.KindHandPay} {
		t.Count[k] = 12_345
		t.Amount[k] = 1_234_567*game.Euro + 50
	}
	return t, nil
}

func (o *fitOffice) Settings(ctx context.Context, s *kiosk.Session) ([]kiosk.Setting, error) {
	ss, err := o.Office.Settings(ctx, s)
	for i := range ss {
		if ss[i].Key == kiosk.SettingVenue {
			ss[i].Value = fitVenue
		}
	}
	return ss, err
}

func (o *fitOffice) Devices(context.Context, *kiosk.Session) (kiosk.Devices, error) {
	return kiosk.Devices{
		Validator:     kiosk.DeviceStatus{Configured: true, Connected: true, Code: "45", Message: kiosk.Message{Code: kiosk.MsgValidatorState, Detail: "acceptor_jam"}, Warning: kiosk.Message{Code: kiosk.MsgNotesHeld}},
		Printer:       kiosk.DeviceStatus{Configured: true, Connected: true, OK: true, Message: kiosk.Message{Code: kiosk.MsgWorking}, Warning: kiosk.Message{Code: kiosk.MsgPaperLow}},
		ValidatorPath: fitPath, PrinterPath: strings.Replace(fitPath, "JCM_ID-003", "Custom_TG2480-H", 1),
		Accepted:        []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro, 100 * game.Euro, 200 * game.Euro, 500 * game.Euro},
		ValidatorFamily: validator.FamilyID003, Polls: 1_234_567_890,
		ValidatorUnit: validator.Identity{Family: validator.FamilyID003, Version: "i(EUR)100-SS ID003-05V220-41 30JAN19 0A1B"},
	}, nil
}

func (o *fitOffice) Identity(context.Context, *kiosk.Session) (kiosk.Identity, error) {
	return kiosk.Identity{Version: "1.12.0-rc.3", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true,
		BuildTime: "2026-11-29T17:42:03Z", GoVersion: "go1.24.4", Path: "/opt/pharaon/releases/1.12.0-rc.3/bin/pharaon",
		SHA256: strings.Repeat("0123456789abcdef", 4), TPM: true, Trust: "tpm: sealed 0x81000001, counter 0x01500001 (/dev/tpmrm0)",
		LastUpdate: kiosk.UpdateRecord{At: o.now.Add(-time.Hour), File: "pharaon/2026-11/pharaon_1.12.0-rc.3+git1234.0123456789ab_amd64.update",
			Before: "1.11.2+git1187.fedcba987654", Outcome: kiosk.UpdateUnknown},
		Slots: true, System: update.BootStatus{Slot: "b", Version: "1.12.0-rc.3+git1234.0123456789ab~unsigned", Entry: "pharaon-0012-b.conf",
			Confirmed: true, Other: "1.11.2+git1187.fedcba987654",
			FailedVersion: "1.12.0-rc.4+git1240.0123456789ab~unsigned", FailedEntry: "pharaon-0013-a+0-3.conf", FailedTries: 3,
			PendingVersion: "1.12.0-rc.5+git1251.0123456789ab~unsigned", PendingEntry: "pharaon-0014-a+3.conf"}}, nil
}

// Sticks are two sticks, one with long bundle names, as a technician's
// stick holds the releases of a year.
func (o *fitOffice) Sticks(context.Context, *kiosk.Session) ([]helper.Stick, error) {
	return []helper.Stick{
		{Name: "sda1", Dir: "/media/sda1", Device: "/dev/sda1", FSType: "vfat", Free: 123_456_789_012, Updates: []string{
			"pharaon/2026-11/pharaon_1.12.0-rc.3+git1234.0123456789ab_amd64.update",
			"pharaon/2026-10/pharaon_1.11.2+git1187.fedcba987654_amd64.update",
			"pharaon_1.10.0_amd64.update",
		}},
		{Name: "sdb1", Dir: "/media/sdb1", Device: "/dev/sdb1", FSType: "exfat", Free: 1_234_567},
	}, nil
}

func (o *fitOffice) CheckUpdate(context.Context, *kiosk.Session, string, string) (helper.Update, error) {
	return helper.Update{Package: "pharaon", Version: "1.12.0-rc.3+git1234.0123456789ab", From: "1.11.2+git1187.fedcba987654", Key: "7f3a9c21e0b4d6f8"}, nil
}

func (o *fitOffice) EjectStick(context.Context, *kiosk.Session, string) error {
	return &helper.Error{Code: helper.CodeBusy, Detail: "/media/sda1: umount: /media/sda1: target is busy (a file of the stick is still open: pharaon_1.12.0-rc.3+git1234.0123456789ab_amd64.update)"}
}

func (o *fitOffice) Fault(context.Context, *kiosk.Session) (kiosk.Fault, error) {
	return kiosk.Fault{Code: kiosk.FaultAnchor, Detail: "anchor: the ledger ends at row 1234567 (hash 7f3a9c21e0b4d6f8…) but the TPM counter says 1234570: the database was put back from a copy"}, nil
}

func (o *fitOffice) TestMode(context.Context, *kiosk.Session) (bool, []kiosk.TestNote, error) {
	if o.testOff {
		return false, nil, nil
	}
	var notes []kiosk.TestNote
	for i := 0; i < 12; i++ {
		notes = append(notes, kiosk.TestNote{At: o.now.Add(-time.Duration(i) * time.Minute), Denom: []game.Money{5, 10, 20, 50, 100, 200, 500}[i%7] * game.Euro})
	}
	return true, notes, nil
}

func (o *fitOffice) CheckVoucher(ctx context.Context, s *kiosk.Session, typed string) (kiosk.VoucherCheck, error) {
	if typed == o.above {
		return kiosk.VoucherCheck{ID: 1_234_567, Amount: 14_999*game.Euro + 50, Payable: true, PayoutLimit: 2_000 * game.Euro}, nil
	}
	return o.Office.CheckVoucher(ctx, s, typed)
}

// newFitFix is a shell fixture on a fitOffice: real plays to replay, notes
// held for staff, a voucher paid, block files with long names on the stick.
func newFitFix(t require.TestingT, f *shFix) (*fitOffice, string) {
	f.t.Helper()
	ctx := context.Background()
	o := &fitOffice{Office: f.o, now: f.clock.Now(), above: "123456789012345678"}
	playUnit(f.t, f.st, f.m, game.Stake100, breakout.Auto)
	playUnit(f.t, f.st, f.m, game.Stake050, breakout.Auto)
	plays, err := f.st.Recall(ctx, store.RecallQuery{})
	require.NoError(t, err)
	require.NotEmpty(t, plays)
	o.plays = plays
	for _, d := range []game.Money{5, 50, 500} {
		f.hold(d * game.Euro)
	}
	paid := f.cashOut(50 * game.Euro)
	s, err := f.o.Login(ctx, shStaffPIN)
	require.NoError(t, err)
	_, err = f.o.PayVoucher(ctx, s, paid)
	require.NoError(t, err)
	require.NoError(t, f.o.Logout(ctx, s, "done"))
	f.blockDir = "testdata/fit-media" // a stick with long file names (the view shows the path)
	return o, paid
}

// fitCheck walks what a window draws and says what does not fit: a text
// drawn narrower than it needs (cut, or run over its neighbour), a text out
// of the window or of the scroller it is in, a scroller that scrolls
// sideways, a content that asks for more than the window.
type fitCheck struct {
	problems map[string]bool
}

// fitClip is the part of the window an object can be seen in, across.
type fitClip struct{ left, right float32 }

// fitSlack absorbs the rounding of layouts that split a width in floats.
const fitSlack = 1

func (c *fitCheck) add(where, format string, args ...any) {
	if c.problems == nil {
		c.problems = map[string]bool{}
	}
	c.problems[where+": "+fmt.Sprintf(format, args...)] = true
}

// list is the problems found, sorted.
func (c *fitCheck) list() []string {
	out := make([]string, 0, len(c.problems))
	for p := range c.problems {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// window checks the window w drawn at size: its content asks no more than
// size, and every object of it fits.
func (c *fitCheck) window(where string, w fyne.Window, size fyne.Size) {
	content := w.Content()
	if min := content.MinSize(); min.Width > size.Width+fitSlack || min.Height > size.Height+fitSlack {
		c.add(where, "the screen asks for %.0f×%.0f", min.Width, min.Height)
	}
	w.Resize(size)
	settle(w)
	c.walk(where, content, fyne.NewPos(0, 0), fitClip{0, size.Width}, size, false)
}

// walk checks o, at pos in the window, seen within clip, and what it holds.
func (c *fitCheck) walk(where string, o fyne.CanvasObject, pos fyne.Position, clip fitClip, win fyne.Size, scrolled bool) {
	if o == nil || !o.Visible() {
		return
	}
	pos = pos.Add(o.Position())
	size := o.Size()
	if size.Width <= 0 && size.Height <= 0 {
		return
	}
	leaf := func(text string, need fyne.Size) {
		if text == "" {
			return
		}
		switch {
		case size.Width+fitSlack < need.Width:
			c.add(where, "%T %q is %.0f wide, its text needs %.0f", o, text, size.Width, need.Width)
		case size.Height+fitSlack < need.Height:
			c.add(where, "%T %q is %.0f high, its text needs %.0f", o, text, size.Height, need.Height)
		}
		if pos.X+fitSlack < clip.left || pos.X+size.Width > clip.right+fitSlack {
			c.add(where, "%T %q runs from x=%.0f to %.0f, out of sight (%.0f to %.0f)", o, text, pos.X, pos.X+size.Width, clip.left, clip.right)
		}
		if !scrolled && pos.Y+size.Height > win.Height+fitSlack {
			c.add(where, "%T %q ends at y=%.0f, below the screen", o, text, pos.Y+size.Height)
		}
	}
	th := theme.Current()
	inner := th.Size(theme.SizeNameInnerPadding)
	switch x := o.(type) {
	case *widget.Label:
		if x.Wrapping == fyne.TextWrapOff {
			leaf(x.Text, x.MinSize())
			return
		}
		sizeName := x.SizeName
		if sizeName == "" {
			sizeName = theme.SizeNameText
		}
		leaf(x.Text, fyne.NewSize(fitWidestWord(x.Text, th.Size(sizeName), x.TextStyle)+2*inner, x.MinSize().Height))
		return
	case *widget.Button:
		leaf(x.Text, x.MinSize())
		return
	case *widget.Entry:
		shown := x.Text
		if shown == "" {
			shown = x.PlaceHolder
		}
		if x.Password || x.MultiLine {
			return
		}
		need := fyne.MeasureText(shown, th.Size(theme.SizeNameText), x.TextStyle).Width + 2*inner + 2*th.Size(theme.SizeNameInputBorder)
		leaf(shown, fyne.NewSize(need, x.MinSize().Height))
		return
	case *widget.Select:
		shown := x.Selected
		if shown == "" {
			shown = x.PlaceHolder
		}
		need := fyne.MeasureText(shown, th.Size(theme.SizeNameText), fyne.TextStyle{}).Width + 4*inner + th.Size(theme.SizeNameInlineIcon)
		leaf(shown, fyne.NewSize(need, x.MinSize().Height))
		return
	case *canvas.Text:
		leaf(x.Text, fyne.MeasureText(x.Text, x.TextSize, x.TextStyle))
		return
	case *play.Screen:
		// The game widget draws itself at any size it is given (the
		// player's screens' tests look at its insides): it is only to
		// be in sight.
		leaf("(game)", fyne.Size{})
		return
	case *container.Scroll:
		if x.Direction == container.ScrollBoth || x.Direction == container.ScrollHorizontalOnly {
			if x.Content.Size().Width > size.Width+fitSlack {
				c.add(where, "a scroller %.0f wide scrolls sideways over %.0f", size.Width, x.Content.Size().Width)
			}
		}
		inner := fitClip{max(clip.left, pos.X), min(clip.right, pos.X+size.Width)}
		c.walk(where, x.Content, pos, inner, win, true)
		return
	case *fyne.Container:
		for _, k := range x.Objects {
			c.walk(where, k, pos, clip, win, scrolled)
		}
		return
	case fyne.Widget:
		for _, k := range test.WidgetRenderer(x).Objects() {
			c.walk(where, k, pos, clip, win, scrolled)
		}
	}
}

// settle lays w out again, as a window's driver does when what it holds
// asks for another size once laid out (a wrapped text taller once it
// knows its width, a row that folds).
func settle(w fyne.Window) {
	for i := 0; i < 2; i++ {
		w.Content().Refresh()
	}
}

// fitWidestWord is the width of the widest word of s: a wrapped text cuts
// a word narrower than that.
func fitWidestWord(s string, size float32, style fyne.TextStyle) float32 {
	var w float32
	for _, word := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\n' }) {
		w = max(w, fyne.MeasureText(word, size, style).Width)
	}
	return w
}
