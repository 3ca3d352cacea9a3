package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/speech"
	"pharaon/kiosk/ui/play"
)

// key presses a key of the keypad.
func (f *scrFixture) key(name fyne.KeyName) {
	f.t.Helper()
	f.runUI(func() { f.s.TypedKey(&fyne.KeyEvent{Name: name}) })
	f.inFlight.Wait() // a play asked for is answered
	f.flush()
}

// lastSaid is the last sentence the voice was given.
func (v *heardVoice) lastSaid() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.said) == 0 {
		return ""
	}
	return v.said[len(v.said)-1]
}

// focusOn moves the focus down until it says label, and checks the ring
// is around that button.
func (f *scrFixture) focusOn(v *heardVoice, label string) {
	f.t.Helper()
	for i := 0; i < 40; i++ {
		f.key(fyne.KeyDown)
		if said := v.lastSaid(); strings.HasPrefix(said, "say: "+label+", bouton") || strings.HasPrefix(said, "say: "+label+", button") {
			b := f.s.focused()
			require.NotNil(f.t, b)
			require.Len(f.t, f.s.focusBox.Objects, 1, "the ring shows")
			ring := f.s.focusBox.Objects[0]
			p := f.s.buttons()[f.s.focus.index].at
			assert.True(f.t, ring.Position().X < p.X && ring.Position().Y < p.Y &&
				ring.Position().X+ring.Size().Width > p.X+b.Size().Width &&
				ring.Position().Y+ring.Size().Height > p.Y+b.Size().Height, "the ring is around %q", label)
			return
		}
	}
	f.t.Fatalf("the focus never reached %q; last said: %q", label, v.lastSaid())
}

// A player who cannot see plays a whole session from the keypad: the
// first key turns the voice on, the arrows go through the buttons, each
// said, OK presses, back closes, help says the rules and the prizes.
func TestKeypadPlaysAWholeSession(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withDevices(nil), withVoice(v))
	f.insertNote(10 * game.Euro)
	require.Empty(t, f.s.focusBox.Objects)

	f.key(fyne.Key5)
	require.True(t, f.s.voice.on, "the first key turns the voice on")
	assert.Contains(t, v.lastSaid(), "Accueil. Crédit\u00a0: dix euros.")
	assert.Equal(t, kiosk.Home, f.m.Snapshot().State, "and does nothing else")

	// Help: the rules, with the combinations named and their prizes.
	f.key(fyne.Key0)
	help := v.lastSaid()
	assert.Contains(t, help, "Règle du jeu.")
	assert.Contains(t, help, "3 oiseaux. trois mille sept cent cinquante euros.")
	assert.Contains(t, help, "3 serpents. Jeu Bonus.")
	assert.Contains(t, help, "Envoyez la balle contre le mur de briques pour le détruire et faire apparaître", "a paragraph said whole, not line by line")

	// The stake chosen says so; a stake pressed becomes the one chosen.
	f.focusOn(v, "cinquante centimes, choisie")
	f.focusOn(v, "un euro")
	f.key(fyne.KeyReturn)
	assert.Equal(t, game.Stake100, f.s.stake)
	assert.Equal(t, "say: Mise choisie\u00a0: un euro.", v.lastSaid())
	f.focusOn(v, "cinquante centimes")
	f.key(fyne.Key5)
	require.Equal(t, game.Stake050, f.s.stake)

	// Auto: the game plays itself, and says its end.
	f.focusOn(v, "Auto")
	f.key(fyne.KeyEnter)
	require.NotNil(t, f.game(), "OK pressed Auto")
	f.playToEnd(false)
	assert.Contains(t, v.lastSaid(), "Pas de gain cette fois.")
	f.key(fyne.KeyEscape)
	require.Equal(t, scrHome, f.s.screen, "back pressed Accueil")

	// A button that cannot be pressed says so, and nothing happens.
	f.focusOn(v, "Encaisser")
	f.key(fyne.KeyEnter)
	require.Equal(t, ovCashConfirm, f.s.overlay)
	f.key(fyne.KeyDown)
	assert.Equal(t, "say: Annuler, bouton.", v.lastSaid(), "the focus starts again on the card")
	f.key(fyne.KeyBackspace)
	assert.Equal(t, ovNone, f.s.overlay, "back is Annuler")
	f.focusOn(v, "Encaisser")
	f.key(fyne.KeyEnter)
	f.focusOn(v, "Imprimer")
	f.key(fyne.KeyEnter)
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")
	assert.Contains(t, v.lastSaid(), "say: Prenez votre bon.")
	assert.False(t, f.s.voice.on, "the session is over")
	assert.Empty(t, f.s.focusBox.Objects, "the ring goes with it")
}

