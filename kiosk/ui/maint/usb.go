package maint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/ui"
)

// The technician's USB stick (DESIGN.md §10): each stick the kiosk sees,
// the signed update bundles on it, checked then installed after a
// confirmation that names the version; the logs exported to it; the stick
// ejected before it is pulled out. The kiosk's root helper does the work
// (kiosk/helper), the Office checks the role and writes the event log.

var _ = register(View{ID: "usb", Title: "usb.title", Need: kiosk.RoleTechnician, Order: 65,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildUSB(env, o) }})

var _ = words(map[word]text{
	"usb.title": {"Clé USB", "USB stick"},
	"usb.intro": {"Une clé USB branchée est lue ici sans être modifiée. Installez une mise à jour signée, exportez les journaux pour le support, puis éjectez la clé avant de la retirer.",
		"A USB stick plugged in is read here without being changed. Install a signed update, export the logs for support, then eject the stick before pulling it out."},
	"usb.rescan":     {"Relire les clés", "Read the sticks again"},
	"usb.reading":    {"Lecture des clés…", "Reading the sticks…"},
	"usb.none":       {"Aucune clé USB branchée. Branchez-la sur un port USB de la borne, attendez quelques secondes, puis touchez «\u00a0Relire les clés\u00a0».", "No USB stick plugged in. Plug it into a USB port of the kiosk, wait a few seconds, then tap “Read the sticks again”."},
	"usb.nohelper":   {"Le service d’entretien de la borne (pharaon-helper) ne répond pas\u00a0: les actions sur une clé USB ne se font que sur une borne installée depuis son image. Sur une borne installée, redémarrez-la\u00a0; si rien ne change, appelez le support.", "The kiosk’s maintenance service (pharaon-helper) does not answer: USB stick actions work only on a kiosk installed from its image. On an installed kiosk, restart it; if nothing changes, call support."},
	"usb.stick":      {"Clé %s", "Stick %s"},
	"usb.free":       {"Clé %s · %s libres", "Stick %s · %s free"},
	"usb.updates":    {"Mises à jour sur la clé\u00a0:", "Updates on the stick:"},
	"usb.noupdates":  {"Aucune mise à jour (fichier .update) sur cette clé.", "No update (.update file) on this stick."},
	"usb.check":      {"Vérifier", "Verify"},
	"usb.verifying":  {"Vérification de %s…", "Verifying %s…"},
	"usb.confirm":    {"%s %s (installée\u00a0: %s), signée par la clé %s. L’installer\u00a0? La borne redémarre à la fin, puis refait toutes ses vérifications avant de revendre.", "%s %s (installed: %s), signed by key %s. Install it? The kiosk restarts at the end, then runs all its checks again before it sells."},
	"usb.install":    {"Installer et redémarrer", "Install and restart"},
	"usb.cancel":     {"Annuler", "Cancel"},
	"usb.installing": {"Installation de %s %s… Ne débranchez ni la clé ni la borne.", "Installing %s %s… Unplug neither the stick nor the kiosk."},
	"usb.installed":  {"%s %s installée (avant\u00a0: %s). La borne redémarre.", "%s %s installed (before: %s). The kiosk restarts."},
	"usb.refused":    {"Mise à jour refusée, rien n’a changé\u00a0: %s.", "Update refused, nothing changed: %s."},
	"usb.failed":     {"Mise à jour échouée\u00a0: %s.", "Update failed: %s."},
	"usb.export":     {"Exporter les journaux", "Export the logs"},
	"usb.exporting":  {"Export des journaux sur la clé…", "Exporting the logs to the stick…"},
	"usb.exported":   {"Journaux exportés dans le dossier %s de la clé (%s).", "Logs exported to the folder %s on the stick (%s)."},
	"usb.notexport":  {"Journaux non exportés\u00a0: %s.", "Logs not exported: %s."},
	"usb.eject":      {"Éjecter la clé", "Eject the stick"},
	"usb.ejected":    {"Clé %s éjectée\u00a0: vous pouvez la retirer.", "Stick %s ejected: you may pull it out."},
	"usb.noteject":   {"Clé non éjectée\u00a0: %s.", "Stick not ejected: %s."},
	"usb.file":       {"fichier|fichiers", "file|files"},
	"usb.unknown":    {"inconnue", "unknown"},

	"usb.why.unsigned":    {"le paquet n’est pas signé", "the bundle is not signed"},
	"usb.why.untrusted":   {"il est signé par une clé qui n’est pas une clé de mise à jour de confiance de cette borne", "it is signed by a key this kiosk does not trust for updates"},
	"usb.why.signature":   {"la signature ne correspond pas au contenu (fichier modifié ou abîmé)", "the signature does not match the content (file altered or damaged)"},
	"usb.why.payload":     {"le contenu n’est pas celui annoncé (fichier modifié ou copie incomplète)", "the content is not the one announced (file altered or copy incomplete)"},
	"usb.why.format":      {"ce n’est pas une mise à jour Pharaon", "this is not a Pharaon update"},
	"usb.why.downgrade":   {"sa version n’est pas plus récente que celle installée", "its version is not newer than the installed one"},
	"usb.why.mismatch":    {"elle est faite pour un autre modèle de borne", "it is made for another kiosk model"},
	"usb.why.datadir":     {"elle écrirait sur la partition des données", "it would write on the data partition"},
	"usb.why.norollback":  {"la borne ne garde pas de version précédente pour revenir en arrière\u00a0: voir le guide du technicien", "the kiosk keeps no previous version to go back to: see the technician’s guide"},
	"usb.why.updating":    {"une autre mise à jour est en cours", "another update is running"},
	"usb.why.rolledback":  {"l’installation a échoué et la version précédente est réinstallée", "the installation failed and the previous version is installed again"},
	"usb.why.broken":      {"l’installation a échoué, et la réinstallation de la version précédente aussi\u00a0: appelez le support", "the installation failed, and so did the reinstall of the previous version: call support"},
	"usb.why.noslots":     {"c’est une mise à jour du système entier, et cette borne n’a pas d’emplacements A/B", "it is a whole-system update, and this kiosk has no A/B slots"},
	"usb.why.unconfirmed": {"le système en service est encore à l’essai\u00a0: attendez qu’il soit confirmé (borne prête), puis réessayez", "the running system is still on trial: wait until it is confirmed (kiosk ready), then try again"},
	"usb.why.readonly":    {"c’est une mise à jour du logiciel seul, et le système de cette borne est en lecture seule\u00a0: il lui faut une mise à jour du système entier (pharaon-system_…)", "it is an update of the software alone, and this kiosk’s system is read-only: it needs a whole-system update (pharaon-system_…)"},
	"usb.why.nokeys":      {"aucune clé de mise à jour n’est installée sur cette borne", "no update key is installed on this kiosk"},
	"usb.why.update":      {"l’installation a échoué", "the installation failed"},
	"usb.why.nostick":     {"la clé n’est plus branchée", "the stick is no longer plugged in"},
	"usb.why.nofile":      {"le fichier n’est plus sur la clé", "the file is no longer on the stick"},
	"usb.why.inuse":       {"la clé est encore utilisée\u00a0; réessayez dans quelques secondes", "the stick is still in use; try again in a few seconds"},
	"usb.why.full":        {"la clé est pleine", "the stick is full"},
	"usb.why.write":       {"la clé n’a pas pu être écrite (protégée en écriture\u00a0?)", "the stick could not be written (write-protected?)"},
	"usb.why.journal":     {"le journal du système n’a pas pu être lu", "the system’s journal could not be read"},
	"usb.why.refused":     {"le service d’entretien a refusé la demande", "the maintenance service refused the request"},
	"usb.why.unavailable": {"le service d’entretien de la borne ne répond pas", "the kiosk’s maintenance service does not answer"},
	"usb.why.busy":        {"la borne a un crédit, une partie, un billet ou un paiement en cours, ou le mode test\u00a0: soldez-les d’abord", "the kiosk has a credit, a game, a note or a payout under way, or the test mode: settle them first"},
	"usb.why.other":       {"erreur inattendue", "unexpected error"},
})

