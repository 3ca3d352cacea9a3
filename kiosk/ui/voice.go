package ui

import (
	"regexp"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/speech"
	"pharaon/kiosk/ui/touch"
)

// The voice speaks the player's screens (EN 301 549's audio output of
// what is shown, docs/accessibility.md). The player turns it on with
// « Voix » on the home screen and sets its volume there; from then on each
// screen and each window is said when it shows, and each change on it
// follows what is being said: what a note did, the stake chosen, each
// symbol landing in the cartouche with its count, a timeout's warning. It
// ends with the session (the credit back to zero once there was credit:
// after the voucher is said, or the home screen with nothing left) and when
// the kiosk falls idle into its attract loop.
//
// What is said is what is shown: the windows, the cards and the text
// screens are built again with a Tr that speaks (Tr.Spoken: the amounts in
// words) and their texts read in order, so the prize said is the prize on
// screen, the kiosk's credited amount (DESIGN.md invariant 3). The home
// and game screens, whose text is mostly the rules, are summed up.
//
// Nothing waits for the voice: Say and Queue only hand a sentence over
// (kiosk/speech).

// Voice speaks sentences (kiosk/speech's Speaker).
type Voice interface {
	// Say speaks now, in place of what was being said (a new screen).
	Say(speech.Utterance)
	// Queue speaks after what is being said (a change on the screen).
	Queue(speech.Utterance)
	// Stop silences what is being said and what waits.
	Stop()
	// SetVolume sets the volume, 0 to 100; Volume reads it.
	SetVolume(int)
	Volume() int
}

// volumeStep is what « + » and « – » change the volume by; volumeDown and
// volumeUp are their labels.
const (
	volumeStep = 10
	volumeDown = "–"
	volumeUp   = "+"
)

// voiceState is the voice's part of the screens.
type voiceState struct {
	on bool
	// volume is the voice's volume before any player set theirs: each
	// player starts there (EN 301 549 5.1.3.13).
	volume int
	// hadCredit: the session spoken had credit; the voice ends when it
	// is back to zero.
	hadCredit bool
}

// voiceAvailable reports whether the kiosk has a voice.
func (s *Screens) voiceAvailable() bool { return s.opt.Voice != nil }

// speechLang is the voice's language.
func (s *Screens) speechLang() speech.Lang {
	if s.tr.Lang == English {
		return speech.English
	}
	return speech.French
}

func (s *Screens) say(text string) {
	if s.voice.on && text != "" {
		s.opt.Voice.Say(speech.Utterance{Lang: s.speechLang(), Text: text})
	}
}

func (s *Screens) queue(text string) {
	if s.voice.on && text != "" {
		s.opt.Voice.Queue(speech.Utterance{Lang: s.speechLang(), Text: text})
	}
}

// toggleVoice is « Voix »: on, the screen is said; off, silence.
func (s *Screens) toggleVoice() {
	s.activity()
	if !s.voiceAvailable() {
		return
	}
	if s.voice.on {
		s.endVoice()
		s.opt.Voice.Stop()
	} else {
		// A new player's voice: the volume the kiosk starts at, not
		// the last player's.
		s.opt.Voice.SetVolume(s.voice.volume)
		s.voice.on, s.voice.hadCredit = true, s.snap.Credit > 0
	}
	s.rebuild()
	if s.voice.on {
		sp := s.tr.Spoken()
		s.say(sp.F(msgSayVoiceOn, s.opt.Voice.Volume()) + " " + s.describe())
	}
}

// HeadphonesIn is headphones plugged into the kiosk's jack (hw/jack): the
// voice comes on and says where the player is, as the first key of the
// keypad does. Already on, or without a voice, nothing changes.
func (s *Screens) HeadphonesIn() {
	if !s.started || s.voice.on || !s.voiceAvailable() || s.screen == scrNone {
		return
	}
	if s.screen == scrAttract {
		s.activity()
		s.showHome() // a player is there
	}
	s.toggleVoice()
}

// changeVolume is « + » or « – » beside « Voix ».
func (s *Screens) changeVolume(by int) {
	s.activity()
	if !s.voice.on {
		return
	}
	v := min(max(s.opt.Voice.Volume()+by, volumeStep), 100)
	s.opt.Voice.SetVolume(v)
	s.rebuild()
	s.say(s.tr.F(msgSayVolume, v))
}

// endVoice ends the accessible session: what is being said is finished,
// nothing more is.
func (s *Screens) endVoice() {
	s.voice = voiceState{volume: s.voice.volume}
	s.focus.used = false
	s.showFocus()
}

// voiceShown says what shows now (Screens.shown), and ends the voice when
// the session it spoke for is over.
func (s *Screens) voiceShown() {
	if !s.voice.on {
		return
	}
	if s.screen == scrAttract {
		s.opt.Voice.Stop()
		s.endVoice()
		return
	}
	s.say(s.describe())
	s.voiceSessionEnd()
}

