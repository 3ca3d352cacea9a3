package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk/ui/art"
)

// Layout of the home screen, in design units (1280 × 800).
const (
	homeTop     = 150 // below the wordmark
	homeBottom  = 742 // above the notice strip
	rulesX      = 104
	rulesW      = 596
	actionsX    = 718
	actionsW    = 458
	noticeY     = 750
	stakeY      = 316
	stakeH      = 84
	playY       = 414
	playH       = 90
	messageY    = 512
	secondaryY  = 564
	secondaryH  = 64
	devY        = 640
	devH        = homeBottom - devY
	devButtonsH = 60
)

// showHome shows the home screen (Art. 4.1).
func (s *Screens) showHome() {
	s.game = nil
	s.pickStake()
	s.setScreen(scrHome, s.buildHome)
	s.warmWindows() // while the kiosk waits for a player, not while a wall plays
	if s.opt.OnHome != nil {
		s.opt.OnHome()
	}
}

// pickStake keeps the stake chosen if it can be played, else takes the
// smallest stake that can.
func (s *Screens) pickStake() {
	if s.stake.Valid() && s.snap.Available[s.stake] {
		return
	}
	for _, st := range game.Stakes {
		if s.snap.Available[st] {
			s.stake = st
			return
		}
	}
	if !s.stake.Valid() {
		s.stake = game.Stakes[0]
	}
}

// chooseStake is a tap on a stake.
func (s *Screens) chooseStake(st game.Stake) {
	s.activity()
	s.message = nil
	s.stake = st
	s.rebuild()
	s.voiceStake()
}

// play sells a unit at the chosen stake (Art. 4.1: the stake is debited
// now and the outcome fixed) and shows its game.
func (s *Screens) play(mode breakout.Mode) {
	s.activity()
	s.message = nil
	s.requestPlay(s.stake, mode)
}

func (s *Screens) buildHome(v view) fyne.CanvasObject {
	if v.large {
		return s.buildHomeLarge(v)
	}
	tr := s.tr
	objs := []fyne.CanvasObject{
		s.cover(v, art.HomeBackdropResource()),
		v.image(art.WordmarkResource(), 640-160, 46, 320, 320/art.WordmarkAspect),
		v.textAt(tr.T(msgTagline), sizeBody, art.Sand, false, fyne.TextAlignCenter, 300, 46+320/art.WordmarkAspect+4, 680),
	}
	// The language toggle (FR | EN), top right.
	objs = append(objs, s.langButtons(v, 1040, 56, 62, minTouch, 6)...)
	objs = append(objs, s.buildVoiceButtons(v)...)
	objs = append(objs, s.buildRules(v)...)
	objs = append(objs, s.buildNotice(v)...)
	s.homeLive = container.NewWithoutLayout(s.buildHomeLive(v)...)
	return container.NewWithoutLayout(append(objs, s.homeLive)...)
}

// langButtons are « FR » and « EN » from (x, y), each w × h, gap apart,
// the language shown chosen.
func (s *Screens) langButtons(v view, x, y, w, h, gap float32) []fyne.CanvasObject {
	var objs []fyne.CanvasObject
	for i, l := range []Lang{French, English} {
		kind := buttonQuiet
		if l == s.tr.Lang {
			kind = buttonChosen
		}
		key := msgLangFR
		if l == English {
			key = msgLangEN
		}
		objs = append(objs, v.button(s.tr.T(key), kind, 20, func() { s.activity(); s.SetLang(l) },
			x+float32(i)*(w+gap), y, w, h))
	}
	return objs
}

// buildHomeLive is what the home screen shows of the machine's state: the
// credit, the stakes, the buttons, the lines about notes and cash-out, and
// the development panel. A note or a cash device changes only this part
// (refreshHomeLive), so the screen shows the credit in the next frame
// instead of laying out and drawing every text of the rules again.
func (s *Screens) buildHomeLive(v view) []fyne.CanvasObject {
	if v.large {
		// No development panel: it is not the player's, and the mode's
		// layout has no room for it (« Aa » again shows it).
		return s.buildActionsLarge(v, s.snap.Credit, s.snap.Available)
	}
	objs := s.buildActions(v, s.snap.Credit, s.snap.Available)
	if s.snap.Dev && s.opt.Dev != nil {
		objs = append(objs, s.buildDevPanel(v)...)
	}
	return objs
}

