package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"pharaon/game"
	"pharaon/game/block"
)

// generate -emission N -block N -stake S -key FILE.key -out FILE [-bonus-share ...]
func (a *app) generate(ctx context.Context, args []string) error {
	flags := newFlagSet("generate")
	emission := flags.Uint64("emission", 0, "")
	number := flags.Uint64("block", 0, "")
	stakeArg := flags.String("stake", "", "")
	keyPath := flags.String("key", "", "")
	out := flags.String("out", "", "")
	shareArg := flags.String("bonus-share", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "generate")
	}
	switch {
	case len(pos) > 0:
		return a.usagef("generate : argument inattendu « %s »", "generate: unexpected argument %q", pos[0])
	case *emission == 0 || *emission > math.MaxUint32:
		return a.usagef("generate : -emission N est obligatoire, de 1 à %d", "generate: -emission N is required, from 1 to %d", uint32(math.MaxUint32))
	case *number == 0 || *number > math.MaxUint32:
		return a.usagef("generate : -block N est obligatoire, de 1 à %d", "generate: -block N is required, from 1 to %d", uint32(math.MaxUint32))
	case *stakeArg == "":
		return a.usagef("generate : -stake est obligatoire : 0,50, 1 ou 2", "generate: -stake is required: 0,50, 1 or 2")
	case *keyPath == "":
		return a.usagef("generate : -key FICHIER.key est obligatoire (la clé privée de l'émetteur)",
			"generate: -key FILE.key is required (the issuer's private key)")
	case *out == "":
		return a.usagef("generate : -out FICHIER est obligatoire", "generate: -out FILE is required")
	}
	stake, err := game.ParseStake(*stakeArg)
	if err != nil {
		return a.usagef("generate : -stake « %s » : pas une mise du jeu : 0,50, 1 ou 2",
			"generate: -stake %q: not a stake of the game: 0,50, 1 or 2", *stakeArg)
	}
	var share [game.NumTiers]uint16
	if *shareArg != "" {
		if share, err = a.lang.parseShare(*shareArg); err != nil {
			return a.usagef("generate : -bonus-share « %s » : %v", "generate: -bonus-share %q: %v", *shareArg, err)
		}
	}

	priv, err := readPrivateKey(*keyPath)
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	p := block.Params{Emission: uint32(*emission), Number: uint32(*number), Stake: stake, BonusShare: share, Created: a.now()}
	s, err := writeBlock(ctx, *out, p, priv)
	if err != nil {
		return fmt.Errorf("generate: %s: %w", *out, err)
	}
	h, l := s.Header, a.lang
	bonus := 0
	for _, n := range h.BonusLots {
		bonus += int(n)
	}
	fmt.Fprintf(a.stdout, l.tr(
		"%s écrit : %s — émission %d, bloc %d, mise %s, %s unités, %s lots dont %s par le bonus, clé %s, SHA-256 %x\n",
		"%s written: %s — emission %d, block %d, stake %s, %s units, %s lots, %s of them via the bonus, key %s, SHA-256 %x\n"),
		blockName(l, h), *out, h.Emission, h.Number, l.money(h.Stake.Money()), l.count(int(h.Units)),
		l.count(game.Table(h.Stake).Lots()), l.count(bonus), h.KeyID, s.FileDigest)
	return nil
}

// writeBlock generates the block into a temporary file next to path,
// syncs it, reads it back through the kiosk's own check with the public
// half of the key, and only then renames it to path (replacing a previous
// file of that name at once). Whatever fails, path is untouched and no
// temporary file is left behind.
func writeBlock(ctx context.Context, path string, p block.Params, priv ed25519.PrivateKey) (block.Summary, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return block.Summary{}, err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h, err := block.Generate(ctxWriter{ctx, tmp}, p, priv)
	if err != nil {
		return block.Summary{}, err
	}
	if err := tmp.Chmod(0o644); err != nil { // a block is public; its key is not
		return block.Summary{}, err
	}
	if err := tmp.Sync(); err != nil {
		return block.Summary{}, err
	}
	if err := tmp.Close(); err != nil {
		return block.Summary{}, err
	}
	s, err := verifyFile(ctx, tmp.Name(), block.NewKeySet(priv.Public().(ed25519.PublicKey)))
	if err != nil {
		return block.Summary{}, fmt.Errorf("reading the new block back: %w", err)
	}
	if s.Header != h {
		return block.Summary{}, fmt.Errorf("reading the new block back: header %+v, written %+v", s.Header, h)
	}
	if err := publish(tmp.Name(), path); err != nil {
		return block.Summary{}, err
	}
	done = true
	return s, nil
}

func verifyFile(ctx context.Context, path string, keys block.Keys) (block.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return block.Summary{}, err
	}
	defer f.Close()
	s, err := block.Verify(ctxReader{ctx, f}, keys)
	if err != nil {
		return block.Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseShare reads the 8 per-mille bonus shares, tier 1 (top prize) first;
// its errors are in the language l.
func (l lang) parseShare(s string) ([game.NumTiers]uint16, error) {
	var share [game.NumTiers]uint16
	parts := strings.Split(s, ",")
	if len(parts) != game.NumTiers {
		return share, fmt.Errorf(l.tr("%d valeurs, il en faut %d (en pour mille, une par rang, du plus gros lot au plus petit)",
			"%d values, want %d (per mille, one per tier from the top prize down)"), len(parts), game.NumTiers)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 16)
		if err != nil || v > 1000 {
			return share, fmt.Errorf(l.tr("rang %d : « %s » n'est pas une part de 0 à 1000 pour mille",
				"tier %d: %q is not a share from 0 to 1000 per mille"), i+1, p)
		}
		share[i] = uint16(v)
	}
	if share == ([game.NumTiers]uint16{}) {
		return share, errors.New(l.tr("toutes les parts sont à 0 : le jeu bonus (Art. 4.7) ne paierait jamais ; sans -bonus-share, la part par défaut",
			"every share is 0: the bonus game (Art. 4.7) would never pay; leave -bonus-share out for the default"))
	}
	return share, nil
}

// blockName is "bloc 1/7" or "block 1/7".
func blockName(l lang, h block.Header) string {
	return fmt.Sprintf("%s %d/%d", l.tr("bloc", "block"), h.Emission, h.Number)
}