// stickDesk is what the USB stick view does: it lists the sticks, checks
// and installs an update, exports the logs, ejects a stick.
type stickDesk interface {
	Sticks(ctx context.Context, s *kiosk.Session) ([]helper.Stick, error)
	CheckUpdate(ctx context.Context, s *kiosk.Session, stick, file string) (helper.Update, error)
	InstallUpdate(ctx context.Context, s *kiosk.Session, stick, file string, step func(string)) (helper.Update, error)
	ExportLogs(ctx context.Context, s *kiosk.Session, stick string, step func(string)) (helper.Exported, error)
	EjectStick(ctx context.Context, s *kiosk.Session, stick string) error
}

// usbView is the view's state across its redraws.
type usbView struct {
	env    *Env
	o      stickDesk
	body   *fyne.Container
	sticks []helper.Stick
	err    error
	loaded bool
	busy   bool
	// said is each stick's last outcome, danger when it failed.
	said map[string]usbSaid
	// checked is the update awaiting the technician's confirmation.
	checked *usbChecked
	// ejected says the last stick ejected.
	ejected usbSaid
}

type usbSaid struct {
	text   string
	danger bool
}

type usbChecked struct {
	stick, file string
	u           helper.Update
}

func buildUSB(env *Env, o stickDesk) fyne.CanvasObject {
	v := &usbView{env: env, o: o, body: container.NewVBox(), said: map[string]usbSaid{}}
	tr := env.Tr
	intro := wrapped(tr.T("usb.intro"))
	rescan := rptButton(env, tr.T("usb.rescan"), v.load)
	v.load()
	return container.NewVScroll(container.NewVBox(rptTitle(tr.T("usb.title")), intro, shFlow(rptSized(rescan)), widget.NewSeparator(), v.body))
}