// refreshHomeLive draws the home screen's live part again, and the overlay
// over it (a confirmation shows the credit now, the faults panel the
// devices now).
func (s *Screens) refreshHomeLive() {
	if s.screen != scrHome || s.homeLive == nil || !s.sized() {
		s.rebuild()
		return
	}
	s.homeLive.Objects = s.buildHomeLive(s.v)
	s.homeLive.Refresh()
	if s.buildOv != nil {
		s.ovBox.Objects = []fyne.CanvasObject{s.buildOv(s.v)}
		s.ovBox.Refresh()
	}
	s.showFocus()
}

// buildRules is the rules of the game (Art. 4.1–4.8, in plain words) with
// the combinations of Art. 4.3 at the stake chosen.
func (s *Screens) buildRules(v view) []fyne.CanvasObject {
	tr := s.tr
	x, w := float32(rulesX+22), float32(rulesW-44)
	objs := []fyne.CanvasObject{v.panel(rulesX, homeTop, rulesW, homeBottom-homeTop)}
	objs = append(objs, v.textAt(tr.T(msgRulesTitle), sizeHeading, art.GoldLight, true, fyne.TextAlignLeading, x, homeTop+12, w))
	y := float32(homeTop + 12 + 42)
	lines, y := v.para(tr.T(msgRulesIntro), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)
	objs = append(objs, lines...)
	y += 10
	objs = append(objs, v.textAt(tr.F(msgRulesCombos, tr.Stake(s.stake)), sizeBody, art.GoldLight, true, fyne.TextAlignLeading, x, y, w))
	y += 30
	objs = append(objs, v.rule(x, y, w))
	y += 8
	objs = append(objs, s.buildCombinations(v, s.stake, x, y, w)...)
	y += 5*combRowH + 4
	objs = append(objs, v.rule(x, y, w))
	y += 8
	lines, y = v.para(tr.T(msgRulesBonus), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)
	objs = append(objs, lines...)
	y += 6
	return append(objs, s.rulesStonesAndModes(v, x, y, w)...)
}

// rulesStonesAndModes is the end of the rules from (x, y), w wide: the
// stones (Art. 4.5), then Jouer and Auto (Art. 4.1, 4.4); the home screen's
// panel and the large-text mode's card (large.go) share it.
func (s *Screens) rulesStonesAndModes(v view, x, y, w float32) []fyne.CanvasObject {
	tr := s.tr
	objs := []fyne.CanvasObject{v.textAt(tr.T(msgRulesStones), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)}
	y += 26
	cw := w / 3
	for i, st := range game.Stones {
		cx := x + float32(i)*cw
		objs = append(objs, v.image(art.StoneResource(st), cx, y, 30, 30))
		key := [...]msg{game.Pink: msgStonePink, game.Green: msgStoneGreen, game.Blue: msgStoneBlue}[st]
		objs = append(objs, v.textAt(tr.T(key), sizeSmall, art.Sand, false, fyne.TextAlignLeading, cx+36, y+4, cw-36))
	}
	y += 38
	lines, y := v.para(tr.T(msgRulesJouer), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)
	objs = append(objs, lines...)
	y += 4
	lines, _ = v.para(tr.T(msgRulesAuto), sizeSmall, art.Sand, false, fyne.TextAlignLeading, x, y, w)
	return append(objs, lines...)
}

// combRowH is the height of a row of the combinations.
const combRowH = 36

