package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The technician's block commands, for a stopped kiosk (DESIGN.md §5):
//
//	pharaon import [flags] FILE...   import signed block files
//	pharaon blocks [flags]           list the blocks: state, sold, remaining, won by tier
//
// They read the same configuration as the kiosk (-config, -db, -keys) and
// verify a file exactly as the maintenance screen does (store.ImportBlock:
// signature, lots, then uniqueness); a refused file changes nothing and is
// logged in the kiosk's event log. A production database is never created
// here unless -first-install says this is a new kiosk. Exit status 0 when
// every file was imported, 1 when one was refused, and the kiosk's start-up
// statuses (3, 4, 5) when the database or the keys cannot be used.

func init() {
	subcommands["import"] = command{runImport, "[flags] FILE...",
		"import signed block files into a stopped kiosk's database", "docs/technician.md"}
	subcommands["blocks"] = command{runBlocks, "[flags]",
		"list a stopped kiosk's blocks: state, sold, remaining, won by tier", "docs/technician.md"}
}

// splitArgs separates the flags from the files that follow them.
func splitArgs(args []string) (flags, rest []string, err error) {
	var cfg Config
	var configPath string
	fs := flag.NewFlagSet("pharaon", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindFlags(fs, &cfg, &configPath)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, &usageError{err.Error()}
	}
	return args[:len(args)-fs.NArg()], fs.Args(), nil
}

// openStore opens the kiosk's database, creating it only when mayCreate
// allows (and reports whether it may have), with the start-up failures'
// statuses: the kiosk and the block commands open it the same way.
func openStore(cfg Config) (*store.Store, bool, error) {
	create, err := mayCreate(cfg)
	if err != nil {
		return nil, false, err
	}
	if create {
		if err := os.MkdirAll(filepath.Dir(cfg.DB), 0o700); err != nil {
			return nil, false, storeFailure(fmt.Errorf("database directory: %w", err))
		}
	}
	anchor, err := anchorConfig(cfg)
	if err != nil {
		return nil, false, trustFailure(err)
	}
	st, err := store.Open(cfg.DB, store.WithCreate(create), store.WithAnchor(anchor))
	if c, ok := anchor.Trust.(io.Closer); ok && err != nil {
		c.Close() // the store did not take it
	}
	switch {
	case errors.Is(err, store.ErrNoDatabase):
		return nil, false, noDatabase(cfg, err)
	case errors.Is(err, store.ErrLocked):
		return nil, false, inUse(cfg, err)
	case err != nil:
		return nil, false, storeFailure(err)
	}
	return st, create, nil
}

// blockWords are the block commands' words, in the kiosk's languages.
type blockWords struct{ lang ui.Lang }

func (w blockWords) pick(fr, en string) string {
	if w.lang == ui.English {
		return en
	}
	return fr
}

func (w blockWords) money(m game.Money) string {
	if w.lang == ui.English {
		return m.English()
	}
	return m.French()
}

func (w blockWords) count(n int) string {
	if w.lang == ui.English {
		return strconv.Itoa(n)
	}
	return game.Count(n)
}

func (w blockWords) state(s store.BlockState) string {
	fr := map[store.BlockState]string{store.BlockQueued: "en attente", store.BlockOpen: "en vente",
		store.BlockExhausted: "épuisé", store.BlockWithdrawn: "retiré"}
	if w.lang == ui.English {
		return string(s)
	}
	if t, ok := fr[s]; ok {
		return t
	}
	return string(s)
}