// load asks the helper for the sticks, then draws.
func (v *usbView) load() {
	env := v.env
	v.loaded = false
	v.draw()
	env.Go(func() {
		sticks, err := v.o.Sticks(env.Ctx, env.Session)
		env.Do(func() {
			v.sticks, v.err, v.loaded = sticks, err, true
			if err != nil && !errors.Is(err, helper.ErrUnavailable) {
				fmt.Fprintf(os.Stderr, "maintenance: USB sticks: %v\n", err)
			}
			v.draw()
		})
	})
}

func (v *usbView) draw() {
	tr := v.env.Tr
	var objs []fyne.CanvasObject
	switch {
	case !v.loaded:
		objs = append(objs, widget.NewLabel(tr.T("usb.reading")))
	case errors.Is(v.err, helper.ErrUnavailable):
		l := wrapped(tr.T("usb.nohelper"))
		l.Importance = widget.WarningImportance
		objs = append(objs, l)
	case v.err != nil:
		l := wrapped(rptRefusal(tr, tr.T("usb.why.other"), v.err))
		l.Importance = widget.DangerImportance
		objs = append(objs, l)
	case len(v.sticks) == 0:
		objs = append(objs, wrapped(tr.T("usb.none")))
	}
	// A stick ejected is gone from the list: that it was is said above
	// it.
	if v.ejected.text != "" {
		objs = append([]fyne.CanvasObject{v.message(v.ejected)}, objs...)
	}
	for _, st := range v.sticks {
		objs = append(objs, v.card(st), widget.NewSeparator())
	}
	v.body.Objects = objs
	v.body.Refresh()
}

