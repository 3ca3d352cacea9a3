package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/speech"
	"pharaon/store"
)

// heardVoice is the tests' voice: it keeps what the screens gave it to
// say, and how (Say: in place of what was said; Queue: after it).
type heardVoice struct {
	mu     sync.Mutex
	said   []string // "say: …" or "queue: …"
	langs  []speech.Lang
	volume int
	stops  int
}

func (v *heardVoice) add(how string, u speech.Utterance) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.said = append(v.said, how+": "+u.Text)
	v.langs = append(v.langs, u.Lang)
}
func (v *heardVoice) Say(u speech.Utterance)   { v.add("say", u) }
func (v *heardVoice) Queue(u speech.Utterance) { v.add("queue", u) }
func (v *heardVoice) Stop()                    { v.mu.Lock(); v.stops++; v.mu.Unlock() }
func (v *heardVoice) SetVolume(n int)          { v.mu.Lock(); v.volume = n; v.mu.Unlock() }
func (v *heardVoice) Volume() int              { v.mu.Lock(); defer v.mu.Unlock(); return v.volume }

// since is what was said from the n-th sentence on.
func (v *heardVoice) since(n int) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.said[n:]...)
}

func (v *heardVoice) count() int { v.mu.Lock(); defer v.mu.Unlock(); return len(v.said) }

// withVoice gives the screens the tests' voice.
func withVoice(v *heardVoice) fixtureOption {
	return func(f *scrFixture, _ *kiosk.Config) {
		v.volume = speech.DefaultVolume
		f.opt.Voice = v
	}
}

// newVoiced is a kiosk with credit whose player turned the voice on.
func newVoiced(t *testing.T, credit game.Money) (*scrFixture, *heardVoice) {
	t.Helper()
	v := &heardVoice{}
	f := newScrFixture(t, withVoice(v))
	f.credit(credit)
	f.tap("Voix")
	return f, v
}

// said reports whether one of lines holds want.
func said(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}

func TestVoiceSpeaksAPlayersSession(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withDevices(nil), withVoice(v))

	// Off until the player turns it on: a note is shown, not said.
	f.insertNote(20 * game.Euro)
	assert.Zero(t, v.count(), "the voice is off until the player turns it on")

	f.tap("Voix")
	require.True(t, f.s.voice.on)
	lines := v.since(0)
	require.Len(t, lines, 1)
	assert.Equal(t, "say: Voix activée, volume 70. Les boutons plus et moins à côté de Voix règlent le volume. "+
		"Accueil. Crédit\u00a0: vingt euros. Session\u00a0: moins d’une minute, bilan\u00a0: zéro euro. Mise choisie\u00a0: cinquante centimes. "+
		"Touchez Jouer pour casser les briques vous-même, ou Auto pour que le jeu les casse pour vous. "+
		"Encaisser imprime un bon de paiement de votre crédit.", lines[0])
	assert.NotNil(t, f.button("Voix\u00a070\u00a0%"), "the button shows the voice is on, with its volume")

	// The volume, louder and softer, said and shown.
	f.tap("+")
	assert.Equal(t, 80, v.Volume())
	assert.Equal(t, []string{"say: Volume 80."}, v.since(1))
	assert.NotNil(t, f.button("Voix\u00a080\u00a0%"))
	f.tap("–")
	assert.Equal(t, 70, v.Volume())

	// A note: what the toast shows, amounts in words.
	n := v.count()
	f.panelTap(fr(10 * game.Euro))
	f.waitFor(func() bool { return f.s.snap.Credit == 30*game.Euro }, "the note credited")
	assert.Contains(t, v.since(n), "queue: Billet de dix euros accepté. Crédit\u00a0: trente euros.")

	// The stake, then the game.
	n = v.count()
	f.tap(fr(game.Stake100.Money()))
	assert.Equal(t, []string{"say: Mise choisie\u00a0: un euro."}, v.since(n))
	f.tap(fr(game.Stake050.Money()))
	n = v.count()
	f.tap("Auto")
	assert.Equal(t, "say: Partie à cinquante centimes, en mode Auto. Crédit restant\u00a0: vingt-neuf euros et cinquante centimes.",
		v.since(n)[0])

	// Each symbol as it lands, with its count; the scenario's first
	// 0,50 € unit loses, and that is said without a congratulation.
	n = v.count()
	f.playToEnd(false)
	g := f.game()
	landed := 0
	for _, c := range g.Revealed() {
		landed += c
	}
	var landings []string
	for _, l := range v.since(n) {
		if strings.HasPrefix(l, "queue: ") {
			landings = append(landings, l)
		}
	}
	assert.Len(t, landings, landed, "one sentence a symbol landed: %q", landings)
	rev := g.Revealed()
	for sym, c := range rev {
		if c > 0 {
			assert.Contains(t, landings, "queue: "+Tr{Lang: French}.Combination(game.Combination{Symbol: game.Symbol(sym), Count: c})+".")
		}
	}
	end := v.since(n)
	assert.Equal(t, "say: Pas de gain cette fois. Boutons\u00a0: Rejouer cinquante centimes ou Accueil.", end[len(end)-1])

	// Home, then the cash-out and its voucher.
	f.tap("Accueil")
	assert.True(t, said(v.since(n), "say: Accueil. Crédit\u00a0: vingt-neuf euros et cinquante centimes."))
	n = v.count()
	f.tap("Encaisser")
	assert.Equal(t, []string{"say: Encaisser vingt-neuf euros et cinquante centimes\u00a0? Un bon de paiement va être imprimé. Boutons\u00a0: Annuler ou Imprimer."}, v.since(n))
	f.tap("Imprimer")
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")
	vo, err := f.st.Voucher(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, store.VoucherPrinted, vo.State)
	voucher := v.since(n)
	last := voucher[len(voucher)-1]
	assert.True(t, strings.HasPrefix(last, "say: Prenez votre bon."), last)
	assert.Contains(t, last, vo.Amount.FrenchWords(), "the amount said is the voucher's")
	assert.NotContains(t, last, vo.Validation, "never the whole validation number")
	digits := vo.Validation[len(vo.Validation)-4:]
	assert.Contains(t, last, "Bon de paiement numéro 000001.")
	assert.Contains(t, last, "numéro de validation se terminant par "+strings.Join(strings.Split(digits, ""), " ")+".",
		"the last four digits, one by one, as the card shows them")
	assert.Contains(t, last, "Valable jusqu’au 29 janvier 2027 à 11 heures.", "60 days, as the card says it")

	// The session is over: the voice with it.
	assert.False(t, f.s.voice.on, "the voice ends with the session")
	n = v.count()
	f.tap("Terminé")
	f.insertNote(5 * game.Euro)
	assert.Empty(t, v.since(n), "nothing said for the next player")
	assert.NotNil(t, f.button("Voix"), "« Voix » is off again")

	// The next player who turns it on starts at the kiosk's volume,
	// not at the last player's.
	f.tap("Voix")
	f.tap("+")
	f.tap("+")
	require.Equal(t, 90, v.Volume())
	f.tap("Voix\u00a090\u00a0%")
	assert.False(t, f.s.voice.on)
	f.tap("Voix")
	assert.Equal(t, 70, v.Volume(), "the volume is reset for each session")
}