// buildCombinations lays out the winning combinations of Art. 4.3 at stake,
// in two columns: three of a kind, then two of a kind and the bonus. The
// amounts are the prize table's (game.Table), never typed in.
func (s *Screens) buildCombinations(v view, stake game.Stake, x, y, w float32) []fyne.CanvasObject {
	gap := float32(28)
	cw := (w - gap) / 2
	var objs []fyne.CanvasObject
	cell := func(col, row int, c game.Combination, amount string) {
		cx := x + float32(col)*(cw+gap)
		cy := y + float32(row)*combRowH
		for i := 0; i < c.Count; i++ {
			objs = append(objs, v.image(art.SymbolResource(c.Symbol, true), cx+float32(i)*33, cy+2, 32, 32))
		}
		if s.tr.spoken {
			// The voice names the symbols drawn (voice.go).
			objs = append(objs, v.textAt(s.tr.Combination(c), sizeBody+1, art.GoldLight, false, fyne.TextAlignLeading, cx, cy+6, 104))
		}
		objs = append(objs, v.textAt(amount, sizeBody+1, art.GoldLight, true, fyne.TextAlignTrailing, cx+104, cy+6, cw-104))
	}
	three, two := 0, 0
	for _, p := range game.Table(stake).Prizes {
		if p.Combination.Count == game.MaxPerSymbol {
			cell(0, three, p.Combination, s.tr.Money(p.Amount))
			three++
		} else {
			cell(1, two, p.Combination, s.tr.Money(p.Amount))
			two++
		}
	}
	cell(1, two, game.BonusCombination(), s.tr.T(msgRulesBonusCell))
	return objs
}

// buildActions is the right column: credit, stakes, Jouer and Auto, history
// and cash-out (Art. 4.1).
func (s *Screens) buildActions(v view, credit game.Money, available map[game.Stake]bool) []fyne.CanvasObject {
	tr := s.tr
	x, w := float32(actionsX), float32(actionsW)
	objs := []fyne.CanvasObject{v.panel(x, homeTop, w, 120)}
	notes, max := s.notesLines()
	if line := s.sessionLine(); line != "" {
		// A session on: its time and the player's net position take the
		// maximum's line (the credit shows what the maximum leaves).
		max = line
		if notes == "" {
			notes, max = line, ""
		}
	}
	if notes != "" {
		// The notes taken and the maximum credit, under the credit: where
		// the player looks before inserting a note.
		objs = append(objs,
			v.textAt(tr.T(msgCredit), sizeBody-2, art.Sand, true, fyne.TextAlignCenter, x, homeTop+4, w),
			v.textAt(tr.Money(credit), sizeAmount-10, art.GoldLight, true, fyne.TextAlignCenter, x, homeTop+20, w),
			v.textAt(notes, sizeCaption-1, art.Sand, false, fyne.TextAlignCenter, x+8, homeTop+78, w-16),
			v.textAt(max, sizeCaption-1, art.Sand, false, fyne.TextAlignCenter, x+8, homeTop+97, w-16))
	} else {
		objs = append(objs,
			v.textAt(tr.T(msgCredit), sizeBody, art.Sand, true, fyne.TextAlignCenter, x, homeTop+12, w),
			v.textAt(tr.Money(credit), sizeAmount, art.GoldLight, true, fyne.TextAlignCenter, x, homeTop+36, w))
	}
	// The player's limit, beside the language: a choice of the player's
	// own, out of the way of the credit's amount, however long.
	if b := s.limitButton(v, 1040-12-160, 56, 160, minTouch); b != nil {
		objs = append(objs, b)
	}
	objs = append(objs, v.textAt(tr.T(msgChooseStake), sizeHeading-4, art.Sand, true, fyne.TextAlignCenter, x, stakeY-40, w))
	const gap = float32(12)
	bw := (w - gap) / 2 // Historique and Encaisser, under Jouer and Auto
	objs, canPlay, cashBusy := s.playButtons(v, objs, credit, available, x, w, stakeY, stakeH, playY, playH)
	if msgText, msgColour := s.homeMessage(credit, available, canPlay, cashBusy); msgText != "" {
		lines, _ := v.para(msgText, sizeSmall, msgColour, true, fyne.TextAlignCenter, x, messageY, w)
		objs = append(objs, lines...)
	}
	hist := v.button(tr.T(msgHistory), buttonSecondary, sizeButton-2, s.showHistory, x, secondaryY, bw, secondaryH)
	cash := v.button(tr.T(msgCashOut), buttonSecondary, sizeButton-2, s.askCashOut, x+bw+gap, secondaryY, bw, secondaryH)
	if !s.snap.Cash.CanCashOut || credit <= 0 {
		cash.Disable()
	}
	// Why cash-out does not work now (a faulty printer says what it has),
	// even without credit: the player reads it before inserting a note.
	if why := s.cashOutCaption(); why != "" {
		cash.FitCaption(why)
	}
	return append(objs, hist, cash)
}

