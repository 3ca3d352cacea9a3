package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// sendBlock sends a signed block file to a kiosk or a group
// (fleet.SendBlock). A file that is not a whole block (its header, its
// size, its lot counts) is refused here and nothing is sent; its signature
// is the kiosk's to check, against the keys it trusts.
func sendBlock(ctx context.Context, w, errw io.Writer, js jetstream.JetStream, name, kiosk, group string, now time.Time) error {
	var to fleet.Address
	switch {
	case name == "":
		fmt.Fprintln(errw, "send-block: -file manque / is missing")
		return errUsage
	case (kiosk == "") == (group == ""):
		fmt.Fprintln(errw, "send-block: -to KIOSK ou / or -group GROUP, un seul / exactly one")
		return errUsage
	case kiosk != "":
		to = fleet.ToKiosk(kiosk)
	default:
		to = fleet.ToGroup(group)
	}
	if !fleet.ValidKioskID(to.Name) {
		fmt.Fprintf(errw, "send-block: %q : lettres, chiffres, - et _ / letters, digits, - and _\n", to.Name)
		return errUsage
	}
	file, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("send-block: %w", err)
	}
	d, err := fleet.SendBlockFile(ctx, js, file, to, now)
	var elsewhere *fleet.SendRefusal
	switch {
	case errors.Is(err, fleet.ErrNotABlock):
		fmt.Fprintf(w, "REFUSÉ / REFUSED\u00a0: %s n’est pas un bloc / is not a block file: %v\n", name, strings.TrimPrefix(err.Error(), fleet.ErrNotABlock.Error()+": "))
		return errFound
	case errors.As(err, &elsewhere):
		// A block is on sale at one kiosk only: there is no way to force
		// it elsewhere (its units sold there would be sold twice).
		if c := elsewhere.Claim; c != nil {
			fmt.Fprintf(w, "REFUSÉ / REFUSED\u00a0: bloc / block %d/%d déjà en vente à la borne / already on sale at kiosk %s "+
				"depuis / since %s (%s)\u00a0: rien n’est envoyé à / nothing sent to %s\n",
				elsewhere.Emission, elsewhere.Number, c.Kiosk, c.At.UTC().Format(time.RFC3339), c.Via, to)
		} else {
			d := elsewhere.Delivery
			fmt.Fprintf(w, "REFUSÉ / REFUSED\u00a0: bloc / block %d/%d déjà envoyé à / already sent to %s (livraison / delivery %d, %s)"+
				"\u00a0: rien n’est envoyé à / nothing sent to %s\n",
				elsewhere.Emission, elsewhere.Number, d.To, d.Seq, d.SentAt.UTC().Format(time.RFC3339), to)
		}
		return errFound
	case err != nil:
		return err
	}
	fmt.Fprintf(w, "ENVOYÉ / SENT\u00a0: bloc / block %d/%d (%s) → %s, livraison / delivery %d, %s\n",
		d.Emission, d.Number, game.Money(d.Stake), d.To, d.Seq, d.Object)
	return nil
}

// printBlocks lists the deliveries and what each kiosk did with them (of
// one kiosk when kiosk is not ""). A delivery to a kiosk that has not
// answered is pending; a group's deliveries show the members that
// answered. A refused or misaddressed delivery is a problem found.
func printBlocks(ctx context.Context, w io.Writer, js jetstream.JetStream, kiosk string) error {
	deliveries, err := fleet.ReadDeliveries(ctx, js)
	if err != nil {
		return err
	}
	results, err := fleet.ReadBlockResults(ctx, js)
	if err != nil {
		return err
	}
	answered := map[string]bool{}
	for _, r := range results {
		answered[fleet.ResultKey(r.Kiosk, r.Delivery)] = true
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "livraison/delivery\tenvoyé/sent\tvers/to\tbloc/block\tmise/stake\tobjet/object")
	var pending []string
	for _, d := range deliveries {
		target, toKiosk := strings.CutPrefix(d.To, "kiosk:")
		if kiosk != "" && toKiosk && target != kiosk {
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d/%d\t%s\t%s\n", d.Seq, d.SentAt.UTC().Format(time.RFC3339), d.To, d.Emission, d.Number,
			game.Money(d.Stake), shortObject(d.Object))
		if toKiosk && !answered[fleet.ResultKey(target, d.Seq)] {
			pending = append(pending, fmt.Sprintf("%d → %s", d.Seq, target))
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "borne/kiosk\tlivraison/delivery\tbloc/block\trésultat/outcome\tid\tà/at\tdétail/detail")
	bad := false
	for _, r := range results {
		if kiosk != "" && r.Kiosk != kiosk {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%s\t%d\t%s\t%s\n", r.Kiosk, r.Delivery, r.Emission, r.Number, outcome(r.Outcome), r.BlockID,
			r.At.UTC().Format(time.RFC3339), r.Detail)
		bad = bad || r.Outcome == fleet.BlockRefused || r.Outcome == fleet.BlockMisaddressed ||
			r.Outcome == fleet.BlockTaken && !strings.HasPrefix(r.To, "group:")
	}
	tw.Flush()
	for _, p := range pending {
		fmt.Fprintf(w, "EN ATTENTE / PENDING\u00a0: livraison / delivery %s\n", p)
	}
	claims, err := fleet.ReadClaims(ctx, js)
	if err != nil {
		return err
	}
	if len(claims) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "bloc/block	en vente à/on sale at	depuis/since	par/via")
		for _, c := range claims {
			if kiosk != "" && c.Kiosk != kiosk {
				continue
			}
			fmt.Fprintf(tw, "%d/%d\t%s\t%s\t%s\n", c.Emission, c.Number, c.Kiosk, c.At.UTC().Format(time.RFC3339), c.Via)
		}
		tw.Flush()
	}
	sales := blockSales{}
	sales.addClaims(claims)
	err = fleet.ReadRecords(ctx, js, "", func(r fleet.Record) error {
		sales.apply(r.Kiosk, r.OutboxRecord)
		return nil
	})
	if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return err
	}
	if sales.print(w, kiosk) {
		bad = true
	}
	if bad {
		return errFound
	}
	return nil
}

