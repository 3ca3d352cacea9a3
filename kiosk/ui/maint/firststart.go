package maint

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
)

// The first start's guided sequence, after the setup's PINs and kiosk id
// (setup.go): the technician's PIN on the digit keypad, then each step of
// kiosk.FirstSteps in turn (the issuer keys found, the devices working, a
// block on sale, a test voucher printed and void), each saying what it checks, what
// it found and, when it fails, what to do. One button checks the step and
// goes on when it passes; the core stores the step reached, so a kiosk cut
// from its power shows this screen again at that step. The block step
// holds the blocks view (blocks.go) to import from the issuer's stick.
// A finger does it all.

// firstStarter is what the sequence asks of the core (*kiosk.Office).
type firstStarter interface {
	Login(ctx context.Context, pin string) (*kiosk.Session, error)
	FirstStart(ctx context.Context, s *kiosk.Session) (kiosk.FirstStep, error)
	PassFirstStep(ctx context.Context, s *kiosk.Session, step kiosk.FirstStep) (kiosk.FirstStep, kiosk.FirstCheck, error)
}

var _ firstStarter = (*kiosk.Office)(nil)

// FirstStartConfig is what the sequence needs.
type FirstStartConfig struct {
	Steps firstStarter
	// Office serves the blocks view of the block step.
	Office   Office
	BlockDir string
	Lang     ui.Lang
	Now      func() time.Time
	Loc      *time.Location
	// Go and Do run work off the Fyne goroutine and back on it (a
	// goroutine and fyne.Do if nil).
	Go, Do func(func())
	// Done is called once every step has passed (the player's screens
	// then show).
	Done func()
	// Shown, if set, is told each screen the sequence shows: "login",
	// a step's name, or "done", with the code of the check that led there
	// ("" if none): cmd/pharaon writes it to the kiosk's log, which the
	// technician reads, and the virtual machine's test follows.
	Shown func(screen, found string)
}

// FirstStart is the sequence's screen.
type FirstStart struct {
	cfg     FirstStartConfig
	tr      Tr
	win     fyne.Window
	session *kiosk.Session
	step    kiosk.FirstStep
	pin     []rune
	msg     *widget.Label
	busy    bool
	done    bool
}

