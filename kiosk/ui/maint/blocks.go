package maint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The technician's ticket blocks (DESIGN.md §5, §9): import a signed block
// file from a USB stick mounted under BlockDir, verified by the Office as
// every import is (the same check as `pharaon import`), a refusal said on
// the screen and on stderr; the blocks with their state, units sold and
// remaining, and what each tier sold and won; a block withdrawn for good,
// after a confirmation and with a reason.

// BlockDir is where the view looks for block files when the shell is given
// none (Config.BlockDir, the kiosk's block-dir): a USB stick is mounted
// under it (the disk image mounts one on /media/sda1).
var BlockDir = "/media"

// BlockExts are the names block files end with (pharaon-issuer writes
// .pblk).
var BlockExts = []string{".pblk", ".blk"}

// blockDepth is how deep under BlockDir the files are looked for.
const blockDepth = 3

// blocksStderr receives the refusals (the journal, for the technician who
// reads it later).
var blocksStderr io.Writer = os.Stderr

// blockProgresser is the Office's count of a block's progress by tier
// (*kiosk.Office has it).
type blockProgresser interface {
	BlockProgress(ctx context.Context, s *kiosk.Session, id int64) (store.Progress, error)
}

var _ blockProgresser = (*kiosk.Office)(nil)

var _ = register(View{ID: "blocks", Title: "blocks.title", Need: kiosk.RoleTechnician, Order: 60,
	Build: func(env *Env, o Office) fyne.CanvasObject { return buildBlocks(env, o) }})

var _ = words(map[word]text{
	"blocks.title":           {"Blocs d’unités de jeu", "Blocks of game units"},
	"blocks.import":          {"Importer un bloc", "Import a block"},
	"blocks.files":           {"Fichiers de blocs dans %s\u00a0:", "Block files in %s:"},
	"blocks.nofiles":         {"Aucun fichier de bloc dans %s\u00a0: la clé USB est-elle branchée\u00a0?", "No block file in %s: is the USB stick plugged in?"},
	"blocks.rescan":          {"Relire la clé", "Read the stick again"},
	"blocks.doimport":        {"Vérifier et importer", "Verify and import"},
	"blocks.choose":          {"Choisissez un fichier.", "Choose a file."},
	"blocks.importing":       {"Vérification de %s…", "Verifying %s…"},
	"blocks.imported":        {"%s importé\u00a0: bloc %d/%d, %s, %s, %s.", "%s imported: block %d/%d, %s, %s, %s."},
	"blocks.refused":         {"%s refusé\u00a0: %s.", "%s refused: %s."},
	"blocks.why.signature":   {"la signature ne correspond pas au contenu (fichier modifié ou abîmé)", "the signature does not match the content (file altered or damaged)"},
	"blocks.why.key":         {"signé par une clé d’émetteur qui n’est pas de confiance", "signed by an issuer key that is not trusted"},
	"blocks.why.nokeys":      {"aucune clé d’émetteur n’est configurée sur cette borne\u00a0: copiez le fichier .pub de l’émetteur dans le dossier keys de la partition PHARAON, nommez-le dans keys de son pharaon.conf, puis redémarrez la borne", "no issuer key is configured on this kiosk: copy the issuer’s .pub file into the keys folder of the PHARAON partition, name it in keys in its pharaon.conf, then restart the kiosk"},
	"blocks.why.duplicate":   {"ce bloc est déjà importé", "this block is already imported"},
	"blocks.why.taken":       {"ce bloc est déjà en vente à une autre borne de la flotte", "this block is already on sale at another kiosk of the fleet"},
	"blocks.why.takenby":     {"ce bloc est déjà en vente à la borne %s de la flotte", "this block is already on sale at kiosk %s of the fleet"},
	"blocks.why.truncated":   {"fichier incomplet (copie interrompue\u00a0?)", "incomplete file (copy interrupted?)"},
	"blocks.why.counts":      {"les lots ne sont pas ceux du règlement", "the prizes are not the regulation’s"},
	"blocks.why.format":      {"ce n’est pas un fichier de bloc Pharaon valide", "not a valid Pharaon block file"},
	"blocks.why.read":        {"fichier illisible", "the file cannot be read"},
	"blocks.why.other":       {"bloc refusé", "block refused"},
	"blocks.list":            {"Blocs", "Blocks"},
	"blocks.none":            {"Aucun bloc importé\u00a0: la borne ne vend rien. Branchez la clé USB de l’émetteur et importez un bloc ci-dessus.", "No block imported: the kiosk sells nothing. Plug in the issuer’s USB stick and import a block above."},
	"blocks.block":           {"Bloc %d/%d · %s · %s", "Block %d/%d · %s · %s"},
	"blocks.counts":          {"Vendus %s · restants %s · gagné %s", "Sold %s · remaining %s · won %s"},
	"blocks.tiers":           {"Lot", "Prize"},
	"blocks.tiersold":        {"Vendus", "Sold"},
	"blocks.tierwon":         {"Gagné", "Won"},
	"blocks.state.queued":    {"en attente", "queued"},
	"blocks.state.open":      {"en vente", "on sale"},
	"blocks.state.exhausted": {"épuisé", "sold out"},
	"blocks.state.withdrawn": {"retiré", "withdrawn"},
	"blocks.note":            {"Retiré\u00a0: %s", "Withdrawn: %s"},
	"blocks.withdraw":        {"Retirer…", "Withdraw…"},
	"blocks.confirm":         {"Retirer le bloc %d/%d pour de bon\u00a0? Ce qu’il lui reste ne sera jamais vendu\u00a0: %s.", "Withdraw block %d/%d for good? What it has left will never be sold: %s."},
	"blocks.reason":          {"Raison (obligatoire)", "Reason (required)"},
	"blocks.dowithdraw":      {"Confirmer le retrait", "Confirm the withdrawal"},
	"blocks.cancel":          {"Annuler", "Cancel"},
	"blocks.withdrawn":       {"Bloc %d/%d retiré.", "Block %d/%d withdrawn."},
	"blocks.failed":          {"Bloc non retiré.", "Block not withdrawn."},
})