// voiceSessionEnd notes the credit of the session spoken for, and ends the
// voice when the session is over: the credit back to zero once there was
// some, with no game on.
func (s *Screens) voiceSessionEnd() {
	if !s.voice.on {
		return
	}
	if s.snap.Credit > 0 {
		s.voice.hadCredit = true
		return
	}
	if s.voice.hadCredit && s.snap.State == kiosk.Home && (s.overlay == ovVoucher || s.screen == scrHome && s.overlay == ovNone) {
		s.endVoice()
		if s.screen == scrHome {
			s.rebuild() // « Voix » shows it is off
		}
	}
}

// describe is what is said of what shows: the window or card over the
// screen, else the screen.
func (s *Screens) describe() string {
	if s.overlay != ovNone && s.buildOv != nil {
		return s.spokenTexts(s.buildOv)
	}
	switch s.screen {
	case scrHome:
		return s.describeHome()
	case scrGame:
		return s.describeGame()
	case scrNone, scrAttract:
		return ""
	}
	if s.buildScr == nil {
		return ""
	}
	return s.spokenTexts(s.buildScr)
}

// describeHome sums up the home screen: the credit, the stake chosen,
// what to do.
func (s *Screens) describeHome() string {
	sp := s.tr.Spoken()
	snap := s.snap
	parts := []string{sp.F(msgSayHome, sp.Money(snap.Credit))}
	if line := s.sessionSpoken(); line != "" {
		parts = append(parts, line)
	}
	switch {
	case !snap.Available[s.stake]:
		parts = append(parts, sp.T(msgNothingOnSale))
	case snap.Credit < s.stake.Money():
		parts = append(parts, sp.F(msgSayStake, sp.Stake(s.stake)))
		if notes := snap.Cash.Notes.List(); len(notes) > 0 {
			parts = append(parts, sp.F(msgSayInsert, sp.Notes(notes)))
		}
	default:
		parts = append(parts, sp.F(msgSayStake, sp.Stake(s.stake)), sp.T(msgSayPlay))
	}
	if snap.Credit > 0 {
		parts = append(parts, sp.T(msgSayCashOut))
	}
	if msg := s.message; msg != nil {
		parts = append(parts, msg(sp))
	}
	return strings.Join(parts, " ")
}

// sessionSpoken is the session's line (protection.go) in words.
func (s *Screens) sessionSpoken() string {
	p := s.snap.Protection
	if !p.Active || !p.Display {
		return ""
	}
	sp := s.tr.Spoken()
	return sp.F(msgSaySession, sp.Duration(p.Played), sp.Net(p.Net))
}

// describeGame says the game just started: its stake, its mode, the
// credit left, and what to do.
func (s *Screens) describeGame() string {
	if s.game == nil {
		return ""
	}
	sp := s.tr.Spoken()
	parts := []string{sp.F(msgSayGame, sp.Stake(s.game.Stake()), sp.Mode(s.mode), sp.Money(s.snap.Credit))}
	if s.mode == breakout.Play && !s.gs.Over() {
		parts = append(parts, sentence(sp.T(msgGameTapBall)))
	}
	return strings.Join(parts, " ")
}

// voiceStake says the stake the player chose.
func (s *Screens) voiceStake() {
	if !s.voice.on {
		return
	}
	sp := s.tr.Spoken()
	s.say(sp.F(msgSayStake, sp.Stake(s.stake)))
}

// voiceNote says what a note did (the toast's lines).
func (s *Screens) voiceNote() {
	if !s.voice.on || !s.toastVisible() {
		return
	}
	var head, line string
	s.withSpoken(func() { head, line, _ = s.toastLines() })
	s.queue(strings.TrimSpace(sentence(s.speakable(head)) + " " + sentence(s.speakable(line))))
	s.voiceSessionEnd()
}

// voiceLanded says a symbol that landed in the cartouche, with how many
// of it the wall has shown.
func (s *Screens) voiceLanded(sym game.Symbol, n int) {
	if !s.voice.on {
		return // called in a frame: nothing is written for no one
	}
	sp := s.tr.Spoken()
	s.queue(sp.Combination(game.Combination{Symbol: sym, Count: n}) + ".")
}

// voiceAutoCountdown says the countdown to Auto of a Jouer game left idle
// as it appears: a touch of the field or any key keeps the game.
func (s *Screens) voiceAutoCountdown(secs int) {
	if !s.voice.on {
		return // called in a frame
	}
	s.queue(s.tr.F(msgSayAutoIn, s.tr.spokenCount(secs, msgSaySecond, msgSaySeconds)))
}

// voiceTimeWarning says a timeout's warning as its strip appears.
func (s *Screens) voiceTimeWarning(secs int) {
	if !s.voice.on {
		return
	}
	k := msgSayTimeHome
	if s.overlay == ovPrizeTable {
		k = msgSayTimeCloses
	}
	s.queue(s.tr.F(k, s.tr.spokenCount(secs, msgSaySecond, msgSaySeconds)) + " " + s.tr.T(msgSayMoreTime))
}

