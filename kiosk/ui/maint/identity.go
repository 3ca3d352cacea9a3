package maint

import (
	"context"
	"path"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
	"pharaon/kiosk/update"
)

// The software identity (technician): version, the build it came from,
// and the SHA-256 of the running binary, read from its file, which a
// regulator compares with the approved one.

var _ = register(View{ID: "identity", Title: "rpt.id.title", Need: kiosk.RoleTechnician, Order: 62, Diagnosis: true,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildIdentity(env, o) }})

var _ = words(map[word]text{
	"rpt.id.title":       {"Identité du logiciel", "Software identity"},
	"rpt.id.version":     {"Version", "Version"},
	"rpt.id.revision":    {"Révision", "Revision"},
	"rpt.id.built":       {"Date de la révision", "Revision date"},
	"rpt.id.modified":    {"(modifiée)", "(modified)"},
	"rpt.id.go":          {"Compilateur", "Compiler"},
	"rpt.id.path":        {"Programme", "Program"},
	"rpt.id.sha":         {"SHA-256 du programme", "SHA-256 of the program"},
	"rpt.id.trust":       {"Racine de confiance", "Trust root"},
	"rpt.id.trust.tpm":   {"TPM 2.0", "TPM 2.0"},
	"rpt.id.detail":      {"détail technique\u00a0: ", "technical detail: "},
	"rpt.id.trust.files": {"pas de TPM", "no TPM"},
	"rpt.id.trust.tpm.note": {"Secret scellé dans le TPM, compteur dans le TPM\u00a0: une copie des disques remise en place est vue.",
		"Secret sealed in the TPM, counter in the TPM: a copy of the disks put back is seen."},
	"rpt.id.trust.files.note": {"Secret et compteur dans des fichiers hors de la partition des données\u00a0: une copie du disque entier remise en place ne serait pas vue par la borne.",
		"Secret and counter in files off the data partition: a copy of the whole disk put back would not be seen by the kiosk."},
	"rpt.id.unknown":          {"inconnue", "unknown"},
	"rpt.id.update":           {"Dernière mise à jour", "Last update"},
	"rpt.id.update.none":      {"aucune depuis l’écran de maintenance", "none from the maintenance screen"},
	"rpt.id.update.installed": {"%s, demandée le %s : installée (avant : %s)", "%s, asked on %s: installed (before: %s)"},
	"rpt.id.update.failed":    {"%s, demandée le %s : non installée, version inchangée (voir le journal des évènements)", "%s, asked on %s: not installed, version unchanged (see the event log)"},
	"rpt.id.update.unknown":   {"%s, demandée le %s : version inchangée, donc non installée (journal du service pharaon-helper)", "%s, asked on %s: version unchanged, so not installed (the pharaon-helper service’s journal)"},
	"rpt.id.system":           {"Système", "System"},
	"rpt.id.system.none":      {"sans emplacements A/B (le paquet seul se met à jour)", "no A/B slots (only the package is updated)"},
	"rpt.id.system.confirmed": {"emplacement %s, %s, confirmé", "slot %s, %s, confirmed"},
	"rpt.id.system.trial":     {"emplacement %s, %s, à l’essai (pas encore «\u00a0borne prête\u00a0»)", "slot %s, %s, on trial (not yet “kiosk ready”)"},
	"rpt.id.system.other":     {"\u00a0; l’autre emplacement\u00a0: %s", "; the other slot: %s"},
	"rpt.id.system.back":      {"Retour automatique", "Automatic return"},
	"rpt.id.system.failed":    {"le système %s n’a pas démarré (%s)\u00a0: retour à celui-ci", "system %s did not start (%s): back to this one"},
	"rpt.id.system.pending":   {"En attente", "Waiting"},
	"rpt.id.system.waits":     {"le système %s, écrit dans l’emplacement %s\u00a0: la borne y redémarre d’elle-même dès qu’elle est libre (maintenance fermée, sans crédit ni partie)", "system %s, written into slot %s: the kiosk restarts into it by itself once idle (maintenance closed, no credit, no game)"},
})

// identityDesk is what the identity view reads.
type identityDesk interface {
	Identity(ctx context.Context, s *kiosk.Session) (kiosk.Identity, error)
}