// blocksView is the view's state across its own redraws.
type blocksView struct {
	env *Env
	o   blockDesk
	// left is the import from the stick, right the list of blocks below
	// it.
	left, right *fyne.Container
	files       []string // found under BlockDir, relative to it
	chosen      string
	status      *widget.Label // the last import's or withdrawal's outcome
	busy        bool
	// withdrawing is the block whose withdrawal is being confirmed (0:
	// none), and the reason typed.
	withdrawing int64
	reason      *widget.Entry
	blocks      []store.BlockInfo
	progress    map[int64]store.Progress
	loadErr     error
}

// blockDesk is what the blocks view does: it lists the blocks, imports one
// and withdraws one.
type blockDesk interface {
	Blocks(ctx context.Context, s *kiosk.Session) ([]store.BlockInfo, error)
	ImportBlock(ctx context.Context, s *kiosk.Session, name string, r io.Reader) (store.BlockInfo, error)
	WithdrawBlock(ctx context.Context, s *kiosk.Session, id int64, reason string) (store.BlockInfo, error)
}

func buildBlocks(env *Env, o blockDesk) fyne.CanvasObject {
	v := &blocksView{env: env, o: o, left: container.NewVBox(), right: container.NewVBox(), status: widget.NewLabel("")}
	v.status.Wrapping = fyne.TextWrapWord
	v.scan()
	v.load()
	return container.NewVScroll(container.NewVBox(v.left, widget.NewSeparator(), v.right))
}

// dir is where the block files are looked for: the shell's, else BlockDir.
func (v *blocksView) dir() string {
	if v.env.BlockDir != "" {
		return v.env.BlockDir
	}
	return BlockDir
}

// count is n with the language's grouping.
func blkCount(tr Tr, n int) string {
	if tr.Lang == ui.English {
		return strconv.Itoa(n)
	}
	return game.Count(n)
}

// scan lists the block files under BlockDir.
func (v *blocksView) scan() {
	v.files = v.files[:0]
	root := filepath.Clean(v.dir())
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (strings.Count(rel, string(filepath.Separator)) >= blockDepth-1 || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && slices.Contains(BlockExts, strings.ToLower(filepath.Ext(p))) {
			v.files = append(v.files, rel)
		}
		return nil
	})
	slices.Sort(v.files)
	if !slices.Contains(v.files, v.chosen) {
		v.chosen = ""
	}
}

// load reads the blocks and their progress off the Fyne goroutine, then
// draws.
func (v *blocksView) load() {
	env := v.env
	env.Go(func() {
		blocks, err := v.o.Blocks(env.Ctx, env.Session)
		progress := map[int64]store.Progress{}
		if bp, ok := v.o.(blockProgresser); ok && err == nil {
			for _, b := range blocks {
				p, perr := bp.BlockProgress(env.Ctx, env.Session, b.ID)
				if perr != nil {
					err = perr
					break
				}
				progress[b.ID] = p
			}
		}
		env.Do(func() {
			v.blocks, v.progress, v.loadErr = blocks, progress, err
			v.draw()
		})
	})
}

func (v *blocksView) touch() {
	if v.env.Touch != nil {
		v.env.Touch()
	}
}