// NewFirstStart shows the sequence in win, from its PIN entry.
func NewFirstStart(win fyne.Window, cfg FirstStartConfig) *FirstStart {
	if cfg.Go == nil {
		cfg.Go = func(f func()) { go f() }
	}
	if cfg.Do == nil {
		cfg.Do = fyne.Do
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Loc == nil {
		cfg.Loc = time.Local
	}
	f := &FirstStart{cfg: cfg, tr: Tr{Lang: cfg.Lang}, win: win}
	f.showLogin()
	return f
}

// Done reports whether every step has passed.
func (f *FirstStart) Done() bool { return f.done }

// showLogin asks for the technician's PIN: the sequence acts as the
// technician, and after a power cut nobody else may resume it.
func (f *FirstStart) showLogin() {
	tr := f.tr
	f.msg = widget.NewLabel("")
	f.msg.Wrapping = fyne.TextWrapWord
	dots := widget.NewLabel("")
	dots.TextStyle = fyne.TextStyle{Bold: true, Monospace: true}
	draw := func() { dots.SetText(strings.TrimSpace(strings.Repeat("● ", len(f.pin)))) }
	digit := func(r rune) {
		if !f.busy && len(f.pin) < pinMax {
			f.pin = append(f.pin, r)
			draw()
		}
	}
	erase := func() {
		if len(f.pin) > 0 && !f.busy {
			f.pin = f.pin[:len(f.pin)-1]
			draw()
		}
	}
	keys, _ := shKeypad(tr, digit, erase, tr.T("pin.ok"), f.login)
	form := container.NewVBox(shTitle(tr.T("first.title")), shPara(tr.T("first.login"), 3),
		shSized(fyne.NewSize(0, 56), dots), f.msg)
	// A technician's USB keypad or keyboard types the PIN too, as on the
	// maintenance screen's pad.
	shTakeKeys(f.win.Canvas(), digit, f.login, erase)
	f.win.SetContent(shBackdrop(container.NewPadded(container.NewBorder(nil, nil, nil, keys, form))))
	f.shown("login", "")
}

// shown tells FirstStartConfig.Shown what the sequence shows.
func (f *FirstStart) shown(screen, found string) {
	if f.cfg.Shown != nil {
		f.cfg.Shown(screen, found)
	}
}

// dropKeys gives the keyboard back once the PIN is taken: the steps are
// touched, and a key typed there must not reach a view's field unseen.
func (f *FirstStart) dropKeys() {
	f.win.Canvas().SetOnTypedRune(nil)
	f.win.Canvas().SetOnTypedKey(nil)
}

func (f *FirstStart) login() {
	if f.busy {
		return
	}
	pin := string(f.pin)
	f.pin = nil
	f.busy = true
	ctx := context.Background()
	f.cfg.Go(func() {
		s, err := f.cfg.Steps.Login(ctx, pin)
		var step kiosk.FirstStep
		if err == nil && s.Role() != kiosk.RoleTechnician {
			err = kiosk.ErrNotAllowed
		}
		if err == nil {
			step, err = f.cfg.Steps.FirstStart(ctx, s)
		}
		f.cfg.Do(func() {
			f.busy = false
			if err != nil {
				shErr(&Env{Tr: f.tr}, err)
				f.showLogin()
				f.fail("first.login.wrong")
				return
			}
			f.session, f.step = s, step
			f.dropKeys()
			f.showStep(kiosk.FirstCheck{})
		})
	})
}

func (f *FirstStart) fail(k word, args ...any) {
	f.msg.Importance = widget.DangerImportance
	f.msg.SetText(f.tr.F(k, args...))
}

// showStep shows the step reached, with what its last check found (none
// yet: a zero check).
func (f *FirstStart) showStep(found kiosk.FirstCheck) {
	tr := f.tr
	if f.step == kiosk.StepDone {
		f.showDone(found)
		return
	}
	var list []fyne.CanvasObject
	reached := false
	for i, st := range kiosk.FirstSteps {
		mark, colour := "✓", art.Sand
		switch {
		case st == f.step:
			mark, colour, reached = "→", art.GoldLight, true
		case reached:
			mark = "·"
		}
		list = append(list, shText(tr.F("first.list", mark, i+1, tr.T(word("first."+string(st)))), 18, colour, st == f.step))
	}
	f.msg = widget.NewLabel("")
	f.msg.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(shTitle(tr.F("first.step", firstIndex(f.step)+1, len(kiosk.FirstSteps), tr.T(word("first."+string(f.step))))),
		shPara(tr.T(word("first."+string(f.step)+".checks")), 2))
	if found.Code != "" {
		f.msg.Importance = widget.SuccessImportance
		if !found.OK {
			f.msg.Importance = widget.DangerImportance
		}
		f.msg.SetText(firstFound(tr, found))
		body.Add(f.msg)
		if !found.OK {
			body.Add(shPara(tr.F("first.todo", tr.T(word("first.todo."+found.Code))), 3))
		}
	} else {
		body.Add(f.msg)
	}
	pass := widget.NewButton(tr.T(word("first."+string(f.step)+".do")), f.pass)
	pass.Importance = widget.HighImportance
	body.Add(container.NewHBox(shSized(fyne.NewSize(320, 64), pass)))
	if f.step == kiosk.StepBlock {
		// The blocks view below the step, in the step's one scroller.
		env := &Env{Ctx: context.Background(), Session: f.session, Tr: tr, Win: f.win,
			Now: f.cfg.Now, Loc: f.cfg.Loc, Go: f.cfg.Go, Do: f.cfg.Do, Touch: func() {}, BlockDir: f.cfg.BlockDir,
			Refresh: func() { f.showStep(kiosk.FirstCheck{}) }}
		blocks := buildBlocks(env, f.cfg.Office)
		if sc, ok := blocks.(*container.Scroll); ok {
			blocks = sc.Content
		}
		body.Add(widget.NewSeparator())
		body.Add(blocks)
	}
	content := container.NewVScroll(body)
	side := container.NewVBox(append([]fyne.CanvasObject{shText(tr.T("first.steps"), 16, art.Sand, false)}, list...)...)
	f.win.SetContent(shBackdrop(container.NewPadded(container.NewBorder(nil, nil, side, nil, content))))
	f.shown(string(f.step), found.Code)
}

// pass checks the step and goes on when it passes (the core stores the
// next step); else it says what was found and what to do.
func (f *FirstStart) pass() {
	if f.busy {
		return
	}
	f.busy = true
	f.msg.Importance = widget.MediumImportance
	f.msg.SetText(f.tr.T("first.checking"))
	ctx := context.Background()
	step := f.step
	f.cfg.Go(func() {
		next, found, err := f.cfg.Steps.PassFirstStep(ctx, f.session, step)
		f.cfg.Do(func() {
			f.busy = false
			switch {
			case errors.Is(err, kiosk.ErrSessionEnded):
				f.showLogin()
				f.fail("first.login.again")
			case err != nil:
				shErr(&Env{Tr: f.tr}, err)
				f.fail("first.error")
			default:
				f.step = next
				f.showStep(found)
			}
		})
	})
}

// showDone says the kiosk is ready, with what the last step found, and
// opens it to players on a tap.
func (f *FirstStart) showDone(found kiosk.FirstCheck) {
	tr := f.tr
	open := widget.NewButton(tr.T("first.open"), func() {
		if f.done {
			return
		}
		f.done = true
		if f.cfg.Done != nil {
			f.cfg.Done()
		}
	})
	open.Importance = widget.HighImportance
	body := container.NewVBox(shTitle(tr.T("first.ready")))
	if found.Code != "" {
		body.Add(wrapped(firstFound(tr, found)))
	}
	body.Add(wrapped(tr.T("first.ready.help")))
	body.Add(container.NewHBox(shSized(fyne.NewSize(360, 64), open)))
	f.win.SetContent(shBackdrop(container.NewPadded(body)))
	f.shown(string(kiosk.StepDone), found.Code)
}

// firstFound says what a step's check found: the count it counted, or
// the test voucher's number and validation number (it pays nothing: shown
// whole, to be compared with the paper), or what kept the printer from
// printing it.
func firstFound(tr Tr, found kiosk.FirstCheck) string {
	k := word("first.found." + found.Code)
	switch {
	case found.Step == kiosk.StepVoucher && found.OK:
		return tr.F(k, found.N, kiosk.FormatValidation(found.Validation))
	case found.Step == kiosk.StepVoucher:
		why := tr.T("first.voucher.printer")
		if !found.Printer.IsZero() {
			why = rptMsg(tr, found.Printer)
		}
		if found.Code == "voucher.failed" {
			return tr.F(k, found.N, why)
		}
		return tr.F(k, why)
	case strings.Contains(tr.T(k), "%d"):
		return tr.F(k, found.N)
	}
	return tr.T(k)
}

func firstIndex(step kiosk.FirstStep) int {
	for i, s := range kiosk.FirstSteps {
		if s == step {
			return i
		}
	}
	return len(kiosk.FirstSteps)
}

var _ = words(map[word]text{
	"first.title":       {"Mise en service", "Commissioning"},
	"first.login":       {"Tapez le code technicien choisi à l’instant pour vérifier la borne pas à pas. Après une coupure de courant, la mise en service reprend ici, à l’étape atteinte.", "Type the technician PIN just chosen to check the kiosk step by step. After a power cut, commissioning resumes here, at the step reached."},
	"first.login.wrong": {"Ce n’est pas le code technicien\u00a0: retapez-le.", "That is not the technician PIN: type it again."},
	"first.login.again": {"Session terminée\u00a0: retapez le code technicien pour reprendre.", "Session ended: type the technician PIN again to resume."},
	"first.steps":       {"Étapes", "Steps"},
	"first.list":        {"%s %d. %s", "%s %d. %s"},
	"first.step":        {"Étape %d sur %d\u00a0: %s", "Step %d of %d: %s"},
	"first.checking":    {"Vérification…", "Checking…"},
	"first.todo":        {"À faire\u00a0: %s", "To do: %s"},
	"first.error":       {"La vérification a échoué\u00a0: voyez le journal.", "The check failed: see the log."},

	"first.keys":        {"Clés d’émetteur", "Issuer keys"},
	"first.keys.checks": {"La borne n’importe que les blocs signés par un émetteur dont elle a la clé publique (keys, dans pharaon.conf).", "The kiosk imports only blocks signed by an issuer whose public key it holds (keys, in pharaon.conf)."},
	"first.keys.do":     {"Vérifier et continuer", "Check and continue"},

	"first.devices":        {"Lecteur de billets et imprimante", "Bill validator and printer"},
	"first.devices.checks": {"Le lecteur de billets et l’imprimante des bons de paiement doivent répondre et fonctionner.", "The bill validator and the voucher printer must answer and work."},
	"first.devices.do":     {"Vérifier et continuer", "Check and continue"},

	"first.block":        {"Bloc d’unités de jeu", "Block of game units"},
	"first.block.checks": {"Une mise au moins doit avoir un bloc en vente\u00a0: importez-le ci-dessous depuis la clé USB de l’émetteur.", "One stake at least must have a block on sale: import it below from the issuer’s USB stick."},
	"first.block.do":     {"Vérifier et continuer", "Check and continue"},

	"first.voucher":         {"Bon d’essai", "Test voucher"},
	"first.voucher.checks":  {"L’imprimante imprime un vrai bon de paiement de cette borne, avec son numéro, marqué «\u00a0BON D’ESSAI — ANNULÉ — SANS VALEUR\u00a0» à la place du montant. Il est enregistré annulé avant d’être imprimé\u00a0: il ne déplace aucun argent et aucun comptoir ne le paie. Vérifiez les accents, le code-barres et que le numéro imprimé est celui affiché ici.", "The printer prints a real payment voucher of this kiosk, with its number, marked “BON D’ESSAI — ANNULÉ — SANS VALEUR” (test voucher, void, no value) in place of the amount. It is recorded void before it is printed: it moves no money and no counter pays it. Check the accents, the barcode and that the number printed is the one shown here."},
	"first.voucher.do":      {"Imprimer le bon d’essai", "Print the test voucher"},
	"first.voucher.printer": {"l’imprimante ne répond pas.", "the printer does not answer."},

	"first.found.keys.found":                {"Clés d’émetteur trouvées\u00a0: %d.", "Issuer keys found: %d."},
	"first.found.keys.none":                 {"Aucune clé d’émetteur n’est configurée.", "No issuer key is configured."},
	"first.todo.keys.none":                  {"copiez le fichier .pub de l’émetteur dans le dossier keys de la partition PHARAON, nommez-le dans keys de son pharaon.conf, puis redémarrez la borne\u00a0: la mise en service reprendra à cette étape.", "copy the issuer’s .pub file into the keys folder of the PHARAON partition, name it in keys in its pharaon.conf, then restart the kiosk: commissioning resumes at this step."},
	"first.found.devices.ok":                {"Le lecteur de billets et l’imprimante répondent et fonctionnent.", "The bill validator and the printer answer and work."},
	"first.found.devices.validator_missing": {"Aucun lecteur de billets n’est configuré.", "No bill validator is configured."},
	"first.todo.devices.validator_missing":  {"nommez son port dans validator (pharaon.conf), puis redémarrez la borne\u00a0: la mise en service reprendra à cette étape.", "name its port in validator (pharaon.conf), then restart the kiosk: commissioning resumes at this step."},
	"first.found.devices.validator_fault":   {"Le lecteur de billets ne répond pas ou signale un défaut.", "The bill validator does not answer or reports a fault."},
	"first.todo.devices.validator_fault":    {"vérifiez son câble et son alimentation, retirez un billet coincé, puis touchez «\u00a0Vérifier et continuer\u00a0».", "check its cable and power, remove a jammed note, then touch “Check and continue”."},
	"first.found.devices.printer_missing":   {"Aucune imprimante n’est configurée.", "No printer is configured."},
	"first.todo.devices.printer_missing":    {"nommez son port dans printer (pharaon.conf), puis redémarrez la borne\u00a0: la mise en service reprendra à cette étape.", "name its port in printer (pharaon.conf), then restart the kiosk: commissioning resumes at this step."},
	"first.found.devices.printer_fault":     {"L’imprimante ne répond pas ou signale un défaut.", "The printer does not answer or reports a fault."},
	"first.todo.devices.printer_fault":      {"vérifiez son câble, le papier et le capot, puis touchez «\u00a0Vérifier et continuer\u00a0».", "check its cable, the paper and the cover, then touch “Check and continue”."},
	"first.found.block.on_sale":             {"Mises avec un bloc en vente\u00a0: %d.", "Stakes with a block on sale: %d."},
	"first.found.block.none":                {"Aucun bloc n’est en vente.", "No block is on sale."},
	"first.todo.block.none":                 {"branchez la clé USB de l’émetteur, choisissez le fichier du bloc ci-dessous, touchez «\u00a0Vérifier et importer\u00a0», puis «\u00a0Vérifier et continuer\u00a0».", "plug in the issuer’s USB stick, choose the block’s file below, touch “Verify and import”, then “Check and continue”."},
	"first.found.voucher.printed":           {"Bon d’essai n°\u00a0%06d imprimé, annulé, sans valeur\u00a0; n° de validation %s. Vérifiez que le papier porte ce numéro et «\u00a0BON D’ESSAI — ANNULÉ — SANS VALEUR\u00a0».", "Test voucher no.\u00a0%06d printed, void, of no value; validation no. %s. Check that the paper carries this number and “BON D’ESSAI — ANNULÉ — SANS VALEUR”."},
	"first.found.voucher.again":             {"Bon d’essai n°\u00a0%06d imprimé de nouveau sous le même numéro (%s)\u00a0: il avait été enregistré avant une coupure de courant ou un échec d’impression. Un papier sorti avant porte le même numéro, annulé lui aussi.", "Test voucher no.\u00a0%06d printed again under the same number (%s): it was recorded before a power cut or a failed print. A paper that came out before carries the same number, void as well."},
	"first.found.voucher.failed":            {"Le bon d’essai n°\u00a0%06d n’a pas été imprimé en entier\u00a0: %s Il reste enregistré annulé\u00a0; un papier sorti à moitié ne vaut rien.", "Test voucher no.\u00a0%06d was not printed whole: %s It stays recorded as void; a half-printed paper is worth nothing."},
	"first.todo.voucher.failed":             {"vérifiez le papier, le capot et le massicot de l’imprimante, puis touchez «\u00a0Imprimer le bon d’essai\u00a0»\u00a0: le même numéro sera imprimé.", "check the printer’s paper, cover and cutter, then touch “Print the test voucher”: the same number will be printed."},
	"first.found.voucher.refused":           {"L’imprimante ne peut pas imprimer le bon d’essai\u00a0: %s", "The printer cannot print the test voucher: %s"},
	"first.todo.voucher.refused":            {"vérifiez son câble, le papier et le capot, attendez que l’imprimante soit prête, puis touchez «\u00a0Imprimer le bon d’essai\u00a0».", "check its cable, the paper and the cover, wait until the printer is ready, then touch “Print the test voucher”."},

	"first.ready":      {"La borne est prête", "The kiosk is ready"},
	"first.ready.help": {"Clés, appareils, bloc et bon d’essai sont vérifiés. Ouvrez la borne aux joueurs\u00a0; le menu de maintenance reste au coin caché de l’écran.", "Keys, devices, block and test voucher are checked. Open the kiosk to players; the maintenance menu stays in the screen’s hidden corner."},
	"first.open":       {"Ouvrir la borne aux joueurs", "Open the kiosk to players"},
})
