package speech

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// fakeEnv makes the test binary a stand-in synthesiser: it writes its
// options and the text it read in the file named, "done TEXT" once it has
// "said" it, and takes 10 s over a text that starts with "long".
const fakeEnv = "PHARAON_TEST_FAKE_SPEECH"

func TestMain(m *testing.M) {
	if log := os.Getenv(fakeEnv); log != "" {
		fakeSynthesiser(log)
		return
	}
	os.Exit(m.Run())
}

func fakeSynthesiser(log string) {
	text, _ := io.ReadAll(os.Stdin)
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		os.Exit(1)
	}
	fmt.Fprintf(f, "say %s|%s\n", strings.Join(os.Args[1:], " "), text)
	if strings.HasPrefix(string(text), "nice") {
		// The program's priority from its first instruction.
		prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
		fmt.Fprintf(f, "nice %d\n", 20-prio) // the kernel's value, as Linux's getpriority returns it
	}
	if strings.HasPrefix(string(text), "long") {
		time.Sleep(10 * time.Second)
	}
	if strings.HasPrefix(string(text), "fail") {
		fmt.Fprintln(os.Stderr, "no audio device")
		os.Exit(1)
	}
	fmt.Fprintf(f, "done %s\n", text)
	f.Close()
	os.Exit(0)
}

// fake is a Speaker on the stand-in synthesiser, with what it said
// (Options.Spoken) and what the program did (its log).
type fake struct {
	*Speaker
	log    string
	mu     sync.Mutex
	spoken []Utterance
	logged []string
}

func newFake(t *testing.T, opt Options) *fake {
	t.Helper()
	f := &fake{log: filepath.Join(t.TempDir(), "said")}
	t.Setenv(fakeEnv, f.log)
	opt.Program = os.Args[0]
	opt.Spoken = func(u Utterance) { f.mu.Lock(); f.spoken = append(f.spoken, u); f.mu.Unlock() }
	opt.Logf = func(format string, args ...any) {
		f.mu.Lock()
		f.logged = append(f.logged, fmt.Sprintf(format, args...))
		f.mu.Unlock()
	}
	f.Speaker = New(opt)
	t.Cleanup(f.Close)
	return f
}

// lines is the program's log so far.
func (f *fake) lines() []string {
	b, _ := os.ReadFile(f.log)
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func (f *fake) waitLine(t *testing.T, line string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, l := range f.lines() {
			if l == line {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "no %q in %q", line, f.lines())
}

// The voice of each language, the volume as espeak-ng's amplitude, the
// speed, the text on the program's standard input (a text that starts
// with a dash is not an option); a change on the same screen waits for
// what is being said.
func TestSpeakerSaysInTurnWithTheVoiceOfTheLanguage(t *testing.T) {
	f := newFake(t, Options{})
	f.Say(Utterance{French, "Crédit : 10 euros"})
	f.Queue(Utterance{English, "-5 euros is not an option"})
	f.waitLine(t, "done -5 euros is not an option")
	assert.Equal(t, []string{
		"say -v fr-fr -a 140 -s 160 --stdin|Crédit : 10 euros",
		"done Crédit : 10 euros",
		"say -v en-gb -a 140 -s 160 --stdin|-5 euros is not an option",
		"done -5 euros is not an option",
	}, f.lines())

	f.SetVolume(100)
	f.Say(Utterance{French, "plus fort"})
	f.waitLine(t, "done plus fort")
	assert.Contains(t, f.lines(), "say -v fr-fr -a 200 -s 160 --stdin|plus fort")
	f.SetVolume(250)
	assert.Equal(t, 100, f.Volume(), "at most 100")

	// Silence: nothing runs, and the record still says what was shown.
	f.SetVolume(0)
	f.Say(Utterance{French, "muet"})
	require.Eventually(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return len(f.spoken) == 4 }, 5*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	assert.NotContains(t, strings.Join(f.lines(), "\n"), "muet")
}

// A new screen stops what is being said at once and drops what waited:
// the player hears the screen they are on, not the ones before.
func TestSayInterruptsAndStopSilences(t *testing.T) {
	f := newFake(t, Options{})
	f.Say(Utterance{French, "long texte de l'écran d'accueil"})
	f.waitLine(t, "say -v fr-fr -a 140 -s 160 --stdin|long texte de l'écran d'accueil")
	f.Queue(Utterance{French, "jamais dit"})
	start := time.Now()
	f.Say(Utterance{French, "Partie en cours"})
	f.waitLine(t, "done Partie en cours")
	assert.Less(t, time.Since(start), 5*time.Second, "the long text was cut, not waited for")
	all := strings.Join(f.lines(), "\n")
	assert.NotContains(t, all, "done long texte")
	assert.NotContains(t, all, "jamais dit")

	f.Say(Utterance{English, "long again"})
	f.waitLine(t, "say -v en-gb -a 140 -s 160 --stdin|long again")
	f.Stop()
	f.Queue(Utterance{English, "after the stop"})
	f.waitLine(t, "done after the stop")
	assert.NotContains(t, strings.Join(f.lines(), "\n"), "done long again")
}

// Nothing the kiosk does waits for speech: a hundred calls return while
// the synthesiser is still on its first, ten-second utterance.
func TestCallsNeverWaitForSpeech(t *testing.T) {
	f := newFake(t, Options{})
	f.Say(Utterance{French, "long"})
	f.waitLine(t, "say -v fr-fr -a 140 -s 160 --stdin|long")
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		for i := range 100 {
			f.Queue(Utterance{French, fmt.Sprintf("change %d", i)})
			f.SetVolume(i % 100)
		}
		f.Say(Utterance{French, "écran"})
		f.Stop()
	}()
	select {
	case <-returned:
	case <-time.After(9 * time.Second):
		t.Fatal("the calls waited for the synthesiser")
	}
}

// A synthesiser that fails, or none at all, is said once in the log and
// nothing else changes: the next utterances are tried, and not said again.
func TestAFailingSynthesiserIsSaidOnce(t *testing.T) {
	f := newFake(t, Options{})
	f.Say(Utterance{French, "fail 1"})
	f.Queue(Utterance{French, "fail 2"})
	f.Queue(Utterance{French, "bien"})
	f.waitLine(t, "done bien")
	f.mu.Lock()
	logged := append([]string(nil), f.logged...)
	f.mu.Unlock()
	require.Len(t, logged, 1)
	assert.Contains(t, logged[0], "no audio device")

	var said []string
	s := New(Options{Program: filepath.Join(t.TempDir(), "no-espeak"), Logf: func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }})
	s.Say(Utterance{French, "rien"})
	s.Queue(Utterance{French, "toujours rien"})
	require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.pending) == 0 && s.cancel == nil }, 5*time.Second, 10*time.Millisecond)
	s.Close()
	require.Len(t, said, 1)
	assert.Contains(t, said[0], "no-espeak")
}