func buildIdentity(env *Env, o identityDesk) fyne.CanvasObject {
	tr := env.Tr
	note := newRptNote()
	body := container.NewVBox()
	var id kiosk.Identity
	rptRun(env, func() (err error) {
		id, err = o.Identity(env.Ctx, env.Session)
		return err
	}, func(err error) {
		if err != nil {
			note.fail(tr, err)
			if id.Version == "" {
				return
			}
		}
		or := func(s string) string {
			if s == "" {
				return tr.T("rpt.id.unknown")
			}
			return s
		}
		rev := or(id.Revision)
		if id.Modified {
			rev += " " + tr.T("rpt.id.modified")
		}
		sha := widget.NewLabel(groupHex(or(id.SHA256)))
		sha.TextStyle = fyne.TextStyle{Monospace: true, Bold: true}
		objs := []fyne.CanvasObject{
			rptRow(tr.T("rpt.id.version"), id.Version, true),
			rptRow(tr.T("rpt.id.revision"), rev, true),
			rptRow(tr.T("rpt.id.built"), or(id.BuildTime), true),
			rptRow(tr.T("rpt.id.go"), or(id.GoVersion), true),
			rptRow(tr.T("rpt.id.path"), or(id.Path), true),
			rptRow(tr.T("rpt.id.system"), systemWords(env, id), false),
			rptRow(tr.T("rpt.id.update"), lastUpdateWords(env, id.LastUpdate), false),
			rptRow(tr.T("rpt.id.trust"), tr.T(trustWords(id)), false),
			wrapped(tr.T(trustWords(id) + ".note")),
			mono(wrapped(tr.T("rpt.id.detail") + id.Trust)),
			widget.NewLabel(tr.T("rpt.id.sha")),
			sha,
		}
		// After the system's row: a system waiting in the other slot,
		// and a return from one that did not start.
		var more []fyne.CanvasObject
		if id.System.PendingEntry != "" {
			more = append(more, rptRow(tr.T("rpt.id.system.pending"),
				tr.F("rpt.id.system.waits", id.System.PendingVersion, strings.ToUpper(update.Other(id.System.Slot))), false))
		}
		if id.System.FailedEntry != "" {
			more = append(more, rptRow(tr.T("rpt.id.system.back"), tr.F("rpt.id.system.failed", id.System.FailedVersion, tr.Count(int64(id.System.FailedTries), "n.try")), false))
		}
		objs = append(objs[:6], append(more, objs[6:]...)...)
		body.Objects = objs
		body.Refresh()
	})
	return note.in(container.NewBorder(container.NewVBox(rptTitle(tr.T("rpt.id.title")), note.object()), nil, nil, nil, body))
}

// systemWords says which slot runs, its version and whether it was
// confirmed.
func systemWords(env *Env, id kiosk.Identity) string {
	tr := env.Tr
	if !id.Slots {
		return tr.T("rpt.id.system.none")
	}
	slot := strings.ToUpper(id.System.Slot)
	w := tr.F("rpt.id.system.confirmed", slot, id.System.Version)
	if !id.System.Confirmed {
		w = tr.F("rpt.id.system.trial", slot, id.System.Version)
	}
	if id.System.Other != "" {
		w += tr.F("rpt.id.system.other", id.System.Other)
	}
	return w
}

// lastUpdateWords says how the last update asked from the screen ended.
func lastUpdateWords(env *Env, r kiosk.UpdateRecord) string {
	tr := env.Tr
	// The bundle's name without its folders: a path is one long word.
	file := path.Base(filepath.ToSlash(r.File))
	if r.File == "" {
		file = tr.T("rpt.id.unknown")
	}
	at := tr.Time(r.At, env.Loc)
	switch r.Outcome {
	case "":
		return tr.T("rpt.id.update.none")
	case kiosk.UpdateInstalled:
		return tr.F("rpt.id.update.installed", file, at, r.Before)
	case kiosk.UpdateNotInstalled:
		return tr.F("rpt.id.update.failed", file, at)
	}
	return tr.F("rpt.id.update.unknown", file, at)
}

// trustWords names the kind of trust root.
func trustWords(id kiosk.Identity) word {
	if id.TPM {
		return "rpt.id.trust.tpm"
	}
	return "rpt.id.trust.files"
}

// mono sets l in the fixed-width face: a technical detail (paths, the
// TPM's index).
func mono(l *widget.Label) *widget.Label {
	l.TextStyle = fyne.TextStyle{Monospace: true}
	return l
}

// groupHex writes a hash in groups of eight, four groups a line, as a
// person reads it aloud or compares it.
func groupHex(h string) string {
	var out []byte
	for i := 0; i < len(h); i++ {
		if i > 0 && i%8 == 0 {
			if i%32 == 0 {
				out = append(out, '\n')
			} else {
				out = append(out, ' ')
			}
		}
		out = append(out, h[i])
	}
	return string(out)
}