// card is one stick: its bundles, its actions, its last outcome.
func (v *usbView) card(st helper.Stick) fyne.CanvasObject {
	tr := v.env.Tr
	title := tr.F("usb.stick", st.Name)
	if st.Free >= 0 {
		title = tr.F("usb.free", st.Name, stickSize(tr, st.Free))
	}
	objs := []fyne.CanvasObject{heading(title)}
	if c := v.checked; c != nil && c.stick == st.Name {
		// The confirmation replaces the list until it is answered.
		from := c.u.From
		if from == "" {
			from = tr.T("usb.unknown")
		}
		objs = append(objs, wrapped(tr.F("usb.confirm", c.u.Package, c.u.Version, from, c.u.Key)))
		install := rptButton(v.env, tr.T("usb.install"), func() { v.install(*c) })
		install.Importance = widget.HighImportance
		cancel := rptButton(v.env, tr.T("usb.cancel"), func() {
			v.checked = nil
			v.draw()
		})
		if v.busy {
			install.Disable()
			cancel.Disable()
		}
		objs = append(objs, shFlow(rptSized(install), rptSized(cancel)))
	} else {
		// Each bundle on a line of its own, its path wrapped (a year of
		// releases in folders is long), its own key to verify it.
		if len(st.Updates) == 0 {
			objs = append(objs, wrapped(tr.T("usb.noupdates")))
		} else {
			objs = append(objs, widget.NewLabel(tr.T("usb.updates")))
			for _, file := range st.Updates {
				check := rptButton(v.env, tr.T("usb.check"), func() { v.check(st.Name, file) })
				check.Importance = widget.HighImportance
				if v.busy {
					check.Disable()
				}
				// The regular face: the fixed-width one's underscores
				// ("pharaon_1.4.0_amd64") were cut under a wrapped line.
				name := wrapped(usbShown(file))
				// The key keeps its own width at the line's end.
				objs = append(objs, shPair(name, container.NewBorder(nil, nil, nil, rptSized(check))))
			}
		}
		export := rptButton(v.env, tr.T("usb.export"), func() { v.export(st.Name) })
		eject := rptButton(v.env, tr.T("usb.eject"), func() { v.eject(st.Name) })
		if v.busy {
			export.Disable()
			eject.Disable()
		}
		objs = append(objs, shFlow(rptSized(export), rptSized(eject)))
	}
	// The outcome keeps its room under the buttons: nothing moves when it
	// shows.
	objs = append(objs, shMessage(v.message(v.said[st.Name]), 3))
	return container.NewVBox(objs...)
}

func (v *usbView) message(s usbSaid) *widget.Label {
	l := wrapped(s.text)
	if s.danger {
		l.Importance = widget.DangerImportance
	} else if s.text != "" {
		l.Importance = widget.SuccessImportance
	}
	return l
}

// say sets a stick's outcome and draws.
func (v *usbView) say(stick, text string, danger bool) {
	v.said[stick] = usbSaid{text: text, danger: danger}
	v.ejected = usbSaid{}
	v.draw()
}

func (v *usbView) check(stick, file string) {
	tr, env := v.env.Tr, v.env
	v.busy = true
	v.say(stick, tr.F("usb.verifying", file), false)
	env.Go(func() {
		u, err := v.o.CheckUpdate(env.Ctx, env.Session, stick, file)
		env.Do(func() {
			v.busy = false
			if err != nil {
				v.say(stick, v.refusal("usb.refused", "", err), true)
				return
			}
			v.checked = &usbChecked{stick: stick, file: file, u: u}
			v.say(stick, "", false)
		})
	})
}