// The real espeak-ng (Debian's package; make deps installs it) speaks
// both languages with the voices named here, and the amounts as the
// voucher writes them in words (game.Money.FrenchWords): a WAV of some length
// for each.
func TestEspeakNGSpeaksBothLanguages(t *testing.T) {
	if _, err := exec.LookPath(DefaultProgram); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing: make deps installs it", DefaultProgram)
		}
		t.Skipf("%s missing (make deps installs it)", DefaultProgram)
	}
	wav := filepath.Join(t.TempDir(), "said.wav")
	var failed []string
	s := New(Options{WAV: wav, Logf: func(format string, args ...any) { failed = append(failed, fmt.Sprintf(format, args...)) }})
	defer s.Close()
	for _, u := range []Utterance{
		{French, "Vous avez gagné " + (3750 * game.Euro).FrenchWords() + "."},
		{English, "You won three thousand seven hundred and fifty euros."},
	} {
		if err := os.Remove(wav); err != nil {
			require.ErrorIs(t, err, os.ErrNotExist)
		}
		s.Say(u)
		require.Eventually(t, func() bool {
			fi, err := os.Stat(wav)
			return err == nil && fi.Size() > 44+16000 // a header and half a second at 16 kHz, 16 bits
		}, 20*time.Second, 20*time.Millisecond, "%q spoken", u.Text)
		require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.cancel == nil }, 20*time.Second, 10*time.Millisecond)
	}
	assert.Empty(t, failed)

	// Each voice reads its language as its own (espeak-ng's phonemes,
	// --ipa): the French voice says « cinquante euros » as French, not as
	// an English voice spells it out.
	ipa := func(l Lang, text string) string {
		cmd := exec.Command(DefaultProgram, "-v", voices[l], "-q", "--ipa", "--stdin")
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.Output()
		require.NoError(t, err)
		return string(out)
	}
	assert.Contains(t, ipa(French, (3750*game.Euro).FrenchWords()), "sɛ̃kˈɑ̃t øʁˈo")
	assert.NotContains(t, ipa(English, (3750*game.Euro).FrenchWords()), "sɛ̃kˈɑ̃t")
	assert.Contains(t, ipa(English, "three thousand"), "θˈaʊzənd")
}

// The synthesiser runs behind the game: a sentence synthesised must not
// take a frame's processor time on a kiosk's two cores.
func TestSynthesiserYieldsToTheGame(t *testing.T) {
	f := newFake(t, Options{})
	f.Say(Utterance{Lang: French, Text: "nice"})
	f.waitLine(t, "done nice")
	assert.Contains(t, f.lines(), fmt.Sprintf("nice %d", synthNice))
}
