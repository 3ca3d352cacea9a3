package ui

import (
	"image/color"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/play"
	"pharaon/kiosk/ui/touch"
)

// A keypad drives the player's screens for whoever cannot use the touch
// screen: a USB numeric keypad, or an ATM-style one (arrows, OK, back,
// help), whose keys reach the window as keyboard keys. The first key
// pressed turns the voice on (voice.go) and says the screen; from then
// on the keys move a focus through the buttons of what shows (the window
// or card over the screen, else the screen, and the strip of a timeout),
// each said as the focus reaches it, and press the one focused. The
// focus is a gold ring around the button, for a player who sees a
// little. Every button of the player's screens is reachable: the stakes,
// Jouer and Auto, Historique, Encaisser and its confirmation, « Ma
// limite » and its card, the language, the windows of a game's end, the
// reality check, « Plus de temps ».
//
// The keys (a numeric keypad's digits are its arrows):
//
//	8 ↑  4 ←   the button before        2 ↓  6 →   the button after
//	5  Entrée  press the button         Échap  ⌫  back (Fermer, Annuler, Retour…)
//	0  F1  ?   help: the rules and the prize table of the stake
//	1          say the screen again      7  −  9  +  the volume
//
// In a Jouer wall, 4 ← and 6 → move the paddle a tenth of the field (a key
// held repeats), 5 launches the ball waiting on it (or presses « Finir en
// Auto » once the focus is on it), and 1 says where the ball is against
// the paddle; with the voice on, each time the ball turns down it says on
// which side of the paddle (playBall).

// keyAction is what a key asks.
type keyAction uint8

const (
	keyNone keyAction = iota
	keyPrev
	keyNext
	keyLeft  // the button before, or in a Jouer wall the paddle left
	keyRight // the button after, or in a Jouer wall the paddle right
	keyPress
	keyBack
	keyHelp
	keyRepeat
	keySofter
	keyLouder
)

// keyActions are the keys' names (fyne.KeyName: a numeric keypad's
// digits come as the digits).
var keyActions = map[fyne.KeyName]keyAction{
	fyne.Key8: keyPrev, fyne.KeyUp: keyPrev, fyne.Key4: keyLeft, fyne.KeyLeft: keyLeft,
	fyne.Key2: keyNext, fyne.KeyDown: keyNext, fyne.Key6: keyRight, fyne.KeyRight: keyRight, fyne.KeyTab: keyNext,
	fyne.Key5: keyPress, fyne.KeyReturn: keyPress, fyne.KeyEnter: keyPress, fyne.KeySpace: keyPress,
	fyne.KeyEscape: keyBack, fyne.KeyBackspace: keyBack, fyne.KeyDelete: keyBack,
	fyne.Key0: keyHelp, fyne.KeyF1: keyHelp,
	fyne.Key1: keyRepeat,
	fyne.Key7: keySofter, fyne.Key9: keyLouder,
}

// runeActions are the keys known by their character only (a keypad's
// + and −, which have no key name).
var runeActions = map[rune]keyAction{'+': keyLouder, '-': keySofter, '?': keyHelp}

// TypedKey is a key of the keypad (the window's canvas's OnTypedKey).
func (s *Screens) TypedKey(ev *fyne.KeyEvent) {
	if ev != nil {
		s.key(keyActions[ev.Name])
	}
}

// TypedRune is a character typed (the window's canvas's OnTypedRune).
func (s *Screens) TypedRune(r rune) { s.key(runeActions[r]) }

// key does what a key asks.
func (s *Screens) key(a keyAction) {
	if a == keyNone || !s.started || s.screen == scrNone {
		return
	}
	if s.screen == scrAttract {
		s.activity()
		s.showHome() // a key wakes the kiosk as a touch does
	}
	if !s.focus.used {
		// The first key: the keys are in use (the ring shows) and the
		// voice comes on and says where the player is.
		s.focus.used = true
		if !s.voice.on && s.voiceAvailable() {
			s.toggleVoice()
			return
		}
	}
	s.activity()
	if s.inJouerWall() {
		if s.playKey(a) {
			return
		}
		// Any key is the player there: a Jouer wall left idle does not
		// go to Auto (the countdown said a key keeps it).
		s.gs.Playfield().Nudge()
	}
	switch a {
	case keyPrev, keyNext, keyLeft, keyRight:
		s.moveFocus(a == keyNext || a == keyRight)
	case keyPress:
		if b := s.focused(); b != nil {
			if b.Disabled() {
				s.say(s.buttonSpoken(b))
				return
			}
			b.Tapped(nil)
		}
	case keyBack:
		s.keyBack()
	case keyHelp:
		if s.voice.on {
			s.say(s.help())
		}
	case keyRepeat:
		if s.voice.on {
			s.say(s.describe())
		}
	case keySofter:
		s.changeVolume(-volumeStep)
	case keyLouder:
		s.changeVolume(volumeStep)
	}
}