func TestVoiceSpeaksEnglish(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withDevices(nil), withVoice(v))
	f.insertNote(20 * game.Euro)
	f.tap("EN")
	f.tap("Voice")
	require.True(t, said(v.since(0), "Home screen. Credit: twenty euros. Session: less than a minute, net: zero euros. Stake chosen: fifty cents."), "%q", v.since(0))
	n := v.count()
	f.panelTap(f.s.tr.Money(10 * game.Euro))
	f.waitFor(func() bool { return f.s.snap.Credit == 30*game.Euro }, "the note credited")
	assert.Contains(t, v.since(n), "queue: ten euros note accepted. Credit: thirty euros.")
	v.mu.Lock()
	for _, l := range v.langs {
		assert.Equal(t, speech.English, l)
	}
	v.mu.Unlock()

	// Back to French: the screen is said again, in French.
	n = v.count()
	f.tap("FR")
	assert.True(t, said(v.since(n), "say: Accueil. Crédit\u00a0: trente euros."), "%q", v.since(n))
}

func TestVoiceSaysTheCreditedBonusPrize(t *testing.T) {
	f, v := newVoiced(t, 5*game.Euro)
	f.tap(fr(game.Stake200.Money()))
	f.tap("Jouer")
	assert.True(t, said(v.since(0), "say: Partie à deux euros, en mode Jouer. Crédit restant\u00a0: trois euros. Touchez la balle pour la lancer."), "%q", v.since(0))
	g := f.game()
	n := v.count()
	f.playToEnd(true)
	res := g.Result()
	require.Equal(t, game.Bonus, res.Outcome.Kind)
	lines := v.since(n)
	assert.Contains(t, lines, "queue: 3 serpents.", "the third snake said as it lands")
	assert.True(t, said(lines, "say: Jeu Bonus\u00a0!"), "the bonus intro is said: %q", lines)
	bonus := lines[len(lines)-1]
	assert.True(t, strings.HasPrefix(bonus, "say: Jeu Bonus\u00a0: félicitations\u00a0!"), bonus)
	assert.Contains(t, bonus, "votre gain au Jeu Bonus. "+res.Won.FrenchWords()+".", "the prize said is the prize credited")
	n = v.count()
	f.tap("Continuer")
	assert.Contains(t, v.since(n)[0], "montant total de votre gain. "+res.Won.FrenchWords()+".")
	assert.True(t, f.s.voice.on, "credit is left: the session goes on")
}

