package maint

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/store"
)

// blkOffice is the back office of the blocks view's tests: its blocks are
// a real store's, which verifies every import as the kiosk's does.
type blkOffice struct {
	st *store.Store
	// fixed, when set, is what Blocks and BlockProgress return instead.
	fixed    []store.BlockInfo
	progress map[int64]store.Progress
	// keys, when set, are the issuer keys the kiosk trusts instead of
	// kiosktest.Keys.
	keys block.Keys
}

func (o *blkOffice) Blocks(ctx context.Context, _ *kiosk.Session) ([]store.BlockInfo, error) {
	if o.st == nil {
		return o.fixed, nil
	}
	return o.st.Blocks(ctx)
}

func (o *blkOffice) BlockProgress(ctx context.Context, _ *kiosk.Session, id int64) (store.Progress, error) {
	if o.st == nil {
		return o.progress[id], nil
	}
	return o.st.BlockProgress(ctx, id)
}

func (o *blkOffice) ImportBlock(ctx context.Context, _ *kiosk.Session, _ string, r io.Reader) (store.BlockInfo, error) {
	if o.keys != nil {
		return o.st.ImportBlock(ctx, r, o.keys)
	}
	return o.st.ImportBlock(ctx, r, kiosktest.Keys)
}

func (o *blkOffice) WithdrawBlock(ctx context.Context, _ *kiosk.Session, id int64, reason string) (store.BlockInfo, error) {
	return o.st.WithdrawBlock(ctx, id, reason+" (by technician)")
}

// blkScreen opens the blocks view on a test window for office, with
// BlockDir at dir, and returns the window and what the view said on
// stderr.
func blkScreen(t *testing.T, office blockDesk, dir string, lang ui.Lang) (fyne.Window, *bytes.Buffer) {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	oldDir, oldErr := BlockDir, blocksStderr
	var stderr bytes.Buffer
	BlockDir, blocksStderr = dir, &stderr
	t.Cleanup(func() { BlockDir, blocksStderr = oldDir, oldErr })
	var v View
	for _, x := range viewsFor(kiosk.RoleTechnician) {
		if x.ID == "blocks" {
			v = x
		}
	}
	require.Equal(t, "blocks", v.ID, "the view is in the technician's menu")
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	env := &Env{
		Ctx: context.Background(), Session: &kiosk.Session{},
		Tr: Tr{Lang: lang}, Win: w, Loc: time.UTC,
		Now: func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) },
		Go:  func(f func()) { f() }, Do: func(f func()) { f() }, Touch: func() {}, Refresh: func() {},
	}
	w.SetContent(buildBlocks(env, office))
	w.Resize(fyne.NewSize(1280, 800))
	return w, &stderr
}

// blkWalk calls f on every object shown in w.
func blkWalk(w fyne.Window, f func(fyne.CanvasObject)) {
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		f(o)
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case *container.Scroll:
			walk(x.Content)
		case *container.ThemeOverride:
			walk(x.Content)
		case *container.Split:
			walk(x.Leading)
			walk(x.Trailing)
		}
	}
	walk(w.Content())
}

// blkTexts are the labels shown.
func blkTexts(w fyne.Window) []string {
	var out []string
	blkWalk(w, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text != "" {
			out = append(out, l.Text)
		}
	})
	return out
}

func blkHasText(w fyne.Window, part string) bool {
	for _, s := range blkTexts(w) {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

func blkButton(t *testing.T, w fyne.Window, label string) *widget.Button {
	t.Helper()
	var b *widget.Button
	blkWalk(w, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == label {
			b = x
		}
	})
	require.NotNil(t, b, "button %q", label)
	return b
}

func blkChoose(t *testing.T, w fyne.Window, file string) {
	t.Helper()
	var r *widget.RadioGroup
	blkWalk(w, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.RadioGroup); ok {
			r = x
		}
	})
	require.NotNil(t, r, "the list of files")
	require.Contains(t, r.Options, file)
	r.SetSelected(file)
}