// shortObject is an object's name cut to 16 digits of its SHA-256.
func shortObject(name string) string {
	if len(name) > len("block-")+16 {
		return name[:len("block-")+16] + "…"
	}
	return name
}

// outcome names an outcome in both languages.
func outcome(o string) string {
	switch o {
	case fleet.BlockImported:
		return "importé/imported"
	case fleet.BlockAlready:
		return "déjà là/already"
	case fleet.BlockRefused:
		return "REFUSÉ/REFUSED"
	case fleet.BlockMisaddressed:
		return "MAL ADRESSÉ/MISADDRESSED"
	case fleet.BlockTaken:
		return "pris ailleurs/taken"
	}
	return o
}

// demoEmission is the emission of a development kiosk's demonstration
// blocks (kiosk.DemoEmission), each signed with that kiosk's own demo key.
const demoEmission = kiosk.DemoEmission

// blockSales are the kiosks each block was imported at, from the kiosks'
// published records (the store's event store.EventBlockImported, "block
// E/N at …") and from the claims (a block imported while the centre did
// not answer, found claimed by another kiosk when it answered). A block
// imported at two kiosks is on sale at both: its units sold twice, its
// lots paid twice.
type blockSales map[[2]uint32]map[string]bool

func (s blockSales) add(emission, number uint32, kiosk string) {
	if emission == demoEmission {
		return // every development kiosk has its own demonstration blocks
	}
	k := [2]uint32{emission, number}
	if s[k] == nil {
		s[k] = map[string]bool{}
	}
	s[k][kiosk] = true
}

// apply reads a kiosk's record.
func (s blockSales) apply(kiosk string, r store.OutboxRecord) {
	if r.Kind != "event" {
		return
	}
	var e struct{ Source, Code, Detail string }
	if json.Unmarshal(r.Payload, &e) != nil || e.Code != store.EventBlockImported {
		return
	}
	var em, num uint32
	if _, err := fmt.Sscanf(e.Detail, "block %d/%d", &em, &num); err == nil {
		s.add(em, num, kiosk)
	}
}

func (s blockSales) addClaims(claims []fleet.BlockClaim) {
	for _, c := range claims {
		s.add(c.Emission, c.Number, c.Kiosk)
		for _, a := range c.Also {
			s.add(c.Emission, c.Number, a.Kiosk)
		}
	}
}

// print writes each block on sale at more than one kiosk (involving kiosk
// when it is not "") and reports whether there is one.
func (s blockSales) print(w io.Writer, kiosk string) bool {
	keys := slices.SortedFunc(maps.Keys(s), func(a, b [2]uint32) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	found := false
	for _, k := range keys {
		if len(s[k]) < 2 || kiosk != "" && !s[k][kiosk] {
			continue
		}
		found = true
		fmt.Fprintf(w, "EN VENTE À %d BORNES / ON SALE AT %d KIOSKS\u00a0: bloc / block %d/%d\u00a0: %s "+
			"(tickets vendus deux fois / units sold twice)\n", len(s[k]), len(s[k]), k[0], k[1], strings.Join(slices.Sorted(maps.Keys(s[k])), ", "))
	}
	return found
}