// playButtons appends to objs the stakes (a row at stakeY) and Jouer and
// Auto (at playY) on the column (x, w), both home layouts' (large.go), and
// says whether the credit plays the stake chosen and whether a note or a
// voucher holds the credit.
func (s *Screens) playButtons(v view, objs []fyne.CanvasObject, credit game.Money, available map[game.Stake]bool,
	x, w, stakeY, stakeH, playY, playH float32) (_ []fyne.CanvasObject, canPlay, cashBusy bool) {
	tr := s.tr
	const gap = float32(12)
	bw := (w - 2*gap) / 3
	for i, st := range game.Stakes {
		kind := buttonChoice
		if st == s.stake && available[st] {
			kind = buttonChosen
		}
		b := v.button(tr.Stake(st), kind, sizeButton+4, func() { s.chooseStake(st) }, x+float32(i)*(bw+gap), stakeY, bw, stakeH)
		if !available[st] {
			b.Caption = tr.T(msgUnavailable)
			b.Disable()
		}
		objs = append(objs, b)
	}
	// A note on its way to the cash box or a voucher printing holds the
	// credit: no game until it settles.
	cashBusy = s.snap.Cash.NoteInPath || s.snap.Cash.CashingOut
	canPlay = available[s.stake] && credit >= s.stake.Money() && !cashBusy
	bw = (w - gap) / 2
	// A game asked for and not yet sold: a second tap must not sell another.
	ready := canPlay && !s.requesting
	jouer := v.button(tr.T(msgPlay), buttonPrimary, sizeButton+6, func() { s.play(breakout.Play) }, x, playY, bw, playH)
	auto := v.button(tr.T(msgAuto), buttonSecondary, sizeButton+6, func() { s.play(breakout.Auto) }, x+bw+gap, playY, bw, playH)
	jouer.SetEnabled(ready)
	auto.SetEnabled(ready)
	return append(objs, jouer, auto), canPlay, cashBusy
}

// homeMessage is the line under Jouer and Auto: an error of Play, why
// notes are refused or the credit cannot be paid out now, nothing on
// sale, or why the stake chosen cannot be played; "" when all is well.
func (s *Screens) homeMessage(credit game.Money, available map[game.Stake]bool, canPlay, cashBusy bool) (string, color.Color) {
	tr := s.tr
	msgText, msgColour := "", color.Color(art.Alert)
	if s.message != nil {
		msgText = s.message(tr)
	}
	if msgText == "" {
		msgText = s.cashInLine() // notes refused now, and why
	}
	if msgText == "" {
		msgText = s.cashOutLine() // credit the printer cannot pay out now, and why
	}
	if msgText == "" && !anyAvailable(available) {
		// Every stake greyed: the player is told why and whom to ask.
		msgText = tr.T(msgNothingOnSale)
	}
	if msgText == "" && available[s.stake] && !canPlay && !cashBusy {
		msgText, msgColour = s.stakeLine(credit, available), art.Sand
	}
	return msgText, msgColour
}

// buildNotice is the strip of the age limit and responsible play.
func (s *Screens) buildNotice(v view) []fyne.CanvasObject {
	strip := canvas.NewRectangle(color.NRGBA{R: art.Night.R, G: art.Night.G, B: art.Night.B, A: 0xF0})
	ny := noticeTop(v)
	if v.large {
		strip.FillColor = art.Night
	}
	strip.Move(fyne.NewPos(0, v.pos(0, ny).Y))
	strip.Resize(fyne.NewSize(v.size.Width, v.size.Height-v.pos(0, ny).Y))
	disc := canvas.NewCircle(art.Carnelian)
	disc.StrokeColor = art.GoldLight
	disc.StrokeWidth = 2 * v.k
	side, ay := float32(42), float32(15)
	if v.large {
		disc.FillColor = art.TerracottaDark // white on it at 7:1
		side, ay = 60, 15
	}
	v.place(disc, rulesX, ny+5, side, side)
	age := v.textAt(s.tr.T(msgAgeBadge), sizeBody-1, art.Limestone, true, fyne.TextAlignCenter, rulesX, ny+ay, side)
	s.warning = warningAt(s.now(), s.warningEvery())
	s.noticeBox = container.NewWithoutLayout(s.warningLines(v, s.warning)...)
	return []fyne.CanvasObject{strip, disc, age, s.noticeBox}
}