// A technician imports blocks from a USB stick on the screen: a tampered
// file is refused with its reason (on the screen and on stderr) and
// imports nothing; a good one is imported and listed; then it is withdrawn
// for good, only once confirmed with a reason.
func TestBlocksImportAndWithdrawFromTheScreen(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "pharaon.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	media := filepath.Join(dir, "media")
	require.NoError(t, os.MkdirAll(filepath.Join(media, "usb0", "blocs"), 0o755))
	var buf bytes.Buffer
	require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake050, 11, nil))
	good := buf.Bytes()
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0x40
	require.NoError(t, os.WriteFile(filepath.Join(media, "usb0", "blocs", "b11.pblk"), good, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(media, "usb0", "b11-copie.pblk"), bad, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(media, "usb0", "lisezmoi.txt"), []byte("x"), 0o644))

	w, stderr := blkScreen(t, &blkOffice{st: st}, media, ui.French)
	assert.True(t, blkHasText(w, "Aucun bloc importé\u00a0: la borne ne vend rien. Branchez la clé USB de l’émetteur et importez un bloc ci-dessus."), "%q", blkTexts(w))

	blkChoose(t, w, filepath.Join("usb0", "b11-copie.pblk"))
	test.Tap(blkButton(t, w, "Vérifier et importer"))
	assert.True(t, blkHasText(w, "b11-copie.pblk refusé\u00a0: "), "%q", blkTexts(w))
	assert.Contains(t, stderr.String(), "b11-copie.pblk refused")
	blocks, err := st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Empty(t, blocks, "a refused file imports nothing")
	assert.True(t, blkHasText(w, "Aucun bloc importé\u00a0: la borne ne vend rien. Branchez la clé USB de l’émetteur et importez un bloc ci-dessus."))

	blkChoose(t, w, filepath.Join("usb0", "blocs", "b11.pblk"))
	test.Tap(blkButton(t, w, "Vérifier et importer"))
	assert.True(t, blkHasText(w, "b11.pblk importé\u00a0: bloc 7/11, 0,50\u00a0€, 350\u00a0000\u00a0unités de jeu, en vente."), "%q", blkTexts(w))
	assert.True(t, blkHasText(w, "Bloc 7/11 · 0,50\u00a0€ · en vente"))
	assert.True(t, blkHasText(w, "Vendus 0 · restants 350\u00a0000 · gagné 0\u00a0€"), "%q", blkTexts(w))

	// Imported once: the same file again is refused.
	test.Tap(blkButton(t, w, "Vérifier et importer"))
	assert.True(t, blkHasText(w, "b11.pblk refusé\u00a0: ce bloc est déjà importé."), "%q", blkTexts(w))

	test.Tap(blkButton(t, w, "Retirer…"))
	confirm := blkButton(t, w, "Confirmer le retrait")
	assert.True(t, confirm.Disabled(), "no withdrawal without a reason")
	test.Tap(blkButton(t, w, "Annuler"))
	blocks, _ = st.Blocks(context.Background())
	assert.Equal(t, store.BlockOpen, blocks[0].State, "cancelled: still on sale")

	test.Tap(blkButton(t, w, "Retirer…"))
	var reason *widget.Entry
	blkWalk(w, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			reason = e
		}
	})
	require.NotNil(t, reason)
	test.Type(reason, "carton abîmé")
	confirm = blkButton(t, w, "Confirmer le retrait")
	require.False(t, confirm.Disabled())
	test.Tap(confirm)
	blocks, _ = st.Blocks(context.Background())
	assert.Equal(t, store.BlockWithdrawn, blocks[0].State)
	assert.True(t, blkHasText(w, "Bloc 7/11 retiré."))
	assert.True(t, blkHasText(w, "Bloc 7/11 · 0,50\u00a0€ · retiré"))
	assert.True(t, blkHasText(w, "Retiré\u00a0: carton abîmé (by technician)"), "%q", blkTexts(w))
	for _, s := range blkTexts(w) {
		assert.NotEqual(t, "Retirer…", s)
	}
}