func (v *blocksView) draw() {
	tr := v.env.Tr
	var left []fyne.CanvasObject
	left = append(left, heading(tr.T("blocks.import")))
	if len(v.files) == 0 {
		left = append(left, wrapped(tr.F("blocks.nofiles", v.dir())))
	} else {
		left = append(left, wrapped(tr.F("blocks.files", v.dir())))
		files := widget.NewRadioGroup(v.files, func(s string) {
			v.touch()
			v.chosen = s
		})
		files.Selected = v.chosen
		left = append(left, files)
	}
	imp := widget.NewButton(tr.T("blocks.doimport"), v.importChosen)
	imp.Importance = widget.HighImportance
	if len(v.files) == 0 || v.busy {
		imp.Disable()
	}
	rescan := widget.NewButton(tr.T("blocks.rescan"), func() {
		v.touch()
		v.scan()
		v.draw()
	})
	// The import's outcome keeps its room under the buttons: the blocks
	// below do not move when it shows.
	left = append(left, shFlow(rptSized(imp), rptSized(rescan)), shMessage(v.status, 2))
	v.left.Objects = left
	v.left.Refresh()

	right := []fyne.CanvasObject{heading(tr.T("blocks.list"))}
	switch {
	case v.loadErr != nil:
		right = append(right, wrapped(tr.F("blocks.failed", v.loadErr)))
	case len(v.blocks) == 0:
		right = append(right, widget.NewLabel(tr.T("blocks.none")))
	}
	for _, b := range v.blocks {
		right = append(right, v.card(b))
	}
	v.right.Objects = right
	v.right.Refresh()
}

func wrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// cell is a figure of the tiers' table, aligned right.
func cell(s string, bold bool) fyne.CanvasObject {
	t := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
	t.Alignment = fyne.TextAlignTrailing
	t.TextStyle = fyne.TextStyle{Bold: bold}
	return t
}

func heading(s string) fyne.CanvasObject {
	l := wrapped(s)
	l.TextStyle = fyne.TextStyle{Bold: true}
	return l
}

// card is one block: its name, stake and state, its counts, its tiers, and
// the withdrawal.
func (v *blocksView) card(b store.BlockInfo) fyne.CanvasObject {
	tr := v.env.Tr
	state := tr.T(word("blocks.state." + string(b.State)))
	objs := []fyne.CanvasObject{
		heading(tr.F("blocks.block", b.Emission, b.Number, tr.Money(b.Stake.Money()), state)),
	}
	p, ok := v.progress[b.ID]
	if ok {
		objs = append(objs, wrapped(tr.F("blocks.counts", blkCount(tr, p.Sold), blkCount(tr, p.Remaining), tr.Money(p.Won))))
		// A line per tier: its prize, sold of its lots, won (eight
		// columns across did not fit a small screen).
		table := game.Table(b.Stake)
		tiers := newFoldTable(false, 36)
		rows := []fyne.CanvasObject{tiers.row([]fyne.CanvasObject{cell(tr.T("blocks.tiers"), true), cell(tr.T("blocks.tiersold"), true), cell(tr.T("blocks.tierwon"), true)}, nil)}
		for t := game.Tier(1); t <= game.NumTiers; t++ {
			rows = append(rows, tiers.row([]fyne.CanvasObject{cell(tr.Money(table.Amount(t)), true),
				cell(blkCount(tr, p.Tiers[t].Sold)+"/"+blkCount(tr, p.Tiers[t].Lots), false), cell(tr.Money(p.Tiers[t].Won), false)}, nil))
		}
		objs = append(objs, container.NewPadded(container.NewVBox(rows...)))
	} else {
		objs = append(objs, wrapped(tr.F("blocks.counts", blkCount(tr, b.Sold), blkCount(tr, b.Remaining()), "—")))
	}
	if b.State == store.BlockWithdrawn && b.Note != "" {
		objs = append(objs, wrapped(tr.F("blocks.note", b.Note)))
	}
	if b.State == store.BlockQueued || b.State == store.BlockOpen {
		if v.withdrawing == b.ID {
			objs = append(objs, v.confirm(b))
		} else {
			w := widget.NewButton(tr.T("blocks.withdraw"), func() {
				v.touch()
				v.withdrawing = b.ID
				v.reason = nil
				v.draw()
			})
			if v.busy {
				w.Disable()
			}
			objs = append(objs, container.NewHBox(rptSized(w)))
		}
	}
	objs = append(objs, widget.NewSeparator())
	return container.NewVBox(objs...)
}