// warnings are the three warnings of French law on gambling, which
// alternate: the notice shows one, the next every Options.WarningEvery
// (rotateWarning), each with "no sale to minors" before it.
var warnings = [...]msg{msgResponsible, msgResponsible2, msgResponsible3}

// warningAt is the warning shown at now: each period of the wall clock
// has the next one, so that every screen shows the same one and the three
// come in turn, as long as each other.
func warningAt(now time.Time, every time.Duration) int {
	return int((now.Unix() / int64(every/time.Second)) % int64(len(warnings)))
}

// warningEvery is how long a warning stays (DefaultWarningEvery if
// Options.WarningEvery is under a second).
func (s *Screens) warningEvery() time.Duration {
	if s.opt.WarningEvery < time.Second {
		return DefaultWarningEvery
	}
	return s.opt.WarningEvery
}

// warningLines lay out warning i in the notice's strip.
func (s *Screens) warningLines(v view, i int) []fyne.CanvasObject {
	ny, x := noticeTop(v), float32(rulesX+56)
	if v.large {
		x = rulesX + 72
	}
	w := actionsX + actionsW - x
	top := ny + 5
	if v.large {
		top = ny + 3
	}
	lines, _ := v.para(s.tr.T(warnings[i]), sizeCaption, art.Sand, false, fyne.TextAlignLeading, x, top, w)
	if len(lines) == 1 {
		v.place(lines[0], x, ny+14, w, v.lineHeight(sizeCaption, false))
	}
	return lines
}

// noticeTop is the design y of the notice strip: higher in the large-text
// mode, where the warning takes two lines.
func noticeTop(v view) float32 {
	if v.large {
		return largeNoticeY
	}
	return noticeY
}

// rotateWarning shows the next warning in the screen's notice when its
// period has come (Poll); the rest of the screen is left as it is.
func (s *Screens) rotateWarning(now time.Time) {
	i := warningAt(now, s.warningEvery())
	if s.noticeBox == nil || i == s.warning {
		return
	}
	s.warning = i
	s.noticeBox.Objects = s.warningLines(s.v, i)
	s.noticeBox.Refresh()
}

// notesLines are the notes the kiosk takes and the maximum credit ("" for
// a kiosk without a bill validator).
func (s *Screens) notesLines() (notes, max string) {
	c := s.snap.Cash
	list := c.Notes.List()
	if !c.Validator.Configured || len(list) == 0 {
		return "", ""
	}
	return s.tr.F(msgNotesAccepted, s.tr.Notes(list)), s.tr.F(msgMaxCreditShown, s.tr.Money(c.MaxCredit))
}

// anyAvailable reports whether one stake at least is on sale.
func anyAvailable(available map[game.Stake]bool) bool {
	for _, st := range game.Stakes {
		if available[st] {
			return true
		}
	}
	return false
}

// stakeLine says why the chosen stake cannot be played with the credit:
// no credit, a credit below every stake, or a credit that covers smaller
// stakes, which it offers.
func (s *Screens) stakeLine(credit game.Money, available map[game.Stake]bool) string {
	tr := s.tr
	if credit <= 0 {
		return tr.T(msgInsertNote)
	}
	var covered []game.Stake
	for _, st := range game.Stakes {
		if available[st] && st.Money() <= credit {
			covered = append(covered, st)
		}
	}
	if len(covered) == 0 {
		return tr.F(msgStakeNone, tr.Money(credit))
	}
	return tr.F(msgStakeShort, tr.Money(credit), tr.Stake(s.stake), tr.Stakes(covered))
}
