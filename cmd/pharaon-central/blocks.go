package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/fleet"
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
	if _, err := block.Inspect(bytes.NewReader(file), nil); err != nil {
		fmt.Fprintf(w, "REFUSÉ / REFUSED\u00a0: %s n’est pas un bloc / is not a block file: %v\n", name, err)
		return errFound
	}
	d, err := fleet.SendBlock(ctx, js, file, to, now)
	if err != nil {
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
		bad = bad || r.Outcome == fleet.BlockRefused || r.Outcome == fleet.BlockMisaddressed
	}
	tw.Flush()
	for _, p := range pending {
		fmt.Fprintf(w, "EN ATTENTE / PENDING\u00a0: livraison / delivery %s\n", p)
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
	}
	return o
}
