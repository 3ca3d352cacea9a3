package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"pharaon/game"
	"pharaon/game/block"
)

// verify -key FILE.pub [-key ...] FILE...
func (a *app) verify(ctx context.Context, args []string) error {
	flags := newFlagSet("verify")
	var keyPaths listFlag
	flags.Var(&keyPaths, "key", "")
	files, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "verify")
	}
	switch {
	case len(keyPaths) == 0:
		return a.usagef("verify : -key FICHIER.pub est obligatoire (une clé publique d'émetteur de confiance)",
			"verify: -key FILE.pub is required (a trusted issuer public key)")
	case len(files) == 0:
		return a.usagef("verify : aucun fichier de bloc donné", "verify: no block file given")
	}
	keys, err := readKeys(keyPaths)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	var errs []error
	for _, path := range files {
		s, err := verifyFile(ctx, path, keys)
		if err != nil {
			errs = append(errs, fmt.Errorf("verify: %w", err))
			continue
		}
		a.printOK(path, s)
	}
	return errors.Join(errs...)
}

// printOK is the one line of a verified block.
func (a *app) printOK(path string, s block.Summary) {
	l, h := a.lang, s.Header
	tab := game.Table(h.Stake)
	lots, bonus := 0, 0
	var total game.Money
	for t := game.Tier(1); t <= game.NumTiers; t++ {
		lots += s.TierCounts[t]
		bonus += s.BonusCounts[t]
		total += game.Money(s.TierCounts[t]) * tab.Amount(t)
	}
	fmt.Fprintf(a.stdout, l.tr(
		"ok %s : %s, mise %s, %s unités, %s lots pour %s dont %s par le bonus, clé %s, SHA-256 %x\n",
		"ok %s: %s, stake %s, %s units, %s lots worth %s, %s of them via the bonus, key %s, SHA-256 %x\n"),
		path, blockName(l, h), l.money(h.Stake.Money()), l.count(int(h.Units)), l.count(lots), l.money(total),
		l.count(bonus), h.KeyID, s.FileDigest)
}

// inspect [-key FILE.pub ...] FILE
func (a *app) inspect(ctx context.Context, args []string) error {
	flags := newFlagSet("inspect")
	var keyPaths listFlag
	flags.Var(&keyPaths, "key", "")
	files, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "inspect")
	}
	if len(files) != 1 {
		return a.usagef("inspect : un fichier de bloc, et non %d", "inspect: one block file, got %d", len(files))
	}
	path := files[0]
	var keys block.Keys // nil: the signature is not checked, and the output says so
	if len(keyPaths) > 0 {
		ks, err := readKeys(keyPaths)
		if err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
		keys = ks
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	defer f.Close()
	s, err := block.Inspect(ctxReader{ctx, f}, keys)
	if s.Header != (block.Header{}) {
		a.printInspection(path, s, keys != nil, err)
	}
	if err != nil {
		return fmt.Errorf("inspect: %s: %w", path, err)
	}
	return nil
}

// printInspection prints the header, the signature status and, when every
// unit was read, the lot table counted from the units with its totals.
func (a *app) printInspection(path string, s block.Summary, keyed bool, err error) {
	l, h := a.lang, s.Header
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	kv := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	fmt.Fprintf(tw, "%s\n", l.tr("En-tête", "Header"))
	kv(l.tr("fichier", "file"), path)
	kv("format", fmt.Sprintf("%s version %d", block.Magic, h.Version))
	kv(l.tr("émission", "emission"), fmt.Sprint(h.Emission))
	kv(l.tr("bloc", "block"), fmt.Sprint(h.Number))
	if h.Stake.Valid() {
		kv(l.tr("mise", "stake"), l.money(h.Stake.Money()))
	} else {
		kv(l.tr("mise", "stake"), fmt.Sprintf(l.tr("%d centimes (invalide)", "%d cents (invalid)"), int64(h.Stake)))
	}
	kv(l.tr("unités", "units"), l.count(int(h.Units)))
	kv(l.tr("table des lots", "prize table"), fmt.Sprintf("%x", h.TableDigest[:8]))
	kv(l.tr("créé le", "created"), h.Created.UTC().Format("2006-01-02 15:04:05 UTC"))
	kv(l.tr("clé de l'émetteur", "issuer key"), h.KeyID.String())
	kv("signature", a.signatureStatus(keyed, err))
	if s.FileDigest != ([32]byte{}) {
		kv(l.tr("SHA-256 du fichier", "file SHA-256"), fmt.Sprintf("%x", s.FileDigest))
	}
	tw.Flush()

	read := 0
	for _, c := range s.TierCounts {
		read += c
	}
	if !h.Stake.Valid() || read != int(h.Units) {
		fmt.Fprintf(a.stdout, l.tr("\nUnités lues : %s sur %s ; pas de table des lots.\n",
			"\nUnits read: %s of %s; no lot table.\n"), l.count(read), l.count(int(h.Units)))
		return
	}
	a.printLots(s)
}