func TestVoiceSaysATimeoutAndMoreTime(t *testing.T) {
	f, v := newVoiced(t, 5*game.Euro)
	f.tap("Historique")
	require.True(t, said(v.since(0), "say: Vos parties"), "the history is said: %q", v.since(0))
	n := v.count()
	f.clock.Advance(f.s.opt.HistoryTimeout - timeWarning)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, []string{"queue: Retour à l’accueil dans 10 secondes. Touchez Plus de temps pour rester."}, v.since(n),
		"said once as the strip appears, not at each second")
	f.clock.Advance(timeWarning / 2)
	f.s.Poll(f.clock.Now())
	assert.Len(t, v.since(n), 1)
}

func TestNoVoiceNoButton(t *testing.T) {
	f := newScrFixture(t)
	assert.Nil(t, f.button("Voix"), "a kiosk without a voice shows no « Voix »")
}

func TestSpokenAmountsAndDurations(t *testing.T) {
	fr, en := Tr{Lang: French}.Spoken(), Tr{Lang: English}.Spoken()
	assert.Equal(t, "trois mille sept cent cinquante euros", fr.Money(375000))
	assert.Equal(t, "three thousand seven hundred and fifty euros", en.Money(375000))
	assert.Equal(t, "gain de deux euros et cinquante centimes", fr.Net(250))
	assert.Equal(t, "down four euros and fifty cents", en.Net(-450))
	assert.Equal(t, "moins d’une minute", fr.Duration(30e9))
	assert.Equal(t, "une heure et 5 minutes", fr.Duration(65*60e9))
	assert.Equal(t, "2 hours and one minute", en.Duration(121*60e9))
	assert.Equal(t, "3\u00a0750\u00a0€", Tr{Lang: French}.Money(375000), "the screens still write amounts")
	at := time.Date(2027, 1, 29, 11, 30, 0, 0, time.UTC)
	assert.Equal(t, "29 janvier 2027 à 11 heures 30", fr.Expiry(at))
	assert.Equal(t, "29 January 2027 at 11:30", en.Expiry(at))
	assert.Equal(t, "29/01/2027 à 11:30", Tr{Lang: French}.Expiry(at))
}

// The history is said row by row, its dates and amounts in words.
func TestVoiceSaysTheHistory(t *testing.T) {
	f, v := newVoiced(t, 5*game.Euro)
	f.tap("Auto")
	f.playToEnd(false)
	f.tap("Accueil")
	f.tap("Historique")
	assert.Equal(t, "say: Vos parties depuis 11:00. La dernière partie en premier. Date. Mise. Mode. Résultat. Gain. "+
		"30 novembre 2026 à 11 heures. dernière. cinquante centimes. Auto. perdante. Boutons\u00a0: Retour.", v.lastSaid())
}

// Headphones plugged in turn the voice on, from the attract loop too.
func TestVoiceHeadphonesIn(t *testing.T) {
	v := &heardVoice{}
	f := newScrFixture(t, withVoice(v))
	f.clock.Advance(f.s.opt.AttractAfter)
	f.s.Poll(f.clock.Now())
	require.Equal(t, scrAttract, f.s.screen)
	assert.Zero(t, v.count(), "the attract loop says nothing")

	f.runUI(f.s.HeadphonesIn)
	assert.Equal(t, scrHome, f.s.screen)
	assert.True(t, f.s.voice.on)
	assert.True(t, strings.HasPrefix(v.lastSaid(), "say: Voix activée"), v.lastSaid())
	n := v.count()
	f.runUI(f.s.HeadphonesIn)
	assert.Equal(t, n, v.count(), "plugged in again: nothing more")
}

// « Aa » is said by its name, and its change is said.
func TestVoiceSaysTheLargeTextButton(t *testing.T) {
	f, heard := newVoiced(t, 10*game.Euro)
	assert.Equal(t, "Grands caractères, bouton.", f.s.buttonSpoken(f.button("Aa")), "its name, not « Aa »")
	n := heard.count()
	f.tap("Aa")
	require.True(t, f.s.large.on)
	assert.True(t, said(heard.since(n), "Grands caractères activés."), "%q", heard.since(n))
}