// confirm asks for the withdrawal's confirmation and reason.
func (v *blocksView) confirm(b store.BlockInfo) fyne.CanvasObject {
	tr := v.env.Tr
	if v.reason == nil {
		v.reason = widget.NewEntry()
		v.reason.SetPlaceHolder(tr.T("blocks.reason"))
	}
	ok := widget.NewButton(tr.T("blocks.dowithdraw"), nil)
	ok.Importance = widget.DangerImportance
	enable := func(s string) {
		if strings.TrimSpace(s) == "" || v.busy {
			ok.Disable()
		} else {
			ok.Enable()
		}
	}
	v.reason.OnChanged = func(s string) {
		v.touch()
		enable(s)
	}
	enable(v.reason.Text)
	ok.OnTapped = func() {
		v.touch()
		reason := strings.TrimSpace(v.reason.Text)
		if reason == "" || v.busy {
			return
		}
		v.withdraw(b, reason)
	}
	cancel := widget.NewButton(tr.T("blocks.cancel"), func() {
		v.touch()
		v.withdrawing, v.reason = 0, nil
		v.draw()
	})
	q := widget.NewLabel(tr.F("blocks.confirm", b.Emission, b.Number, tr.Count(int64(b.Remaining()), "n.unit")))
	q.Wrapping = fyne.TextWrapWord
	return container.NewVBox(q, v.reason, shFlow(rptSized(ok), rptSized(cancel)))
}

func (v *blocksView) withdraw(b store.BlockInfo, reason string) {
	env, tr := v.env, v.env.Tr
	v.busy = true
	v.draw()
	env.Go(func() {
		_, err := v.o.WithdrawBlock(env.Ctx, env.Session, b.ID, reason)
		env.Do(func() {
			v.busy = false
			if err != nil {
				v.status.SetText(rptRefusal(tr, tr.T("blocks.failed"), err))
				fmt.Fprintf(blocksStderr, "maintenance: withdraw block %d/%d: %v\n", b.Emission, b.Number, err)
			} else {
				v.status.SetText(tr.F("blocks.withdrawn", b.Emission, b.Number))
				v.withdrawing, v.reason = 0, nil
			}
			v.load()
		})
	})
}

// importChosen imports the file chosen, verified by the Office.
func (v *blocksView) importChosen() {
	env, tr := v.env, v.env.Tr
	v.touch()
	if v.busy {
		return
	}
	if v.chosen == "" {
		v.status.SetText(tr.T("blocks.choose"))
		return
	}
	name := v.chosen
	path := filepath.Join(v.dir(), name)
	v.busy = true
	v.status.SetText(tr.F("blocks.importing", name))
	v.draw()
	env.Go(func() {
		var b store.BlockInfo
		f, err := os.Open(path)
		if err == nil {
			b, err = v.o.ImportBlock(env.Ctx, env.Session, path, f)
			f.Close()
		}
		env.Do(func() {
			v.busy = false
			if err != nil {
				v.status.SetText(tr.F("blocks.refused", name, refusalText(tr, err)))
				fmt.Fprintf(blocksStderr, "maintenance: block file %s refused: %v\n", path, err)
			} else {
				v.status.SetText(tr.F("blocks.imported", name, b.Emission, b.Number, tr.Money(b.Stake.Money()),
					tr.Count(int64(b.Units), "n.unit"), tr.T(word("blocks.state."+string(b.State)))))
			}
			v.load()
		})
	})
}

// refusalText says why an import was refused, in tr's language: the kiosk
// that sells the block when the fleet says which.
func refusalText(tr Tr, err error) string {
	if taken := (*kiosk.BlockTakenError)(nil); errors.As(err, &taken) {
		return tr.F("blocks.why.takenby", taken.Kiosk)
	}
	return tr.T(refusal(err))
}

// refusal names why an import was refused.
func refusal(err error) word {
	switch {
	case errors.Is(err, block.ErrSignature):
		return "blocks.why.signature"
	case errors.Is(err, block.ErrNoKeys):
		return "blocks.why.nokeys"
	case errors.Is(err, block.ErrUnknownKey):
		return "blocks.why.key"
	case errors.Is(err, store.ErrDuplicateBlock):
		return "blocks.why.duplicate"
	case errors.Is(err, kiosk.ErrBlockTaken):
		return "blocks.why.taken"
	case errors.Is(err, block.ErrTruncated):
		return "blocks.why.truncated"
	case errors.Is(err, block.ErrCounts):
		return "blocks.why.counts"
	case errors.Is(err, block.ErrFormat), errors.Is(err, block.ErrVersion), errors.Is(err, block.ErrHeader), errors.Is(err, block.ErrTrailing):
		return "blocks.why.format"
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return "blocks.why.read"
	}
	return "blocks.why.other"
}