// The list of blocks as a technician sees it: files found on the stick,
// each block with its state, counts and tiers (golden image).
func TestBlocksGolden(t *testing.T) {
	info := func(id int64, n uint32, s game.Stake, state store.BlockState, sold int) store.BlockInfo {
		return store.BlockInfo{ID: id, Emission: 7, Number: n, Stake: s, Units: 350_000, State: state, Sold: sold}
	}
	blocks := []store.BlockInfo{
		info(1, 11, game.Stake050, store.BlockOpen, 1_234),
		info(2, 12, game.Stake050, store.BlockQueued, 0),
	}
	progress := map[int64]store.Progress{}
	for _, b := range blocks {
		p := store.Progress{Block: b, Sold: b.Sold, Remaining: b.Remaining()}
		tab := game.Table(b.Stake)
		for t := game.Tier(1); t <= game.NumTiers; t++ {
			tp := store.TierProgress{Lots: int(t) * 10}
			if b.Sold > 0 && t >= 6 {
				tp.Sold = int(t) - 5
				tp.Won = tab.Amount(t) * game.Money(tp.Sold)
				p.Won += tp.Won
			}
			tp.Remaining = tp.Lots - tp.Sold
			p.Tiers[t] = tp
		}
		progress[b.ID] = p
	}
	w, _ := blkScreen(t, &blkOffice{fixed: blocks, progress: progress}, filepath.Join("testdata", "media"), ui.French)
	assert.True(t, blkHasText(w, "Fichiers de blocs dans testdata/media\u00a0:"))
	settle(w)
	golden.Assert(t, "maint-blocks.png", w.Canvas().Capture())
}

// Staff never see the blocks view; with no stick, the view says where it
// looked, in the language shown.
func TestBlocksTechnicianOnlyAndNoStick(t *testing.T) {
	for _, v := range viewsFor(kiosk.RoleStaff) {
		assert.NotEqual(t, "blocks", v.ID, "staff reach the blocks view")
	}
	w, _ := blkScreen(t, &blkOffice{}, filepath.Join(t.TempDir(), "absent"), ui.English)
	assert.True(t, blkHasText(w, "No block file in "), "%q", blkTexts(w))
	assert.True(t, blkHasText(w, "No block imported: the kiosk sells nothing. Plug in the issuer’s USB stick and import a block above."))
	assert.True(t, blkButton(t, w, "Verify and import").Disabled(), "nothing to import")
}

// The shell's BlockDir (the kiosk's block-dir) is where the blocks view
// looks, not the default.
func TestBlocksLookInTheConfiguredDir(t *testing.T) {
	f := newShFix(t, true)
	f.blockDir = filepath.Join(t.TempDir(), "cle")
	require.NoError(t, os.MkdirAll(filepath.Join(f.blockDir, "usb0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(f.blockDir, "usb0", "lot-7.pblk"), []byte("x"), 0o644))
	f.open(ui.French)
	f.pin(shTechPIN)
	require.True(t, f.sh.Show("blocks"))
	assert.Contains(t, f.text(), "Fichiers de blocs dans "+f.blockDir+"\u00a0:")
	assert.NotContains(t, f.text(), BlockDir)
}

// A kiosk configured with no issuer key says so, and what to do, when a
// block is imported: not that the block's key is not trusted, which sends
// the technician to the issuer for nothing.
func TestBlocksImportWithNoIssuerKeyConfigured(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "pharaon.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	media := filepath.Join(dir, "media")
	require.NoError(t, os.MkdirAll(filepath.Join(media, "usb0"), 0o755))
	var buf bytes.Buffer
	require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake050, 11, nil))
	require.NoError(t, os.WriteFile(filepath.Join(media, "usb0", "b11.pblk"), buf.Bytes(), 0o644))
	for _, c := range []struct {
		lang ui.Lang
		says string
	}{
		{ui.French, "b11.pblk refusé\u00a0: aucune clé d’émetteur n’est configurée sur cette borne\u00a0: copiez le fichier .pub de l’émetteur dans le dossier keys de la partition PHARAON, nommez-le dans keys de son pharaon.conf, puis redémarrez la borne."},
		{ui.English, "b11.pblk refused: no issuer key is configured on this kiosk: copy the issuer’s .pub file into the keys folder of the PHARAON partition, name it in keys in its pharaon.conf, then restart the kiosk."},
	} {
		w, stderr := blkScreen(t, &blkOffice{st: st, keys: block.KeySet{}}, media, c.lang)
		blkChoose(t, w, filepath.Join("usb0", "b11.pblk"))
		test.Tap(blkButton(t, w, map[ui.Lang]string{ui.French: "Vérifier et importer", ui.English: "Verify and import"}[c.lang]))
		assert.True(t, blkHasText(w, c.says), "%q", blkTexts(w))
		assert.Contains(t, stderr.String(), "no issuer key configured")
		assert.NotContains(t, stderr.String(), "not trusted")
	}
	blocks, err := st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Empty(t, blocks)
}