func (a *app) signatureStatus(keyed bool, err error) string {
	l := a.lang
	switch {
	case !keyed:
		return l.tr("NON VÉRIFIÉE (aucune clé donnée : -key FICHIER.pub)", "NOT CHECKED (no key given: -key FILE.pub)")
	case err == nil:
		return l.tr("vérifiée (clé de confiance)", "verified (trusted key)")
	case errors.Is(err, block.ErrUnknownKey):
		return l.tr("REFUSÉE : clé de l'émetteur inconnue", "REFUSED: unknown issuer key")
	case errors.Is(err, block.ErrSignature):
		return l.tr("REFUSÉE : ne correspond pas au contenu", "REFUSED: does not match the content")
	}
	return l.tr("non vérifiée (lecture interrompue)", "not checked (reading stopped)")
}

// printLots prints the lot table as counted from the units, next to the
// table of Art. 3, and the totals, all computed from the rows.
func (a *app) printLots(s block.Summary) {
	l, h := a.lang, s.Header
	tab := game.Table(h.Stake)
	units := float64(h.Units)
	odds := func(n int) string {
		if n == 0 {
			return "—"
		}
		return l.decimal(units / float64(n))
	}
	fmt.Fprintf(a.stdout, "\n%s\n", l.tr("Lots comptés dans les unités (Art. 3)", "Lots counted from the units (Art. 3)"))
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, l.tr(
		"rang\tcombinaison\tlots\ttable\tmontant\ttotal\tvia bonus\tchances (1 sur)\t",
		"tier\tcombination\tlots\ttable\tamount\ttotal\tvia bonus\todds (1 in)\t"))
	var lots, bonus int
	var total game.Money
	for _, p := range tab.Prizes {
		n := s.TierCounts[p.Tier]
		row := game.Money(n) * p.Amount
		lots += n
		bonus += s.BonusCounts[p.Tier]
		total += row
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.Tier, l.combination(p.Combination),
			l.count(n), l.count(p.Lots), l.money(p.Amount), l.money(row), l.count(s.BonusCounts[p.Tier]), odds(n))
	}
	losers := s.TierCounts[game.TierLose]
	fmt.Fprintf(tw, "—\t%s\t%s\t%s\t—\t—\t%s\t%s\t\n", l.tr("perdants", "losers"),
		l.count(losers), l.count(tab.Losers()), l.count(s.BonusCounts[game.TierLose]), odds(losers))
	tw.Flush()

	sales := game.Money(h.Units) * h.Stake.Money()
	fmt.Fprintf(a.stdout, "\n%s\n", l.tr("Totaux", "Totals"))
	tw = tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	kv := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	kv(l.tr("lots", "lots"), l.count(lots))
	kv(l.tr("dont par le bonus", "via the bonus"), l.count(bonus))
	kv(l.tr("perdants", "losers"), l.count(losers))
	kv(l.tr("total des lots", "total prizes"), l.money(total))
	kv(l.tr("ventes", "sales"), l.money(sales))
	kv(l.tr("taux de redistribution", "payout ratio"), l.percent(float64(total)/float64(sales)))
	kv(l.tr("chances de gain (1 sur)", "win odds (1 in)"), odds(lots))
	tw.Flush()
}