func runImport(ctx context.Context, args []string, e env, stdout, stderr io.Writer) error {
	flags, files, err := splitArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "import", kioskFlags())
		} else {
			fmt.Fprintf(stderr, "pharaon import: %v\n", err)
		}
		return err
	}
	cfg, err := loadConfig(flags, e, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "pharaon import: %v\n", err)
		}
		return err
	}
	w := blockWords{cfg.Lang}
	if len(files) == 0 {
		err := &usageError{w.pick("aucun fichier de bloc à importer", "no block file to import")}
		fmt.Fprintf(stderr, "pharaon import: %v\n", err)
		return err
	}
	keys, err := trustedKeys(cfg.Keys)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon import: %v\n", err)
		return &startError{status: exitKeys, err: err}
	}
	st, _, err := openStore(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon import: %v\n", err)
		return err
	}
	defer st.Close()
	// A kiosk joined to a fleet claims each block in the fleet before
	// importing it (kiosk.ImportBlockClaiming): a block on sale at
	// another kiosk is refused; with the centre away, it is imported
	// and claimed when the kiosk runs again.
	var claims kiosk.BlockClaims
	lc := &laterClaims{}
	if cfg.Fleet.URL != "" {
		cl, err := fleet.NewClaimer(cfg.Fleet)
		if err != nil {
			fmt.Fprintf(stderr, "pharaon import: %v\n", err)
			return &usageError{err.Error()}
		}
		defer cl.Close()
		claims = lc
		lc.BlockClaims = cl
	}
	refused := 0
	for _, name := range files {
		lc.later = false
		b, err := importFile(ctx, st, name, keys, claims)
		var taken *kiosk.BlockTakenError
		switch {
		case errors.As(err, &taken):
			refused++
			fmt.Fprintf(stderr, "pharaon import: %s %s%s %s\n", name, w.pick("refusé", "refused"), w.pick("\u00a0:", ":"),
				w.pick(fmt.Sprintf("le bloc %d/%d est déjà en vente à la borne %s depuis le %s (flotte)", taken.Emission, taken.Number,
					taken.Kiosk, taken.At.Local().Format("02/01/2006 15:04")),
					fmt.Sprintf("block %d/%d is already on sale at kiosk %s since %s (fleet)", taken.Emission, taken.Number,
						taken.Kiosk, taken.At.Local().Format("2006-01-02 15:04"))))
			continue
		case err != nil:
			refused++
			fmt.Fprintf(stderr, "pharaon import: %s %s%s %v\n", name, w.pick("refusé", "refused"), w.pick("\u00a0:", ":"), err)
			continue
		}
		if lc.later {
			fmt.Fprintf(stderr, "pharaon import: %s%s %s\n", name, w.pick("\u00a0:", ":"),
				w.pick("la flotte ne répond pas\u00a0: bloc importé sans être réservé, il le sera au démarrage de la borne",
					"the fleet does not answer: block imported without its claim, claimed when the kiosk starts"))
		}
		fmt.Fprintf(stdout, "%s%s %s %d/%d, %s, %s %s, %s\n", name, w.pick("\u00a0:", ":"), w.pick("bloc", "block"), b.Emission, b.Number,
			w.money(b.Stake.Money()), w.count(b.Units), w.pick("unités de jeu", "game units"), w.state(b.State))
	}
	if refused > 0 {
		return fmt.Errorf("%d of %d block files refused", refused, len(files))
	}
	return nil
}

// importFile imports one block file (store.ImportBlock verifies it),
// claimed in the fleet first when claims is not nil.
func importFile(ctx context.Context, st *store.Store, name string, keys block.Keys, claims kiosk.BlockClaims) (store.BlockInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return store.BlockInfo{}, err
	}
	defer f.Close()
	if claims != nil {
		return kiosk.ImportBlockClaiming(ctx, st, keys, claims, time.Now(), f)
	}
	return st.ImportBlock(ctx, f, keys)
}

// laterClaims are the fleet's claims of a stopped kiosk: the blocks
// imported while the centre did not answer are noted, for the technician;
// the kiosk claims them when it runs (kiosk/fleet/claims.go).
type laterClaims struct {
	kiosk.BlockClaims
	later bool
}

func (c *laterClaims) Later(kiosk.BlockClaim) { c.later = true }

func runBlocks(ctx context.Context, args []string, e env, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(args, e, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stderr, "blocks", kioskFlags())
		} else {
			fmt.Fprintf(stderr, "pharaon blocks: %v\n", err)
		}
		return err
	}
	cfg.FirstInstall = false // listing never creates a database
	w := blockWords{cfg.Lang}
	st, _, err := openStore(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon blocks: %v\n", err)
		return err
	}
	defer st.Close()
	blocks, err := st.Blocks(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon blocks: %v\n", err)
		return storeFailure(err)
	}
	if len(blocks) == 0 {
		fmt.Fprintln(stdout, w.pick("Aucun bloc.", "No block."))
		return nil
	}
	for _, b := range blocks {
		p, err := st.BlockProgress(ctx, b.ID)
		if err != nil {
			fmt.Fprintf(stderr, "pharaon blocks: %v\n", err)
			return storeFailure(err)
		}
		fmt.Fprintf(stdout, "%s %d/%d  %s  %s  %s %s  %s %s  %s %s\n", w.pick("Bloc", "Block"), b.Emission, b.Number,
			w.money(b.Stake.Money()), w.state(b.State), w.pick("vendus", "sold"), w.count(p.Sold), w.pick("restants", "remaining"), w.count(p.Remaining),
			w.pick("gagné", "won"), w.money(p.Won))
		var tiers []string
		for t := 1; t < len(p.Tiers); t++ {
			tp := p.Tiers[t]
			tiers = append(tiers, fmt.Sprintf("%s %s/%s", w.money(game.Table(b.Stake).Amount(game.Tier(t))), w.count(tp.Sold), w.count(tp.Lots)))
		}
		fmt.Fprintf(stdout, "  %s %s\n", w.pick("lots vendus\u00a0:", "prizes sold:"), strings.Join(tiers, ", "))
	}
	return nil
}