// spokenTexts builds what build makes with a Tr that speaks and reads its
// texts in order, a paragraph's lines (para) joined into its sentence,
// each text ended as a sentence, then the buttons.
func (s *Screens) spokenTexts(build func(view) fyne.CanvasObject) string {
	if !s.sized() {
		return ""
	}
	var obj fyne.CanvasObject
	s.withSpoken(func() { obj = build(s.v) })
	var texts, buttons []string
	var last *canvas.Text // the text read last, which the next may continue
	walkTexts(obj, func(t *canvas.Text) {
		line := s.speakable(strings.TrimSpace(t.Text))
		if last != nil && continues(last, t) && len(texts) > 0 {
			texts[len(texts)-1] += " " + line
		} else {
			texts = append(texts, line)
		}
		last = t
	}, func(b string) { buttons = append(buttons, s.speakable(b)) })
	said := texts[:0]
	for _, t := range texts {
		if strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			said = append(said, sentence(t)) // not a dash standing for nothing
		}
	}
	texts = said
	if len(buttons) > 0 {
		texts = append(texts, s.tr.F(msgSayButtons, s.tr.list(buttons, msgListOr)))
	}
	return strings.Join(texts, " ")
}

// withSpoken runs f with the screens' catalogue speaking (Tr.Spoken): what
// f builds or writes has its amounts, durations and dates in words.
func (s *Screens) withSpoken(f func()) {
	tr := s.tr
	s.tr = tr.Spoken()
	defer func() { s.tr = tr }()
	f()
}

// continues reports whether b is the line after a in a paragraph
// (view.para): the same size and style, the same left edge, one line
// below.
func continues(a, b *canvas.Text) bool {
	dy := b.Position().Y - a.Position().Y
	return a.TextSize == b.TextSize && a.TextStyle == b.TextStyle && a.Alignment == b.Alignment &&
		a.Position().X == b.Position().X && dy > 0 && dy <= 1.6*a.TextSize
}

// walkTexts calls text for each text of o and what it holds, in order,
// and button for each button's label; hidden objects are not read.
func walkTexts(o fyne.CanvasObject, text func(*canvas.Text), button func(string)) {
	if o == nil || !o.Visible() {
		return
	}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkTexts(c, text, button)
		}
	case *container.Scroll: // the history's rows
		walkTexts(x.Content, text, button)
	case *canvas.Text:
		if strings.TrimSpace(x.Text) != "" {
			text(x)
		}
	case *touch.Button:
		if t := strings.TrimSpace(x.Text); t != "" {
			button(t)
		}
	}
}

// maskedDigits is a validation number masked but for its last digits
// (kiosk.MaskValidation: "•••• •••• •••• 1234").
var maskedDigits = regexp.MustCompile(`(?:•+ ?)+(\d[\d ]*\d|\d)`)

// speakable rewrites what the voice would misread in a text written for
// the eye: "N°" is "numéro", a masked validation number is its last
// digits one by one.
func (s *Screens) speakable(t string) string {
	n := s.tr.T(msgSayNumber) + " "
	t = strings.NewReplacer("N°\u00a0", n, "N° ", n, "n°\u00a0", n, "n° ", n, "no.\u00a0", n, "no. ", n).Replace(t)
	return maskedDigits.ReplaceAllStringFunc(t, func(m string) string {
		digits := strings.ReplaceAll(maskedDigits.FindStringSubmatch(m)[1], " ", "")
		return s.tr.F(msgSayEndingIn, strings.Join(strings.Split(digits, ""), " "))
	})
}

// sentence ends t with a full stop unless it ends already (the voice pauses
// there).
func sentence(t string) string {
	t = strings.TrimSpace(t)
	if t == "" {
		return ""
	}
	switch t[len(t)-1] {
	case '.', '!', '?', ':', ')':
		return t
	}
	if strings.HasSuffix(t, "…") {
		return t
	}
	return t + "."
}

// buildVoiceButtons are « Aa » (the large-text mode, large.go) and
// « Voix » on the home screen, top left beside the maintenance corner, and
// once the voice is on its volume and « – » « + ».
func (s *Screens) buildVoiceButtons(v view) []fyne.CanvasObject {
	// x, y, h: the row; aa, w, side: the widths of « Aa », « Voix » and
	// of « – » « + ».
	x, y, h, aa, w, side, gap := float32(140), float32(56), minTouch, float32(60), float32(150), float32(54), float32(6)
	if v.large {
		y, h, aa, w, side = largeTopY, largeTopH, 80, 200, 62
	}
	objs := []fyne.CanvasObject{s.largeButton(v, x, y, aa, h)}
	x += aa + gap
	if !s.voiceAvailable() {
		return objs
	}
	if !s.voice.on {
		return append(objs, v.button(s.tr.T(msgVoice), buttonQuiet, 20, s.toggleVoice, x, y, w, h))
	}
	return append(objs,
		v.button(s.tr.F(msgVoiceVolume, s.opt.Voice.Volume()), buttonChosen, 20, s.toggleVoice, x, y, w, h),
		v.button(volumeDown, buttonQuiet, 26, func() { s.changeVolume(-volumeStep) }, x+w+gap, y, side, h),
		v.button(volumeUp, buttonQuiet, 26, func() { s.changeVolume(volumeStep) }, x+w+gap+side+gap, y, side, h),
	)
}