// inJouerWall reports whether a Jouer wall is in play on the game screen,
// nothing over it.
func (s *Screens) inJouerWall() bool {
	w := s.gs.Playfield().World()
	return s.screen == scrGame && s.gameRunning() && s.overlay == ovNone &&
		w != nil && w.Mode() == breakout.Play && !w.Done()
}

// playKey is a key in a Jouer wall: the paddle, the ball's launch, where
// the ball is; false for the keys that do there what they do elsewhere.
func (s *Screens) playKey(a keyAction) bool {
	pf := s.gs.Playfield()
	switch a {
	case keyLeft, keyRight:
		dir := 1
		if a == keyLeft {
			dir = -1
		}
		pf.StepPaddle(dir)
		return true
	case keyPress:
		if s.focused() != nil {
			return false // « Finir en Auto », reached with 2 or 8
		}
		pf.LaunchKey()
		return true
	case keyRepeat:
		if s.voice.on {
			w := pf.World()
			s.say(s.tr.Spoken().T(ballSideWords[play.BallSideOf(w.Ball(), w.Paddle())+1]))
		}
		return true
	}
	return false
}

// ballSideWords say where the ball is against the paddle, by
// play.BallSide+1.
var ballSideWords = [...]msg{msgSayBallLeft, msgSayBallAbove, msgSayBallRight}

// playBall is the game screen's OnBallDown: the voice says on which side
// of the paddle the ball comes down, in place of what it was saying.
func (s *Screens) playBall(side play.BallSide) {
	if !s.voice.on {
		return // called in a frame: nothing is written for no one
	}
	s.say(s.tr.Spoken().T(ballDownWords[side+1]))
}

// ballDownWords are the short words of playBall, by play.BallSide+1.
var ballDownWords = [...]msg{msgSayDownLeft, msgSayDownAbove, msgSayDownRight}

// focusState is the keypad's focus: the button it is on, by its place
// among the buttons of what shows.
type focusState struct {
	used  bool // a key was pressed in this session: the ring shows
	index int  // -1: none yet
	ring  *canvas.Rectangle
}

// placed is a button and where it is in the window.
type placed struct {
	b  *touch.Button
	at fyne.Position
}

// buttons are the buttons of what shows, in reading order (row by row
// from the top, each row from the left): the window or card over the
// screen (if any), else the screen; then the strip of a timeout, so that
// « Plus de temps » is one key away from the end.
func (s *Screens) buttons() []placed {
	var bs []placed
	add := func(b *touch.Button, p fyne.Position) { bs = append(bs, placed{b, p}) }
	if s.overlay != ovNone && len(s.ovBox.Objects) > 0 {
		walkButtons(s.ovBox, fyne.Position{}, add)
	} else {
		walkButtons(s.scrBox, fyne.Position{}, add)
	}
	row := minTouch / 2 * s.v.k
	sort.SliceStable(bs, func(i, j int) bool {
		a, b := bs[i].at, bs[j].at
		if d := a.Y - b.Y; d < -row || d > row {
			return a.Y < b.Y
		}
		return a.X < b.X
	})
	walkButtons(s.timeBox, fyne.Position{}, add)
	return bs
}

// walkButtons calls f for each visible button under o, with its position
// in the window (pos is o's parent's).
func walkButtons(o fyne.CanvasObject, pos fyne.Position, f func(*touch.Button, fyne.Position)) {
	if o == nil || !o.Visible() {
		return
	}
	p := pos.Add(o.Position())
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkButtons(c, p, f)
		}
	case *container.Scroll:
		walkButtons(x.Content, p.Add(fyne.NewPos(-x.Offset.X, -x.Offset.Y)), f)
	case *touch.Button:
		f(x, p)
	}
}

// focused is the button the focus is on, nil when none.
func (s *Screens) focused() *touch.Button {
	bs := s.buttons()
	if s.focus.index < 0 || s.focus.index >= len(bs) {
		return nil
	}
	return bs[s.focus.index].b
}