func (v *usbView) install(c usbChecked) {
	tr, env := v.env.Tr, v.env
	v.busy = true
	v.say(c.stick, tr.F("usb.installing", c.u.Package, c.u.Version), false)
	env.Go(func() {
		u, err := v.o.InstallUpdate(env.Ctx, env.Session, c.stick, c.file, nil)
		env.Do(func() {
			v.busy, v.checked = false, nil
			switch {
			case err == nil:
				from := u.From
				if from == "" {
					from = tr.T("usb.unknown")
				}
				v.say(c.stick, tr.F("usb.installed", u.Package, u.Version, from), false)
			case helper.CodeOf(err) == "rolledback" || helper.CodeOf(err) == "broken" || helper.CodeOf(err) == helper.CodeUpdate:
				v.say(c.stick, v.refusal("usb.failed", "", err), true)
			default:
				v.say(c.stick, v.refusal("usb.refused", "", err), true)
			}
		})
	})
}

func (v *usbView) export(stick string) {
	tr, env := v.env.Tr, v.env
	v.busy, v.checked = true, nil
	v.say(stick, tr.T("usb.exporting"), false)
	env.Go(func() {
		ex, err := v.o.ExportLogs(env.Ctx, env.Session, stick, nil)
		env.Do(func() {
			v.busy = false
			if err != nil {
				v.say(stick, v.refusal("usb.notexport", "", err), true)
				return
			}
			v.say(stick, tr.F("usb.exported", ex.Folder, tr.Count(int64(len(ex.Files)), "usb.file")), false)
		})
	})
}

func (v *usbView) eject(stick string) {
	tr, env := v.env.Tr, v.env
	v.busy, v.checked = true, nil
	v.draw()
	env.Go(func() {
		err := v.o.EjectStick(env.Ctx, env.Session, stick)
		env.Do(func() {
			v.busy = false
			if err != nil {
				v.say(stick, v.refusal("usb.noteject", "inuse", err), true)
				return
			}
			delete(v.said, stick)
			v.ejected = usbSaid{text: tr.F("usb.ejected", stick)}
			v.load()
		})
	})
}

// refusal says an action's failure: the sentence k with the reason in
// words, the error kept as the technical detail and written on stderr.
// busy is the reason's word for the helper's "busy" (a stick in use for an
// eject; another update for an install).
func (v *usbView) refusal(k word, busy string, err error) string {
	tr := v.env.Tr
	why := usbReason(tr, busy, err)
	fmt.Fprintf(os.Stderr, "maintenance: %s\n", fmt.Sprintf(Tr{Lang: ui.English}.T(k), usbReason(Tr{Lang: ui.English}, busy, err))+" ("+err.Error()+")")
	return tr.F(k, why) + "\n" + tr.Detail(err.Error())
}

// usbReason is why a stick action failed, in words.
func usbReason(tr Tr, busy string, err error) string {
	if why := rptReason(tr, err); why != "" && !errors.Is(err, kiosk.ErrBusy) {
		return why
	}
	if errors.Is(err, kiosk.ErrBusy) {
		return tr.T("usb.why.busy")
	}
	code := helper.CodeOf(err)
	switch code {
	case "busy":
		if busy == "" {
			busy = "updating"
		}
		code = busy
	case helper.CodeInternal, helper.CodeRequest:
		code = "other"
	}
	k := word("usb.why." + code)
	if _, ok := catalogue[k]; !ok {
		k = "usb.why.other"
	}
	return tr.T(k)
}

// usbShown is a bundle's path as the view shows it: its folder on a line,
// its name on the next (a long path is no word to cut).
func usbShown(file string) string {
	dir, name := path.Split(filepath.ToSlash(file))
	if dir == "" {
		return name
	}
	return dir + "\n" + name
}

// stickSize writes a size in bytes as a shop's screen says a stick's room:
// "3,7 Go" ("3.7 GB").
func stickSize(tr Tr, n int64) string {
	unit, div := "Go", 1e9
	if tr.Lang == ui.English {
		unit = "GB"
	}
	if n < 1e9 {
		unit, div = "Mo", 1e6
		if tr.Lang == ui.English {
			unit = "MB"
		}
	}
	s := strconv.FormatFloat(float64(n)/div, 'f', 1, 64)
	if tr.Lang != ui.English {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + "\u00a0" + unit
}