// The same session in English: the player who reads English badly hears
// it all in English, from the note to the voucher.
func TestKeypadPlaysAWholeSessionInEnglish(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withDevices(nil), withVoice(v), inEnglish())
	require.NoError(t, f.s.opt.Dev.InsertNote(10*game.Euro))
	f.waitFor(func() bool { return f.s.snap.Credit == 10*game.Euro }, "the note credited")
	f.expireToast()

	f.key(fyne.Key5)
	require.True(t, f.s.voice.on, "the first key turns the voice on")
	assert.Contains(t, v.lastSaid(), "Home screen. Credit: ten euros.")
	f.key(fyne.Key0)
	help := v.lastSaid()
	assert.Contains(t, help, "How to play.")
	assert.Contains(t, help, "three thousand seven hundred and fifty euros")

	f.focusOn(v, "one euro")
	f.key(fyne.KeyReturn)
	assert.Equal(t, "say: Stake chosen: one euro.", v.lastSaid())
	f.focusOn(v, "Auto")
	f.key(fyne.KeyEnter)
	require.NotNil(t, f.game(), "OK pressed Auto")
	f.playToEnd(false)
	f.endShown()
	assert.True(t, said(v.since(0), "Congratulations") || said(v.since(0), "No win this time."), "the end said: %q", v.since(0))
	f.key(fyne.KeyEscape)
	require.Equal(t, scrHome, f.s.screen, "back pressed Home")

	f.focusOn(v, "Cash out")
	f.key(fyne.KeyEnter)
	require.Equal(t, ovCashConfirm, f.s.overlay)
	f.focusOn(v, "Print")
	f.key(fyne.KeyEnter)
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")
	assert.Contains(t, v.lastSaid(), "say: Take your voucher.")
	v.mu.Lock()
	for _, l := range v.langs {
		assert.Equal(t, speech.English, l, "every sentence in English")
	}
	v.mu.Unlock()
	assert.False(t, f.s.voice.on, "the session is over")
}

func TestKeypadDisabledButtonAndVolume(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withVoice(v))
	f.key(fyne.KeyDown) // turns the voice on
	f.focusOn(v, "Moins fort")
	f.focusOn(v, "Anglais")
	f.focusOn(v, "Jouer")
	assert.Equal(t, "say: Jouer, bouton indisponible.", v.lastSaid(), "no credit: Jouer cannot be pressed")
	n := v.count()
	f.key(fyne.KeyReturn)
	assert.Equal(t, []string{"say: Jouer, bouton indisponible."}, v.since(n), "pressed, it says so again")
	assert.Nil(t, f.game())

	f.key(fyne.Key9)
	assert.Equal(t, 80, v.Volume())
	f.runUI(func() { f.s.TypedRune('-') })
	f.runUI(func() { f.s.TypedRune('-') })
	assert.Equal(t, 60, v.Volume())
	f.key(fyne.Key1)
	assert.Contains(t, v.lastSaid(), "say: Accueil.", "1 says the screen again")
}

// Without a voice (voice = off) the keys still drive the screens.
func TestKeypadWithoutVoice(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	for i := 0; i < 40 && (f.s.focused() == nil || f.s.focused().Text != "Auto"); i++ {
		f.key(fyne.KeyRight)
	}
	require.NotNil(t, f.s.focused())
	require.Equal(t, "Auto", f.s.focused().Text)
	assert.Len(t, f.s.focusBox.Objects, 1)
	f.key(fyne.KeyReturn)
	assert.NotNil(t, f.game())
}

// A Jouer wall left idle says its countdown to Auto, and a key keeps it
// in Jouer, as a touch does.
func TestKeypadKeepsAJouerWall(t *testing.T) {
	f, v := newVoiced(t, 5*game.Euro)
	f.tap("Jouer")
	w := f.s.gs.Playfield().World()
	require.Equal(t, breakout.Play, w.Mode())
	n := v.count()
	for i := 0; i < 240*60 && !said(v.since(n), "Le jeu passe en Auto"); i++ {
		f.frame()
	}
	require.Contains(t, v.since(n), "queue: Le jeu passe en Auto dans 10 secondes. Touchez le mur ou une touche pour continuer à jouer.")
	idle := w.Idle()
	require.Greater(t, idle, 0)
	f.key(fyne.KeyDown)
	f.frame()
	assert.Less(t, w.Idle(), idle, "the key was activity: the idle time starts again")
	assert.Equal(t, breakout.Play, w.Mode(), "still in Jouer")
}

// Jouer by keys: 4 and 6 move the paddle a tenth of the field, 5 launches
// the ball, the voice says on which side of the paddle the ball comes
// down, and 1 says where it is; the help says the keys.
func TestKeypadPlaysJouer(t *testing.T) {
	f, v := newVoiced(t, 5*game.Euro)
	f.tap("Jouer")
	w := f.s.gs.Playfield().World()
	require.Equal(t, breakout.Play, w.Mode())
	require.Equal(t, breakout.OnPaddle, w.Ball().Phase)
	start := w.Paddle().Target

	f.key(fyne.Key0)
	assert.Contains(t, v.lastSaid(), "Jouer au clavier\u00a0: 4 et 6 déplacent la raquette")
	f.key(fyne.Key6)
	f.frame()
	assert.Equal(t, start+play.PaddleStep, w.Paddle().Target, "6: a tenth of the field to the right")
	f.key(fyne.KeyLeft)
	f.key(fyne.Key4)
	f.frame()
	assert.Equal(t, start-play.PaddleStep, w.Paddle().Target, "two to the left")
	assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "the ball waits")

	f.key(fyne.Key5)
	f.frame()
	require.Equal(t, breakout.Flying, w.Ball().Phase, "5 launched the ball")
	n := v.count()
	for i := 0; i < 60*10 && !(w.Ball().VY > 0 && v.count() > n); i++ {
		f.frame()
	}
	require.Greater(t, v.count(), n, "the ball came down: said")
	side := play.BallSideOf(w.Ball(), w.Paddle())
	assert.Equal(t, "say: "+[...]string{"À gauche.", "Au-dessus.", "À droite."}[side+1], v.lastSaid())

	f.key(fyne.Key1)
	assert.Contains(t, []string{"say: La balle est à gauche de la raquette.", "say: La balle est au-dessus de la raquette.",
		"say: La balle est à droite de la raquette."}, v.lastSaid())
	assert.Equal(t, breakout.Play, w.Mode(), "still in Jouer")
}