// moveFocus moves the focus to the next button (or the one before), round
// the screen, and says it.
func (s *Screens) moveFocus(next bool) {
	bs := s.buttons()
	if len(bs) == 0 {
		s.say(s.describe())
		return
	}
	i := s.focus.index
	switch {
	case i < 0 || i >= len(bs):
		i = 0
		if !next {
			i = len(bs) - 1
		}
	case next:
		i = (i + 1) % len(bs)
	default:
		i = (i + len(bs) - 1) % len(bs)
	}
	s.focus.index = i
	s.showFocus()
	s.say(s.buttonSpoken(bs[i].b))
}

// buttonSpoken says a button: its label, its caption, and whether it
// can be pressed.
func (s *Screens) buttonSpoken(b *touch.Button) string {
	sp := s.tr.Spoken()
	text := s.speakable(b.Text)
	switch b.Text {
	case volumeDown:
		text = sp.T(msgSaySofter)
	case volumeUp:
		text = sp.T(msgSayLouder)
	case sp.T(msgLangFR):
		text = sp.T(msgSayFrench)
	case sp.T(msgLangEN):
		text = sp.T(msgSayEnglish)
	case largeLabel:
		text = sp.T(msgLargeText)
	}
	if st, ok := s.stakeOf(b); ok {
		text = sp.Stake(st) // "1 €" said "un euro"
		if s.stake == st {
			text = sp.F(msgSayChosen, text)
		}
	}
	if b.Caption != "" {
		text += ", " + s.speakable(b.Caption)
	}
	if b.Disabled() {
		return sp.F(msgSayButtonOff, text)
	}
	return sp.F(msgSayButton, text)
}

// stakeOf is the stake a home screen's stake button stands for.
func (s *Screens) stakeOf(b *touch.Button) (game.Stake, bool) {
	if s.screen != scrHome || s.overlay != ovNone {
		return 0, false
	}
	for _, st := range game.Stakes {
		if b.Text == s.tr.Stake(st) {
			return st, true
		}
	}
	return 0, false
}

// keyBack is « back »: the button that closes what shows (Fermer,
// Annuler, Terminé, Retour, Accueil), else the screen said again.
func (s *Screens) keyBack() {
	bs := s.buttons()
	for _, k := range []msg{msgClose, msgCancel, msgDone, msgBack, msgHome} {
		for _, p := range bs {
			if p.b.Text == s.tr.T(k) && !p.b.Disabled() {
				p.b.Tapped(nil)
				return
			}
		}
	}
	s.say(s.describe())
}

// help is what the help key says: on home, the rules with the prize
// table of the stake chosen; in a game, its stake's prize table; else
// the screen again.
func (s *Screens) help() string {
	switch {
	case s.screen == scrHome && s.overlay == ovNone:
		return s.spokenTexts(func(v view) fyne.CanvasObject {
			return container.NewWithoutLayout(s.buildRules(v)...)
		})
	case s.screen == scrGame && s.game != nil:
		table := s.spokenTexts(func(v view) fyne.CanvasObject { return s.buildPrizeTable(v, s.game.Stake()) })
		if s.inJouerWall() {
			return s.tr.Spoken().T(msgSayJouerKeys) + " " + table
		}
		return table
	}
	return s.describe()
}

// focusRingWidth is the width of the ring around the button focused, in
// design units.
const focusRingWidth = 5

// showFocus draws the ring around the button focused, or takes it away.
// Without a key pressed in the session there is none, and nothing to walk.
func (s *Screens) showFocus() {
	var bs []placed
	if s.focus.used && s.focus.index >= 0 {
		bs = s.buttons()
	}
	i := s.focus.index
	if i < 0 || i >= len(bs) {
		if len(s.focusBox.Objects) > 0 {
			s.focusBox.Objects = nil
			s.focusBox.Refresh()
		}
		return
	}
	if s.focus.ring == nil {
		s.focus.ring = canvas.NewRectangle(color.Transparent)
	}
	r, b := s.focus.ring, bs[i].b
	r.StrokeColor = art.GoldLight
	w := focusRingWidth * s.v.k
	if s.v.large {
		// white and wider, against the gold rims of the mode's buttons
		r.StrokeColor, w = art.ContrastWhite, w*largeScale
	}
	r.StrokeWidth = w
	r.CornerRadius = b.Radius + w
	r.Move(bs[i].at.Subtract(fyne.NewPos(w*1.5, w*1.5)))
	r.Resize(b.Size().Add(fyne.NewSize(w*3, w*3)))
	s.focusBox.Objects = []fyne.CanvasObject{r}
	s.focusBox.Refresh()
}

// resetFocus: a new screen or window; the focus starts again from its
// first button.
func (s *Screens) resetFocus() {
	s.focus.index = -1
	s.showFocus()
}
