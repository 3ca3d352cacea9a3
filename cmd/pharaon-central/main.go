// Command pharaon-central is the operator's view of the fleet (DESIGN.md
// §11): it reads the records the kiosks published to NATS JetStream and
// prints each kiosk's status (its block stock among it) and the fleet's
// report by stake and by block, checks and
// pays vouchers once across the fleet through the bucket vouchers, and,
// for a development run, serves a local nats-server with JetStream.
//
//	pharaon-central status  [-nats URL] [-kiosk ID]   per-kiosk status
//	pharaon-central report  [-nats URL]               sales and wins by stake and by block
//	pharaon-central voucher [-nats URL] VALIDATION    is it valid and unpaid
//	pharaon-central pay     [-nats URL] -by COUNTER VALIDATION
//	pharaon-central serve   -listen 127.0.0.1:4222 -store DIR
//	pharaon-central send-block [-nats URL] -file F (-to KIOSK | -group G)
//	pharaon-central blocks  [-nats URL] [-kiosk ID]   deliveries and results
//
// Connection flags: -nats, -user, -password, -nkey-seed FILE, -ca FILE.
// Exit status: 0 success, 1 failure (or a voucher not payable, a kiosk
// with problems), 2 misuse.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, time.Now)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "pharaon-central:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// errFound is a check that found something wrong (it has been printed).
var errFound = errors.New("problems found")

const usage = `pharaon-central: la flotte de bornes / the fleet of kiosks
  status  [-kiosk ID]         état de chaque borne / each kiosk's status
          [-anchor-keys DIR]  vérifier les sceaux avec DIR/<borne>.key / check the seals with DIR/<kiosk>.key
  report                      ventes et gains par mise et par bloc / sales and wins by stake and by block
  voucher VALIDATION          le ticket est-il valable et non payé / is the voucher valid and unpaid
  pay -by COUNTER VALIDATION  payer un ticket une fois dans la flotte / pay a voucher once fleet-wide
  serve -listen ADDR -store DIR  un nats-server local avec JetStream / a local nats-server with JetStream
  send-block -file F (-to KIOSK | -group G)  envoyer un bloc signé / send a signed block
  blocks [-kiosk ID]          blocs envoyés et résultats par borne / blocks sent and each kiosk's result
connexion / connection: -nats URL -user U -password P -nkey-seed FILE -ca FILE
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	cmd := args[0]
	fs := flag.NewFlagSet("pharaon-central "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("nats", nats.DefaultURL, "the centre's NATS `URL`")
	user := fs.String("user", "", "NATS user")
	password := fs.String("password", "", "NATS password")
	seed := fs.String("nkey-seed", "", "NATS nkey seed `file`")
	ca := fs.String("ca", "", "the server's CA `file` (TLS)")
	kioskID := fs.String("kiosk", "", "one kiosk only (status, blocks)")
	by := fs.String("by", "", "the counter paying (pay)")
	listen := fs.String("listen", "127.0.0.1:4222", "address to serve on (serve)")
	dir := fs.String("store", "", "JetStream store `directory` (serve)")
	blockFile := fs.String("file", "", "signed block `file` (send-block)")
	toKiosk := fs.String("to", "", "the `kiosk` the block is for (send-block)")
	toGroup := fs.String("group", "", "the `group` the block is for (send-block)")
	keys := fs.String("anchor-keys", "", "`directory` of the kiosks' anchor secrets, <kiosk>.key (status, report)")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	if cmd == "serve" {
		return serve(ctx, *listen, *dir, stdout)
	}
	cfg := fleet.Config{URL: *url, KioskID: "central", User: *user, Password: *password, NKeySeedFile: *seed, CAFile: *ca}
	opts, err := cfg.Options()
	if err != nil {
		return err
	}
	nc, err := nats.Connect(*url, append(opts, nats.Name("pharaon-central"))...)
	if err != nil {
		return fmt.Errorf("connect %s: %w", *url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	switch cmd {
	case "status", "report":
		f := fleet.NewFleet()
		if *keys != "" {
			if f.Keys, err = readAnchorKeys(*keys); err != nil {
				return err
			}
		}
		// Every kiosk's records, whatever -kiosk says: a block on sale at
		// kiosk K is on sale twice when another kiosk imported it too.
		sales := blockSales{}
		if err := fleet.ReadRecords(ctx, js, "", func(k string, r store.OutboxRecord, at time.Time) error {
			if *kioskID == "" || k == *kioskID {
				f.Apply(k, r, at)
			}
			sales.apply(k, r)
			return nil
		}); err != nil {
			return err
		}
		if cmd == "status" {
			err := printStatus(stdout, f, now())
			claims, cerr := fleet.ReadClaims(ctx, js)
			if cerr != nil {
				// Without the claims the check of the blocks on sale
				// twice is not whole: a problem, not a clean status.
				fmt.Fprintf(stdout, "PROBLÈME / PROBLEM %s\u00a0: revendications illisibles, blocs vendus deux fois non vérifiés / "+
					"claims unreadable, blocks on sale twice not checked: %v\n", fleet.ClaimsBucket, cerr)
				err = errFound
			}
			sales.addClaims(claims)
			if sales.print(stdout, *kioskID) && err == nil {
				err = errFound
			}
			return err
		}
		return printReport(stdout, f)
	case "send-block":
		return sendBlock(ctx, stdout, stderr, js, *blockFile, *toKiosk, *toGroup, now())
	case "blocks":
		return printBlocks(ctx, stdout, js, *kioskID)
	case "voucher", "pay":
		if fs.NArg() != 1 {
			fmt.Fprint(stderr, usage)
			return errUsage
		}
		_, kv, err := fleet.Ensure(ctx, js, 1)
		if err != nil {
			return err
		}
		val := fs.Arg(0)
		if cmd == "voucher" {
			return checkVoucher(ctx, stdout, kv, val, now())
		}
		if *by == "" {
			fmt.Fprintln(stderr, "pay: -by COUNTER manque / is missing")
			return errUsage
		}
		v, err := fleet.PayVoucher(ctx, kv, val, *by, now())
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %v\n", err)
			return errFound
		}
		fmt.Fprintf(stdout, "PAYÉ / PAID\u00a0: %s, %s, borne / kiosk %s, par / by %s\n", v.Validation, game.Money(v.Amount), v.Kiosk, v.PaidBy)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return errUsage
}

func printStatus(w io.Writer, f *fleet.Fleet, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "borne/kiosk\tvue/seen\tséquence/seq\tcrédit/credit\tparties/plays\tventes/sales\tgains/wins\tbillets/notes\ttickets/vouchers\tpannes/faults")
	bad := false
	for _, k := range f.Sorted() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%d\n", k.Kiosk, ago(now.Sub(k.LastSeen)), k.LastSeq,
			game.Money(k.Credit), k.Plays, game.Money(k.Sales), game.Money(k.Wins), game.Money(k.BillsIn), game.Money(k.Vouchers), k.Faults)
		bad = bad || len(k.Problems) > 0
	}
	tw.Flush()
	// The kiosk's latest meter snapshot, which the centre checked against
	// its records (a difference is a problem below).
	for _, k := range f.Sorted() {
		if k.Meters == nil {
			continue
		}
		m := k.Meters
		fmt.Fprintf(w, "COMPTEURS / METERS %s\u00a0: relevé / snapshot %d, %s UTC, parties / plays %d, mises / staked %s, gains / won %s, billets / notes %s, tickets payés / vouchers paid %s\n",
			k.Kiosk, k.MetersID, k.MetersAt.UTC().Format("2006-01-02 15:04:05"), m.Get(store.MeterPlays),
			game.Money(m.Get(store.MeterStaked)), game.Money(m.Get(store.MeterWon)), game.Money(m.Get(store.MeterBillsIn)),
			game.Money(m.Get(store.MeterVouchersPaid)))
	}
	printStock(w, f)
	for _, k := range f.Sorted() {
		for _, p := range k.Problems {
			fmt.Fprintf(w, "PROBLÈME / PROBLEM %s\u00a0: %s\n", k.Kiosk, p)
		}
	}
	if bad {
		return errFound
	}
	return nil
}

// printStock writes each kiosk's block stock by stake: the units left to
// sell in its open and queued blocks (game.UnitsPerBlock each, less the
// units drawn), and a line for each stake it has none left at.
func printStock(w io.Writer, f *fleet.Fleet) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "borne/kiosk\tmise/stake\tbillets restants/units left\touvert/open\ten attente/queued")
	var empty []string
	for _, k := range f.Sorted() {
		for _, s := range k.Stock() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Kiosk, game.Money(s.Stake), game.Count(int(s.Left)),
				blockNames(s.Open), blockNames(s.Queued))
			if s.Left == 0 {
				empty = append(empty, fmt.Sprintf("STOCK %s\u00a0: plus de billets à %s / no units left at %s", k.Kiosk,
					game.Money(s.Stake), game.Money(s.Stake).English()))
			}
		}
	}
	tw.Flush()
	for _, e := range empty {
		fmt.Fprintln(w, e)
	}
}

// blockNames lists blocks as "E/N (units left)", "—" for none.
func blockNames(bs []fleet.BlockReport) string {
	if len(bs) == 0 {
		return "—"
	}
	out := ""
	for i, b := range bs {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s (%s)", b.Name(), game.Count(int(b.Left())))
	}
	return out
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min"
	default:
		return strconv.Itoa(int(d.Hours())) + " h"
	}
}

func printReport(w io.Writer, f *fleet.Fleet) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mise/stake\tparties/plays\tventes/sales\tgains/wins\t")
	var plays, sales, wins int64
	for _, s := range f.Stakes() {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", game.Money(s.Stake), s.Plays, game.Money(s.Sales), game.Money(s.Wins))
		plays, sales, wins = plays+s.Plays, sales+s.Sales, wins+s.Wins
	}
	fmt.Fprintf(tw, "total\t%d\t%s\t%s\t\n", plays, game.Money(sales), game.Money(wins))
	if err := tw.Flush(); err != nil {
		return err
	}
	// The same plays by the block they drew from, at the kiosk selling
	// it: the totals are the same to the cent.
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bloc/block\tmise/stake\tborne/kiosk\tétat/state\tparties/plays\tventes/sales\tgains/wins\t")
	plays, sales, wins = 0, 0, 0
	for _, b := range f.Blocks() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t\n", b.Name(), game.Money(b.Stake), b.Kiosk, blockState(b.State),
			b.Plays, game.Money(b.Sales), game.Money(b.Wins))
		plays, sales, wins = plays+b.Plays, sales+b.Sales, wins+b.Wins
	}
	fmt.Fprintf(tw, "total\t\t\t\t%d\t%s\t%s\t\n", plays, game.Money(sales), game.Money(wins))
	return tw.Flush()
}

// blockState names a block's state in both languages.
func blockState(s string) string {
	switch store.BlockState(s) {
	case store.BlockQueued:
		return "en attente/queued"
	case store.BlockOpen:
		return "ouvert/open"
	case store.BlockExhausted:
		return "épuisé/exhausted"
	case store.BlockWithdrawn:
		return "retiré/withdrawn"
	}
	return "?"
}

func checkVoucher(ctx context.Context, w io.Writer, kv jetstream.KeyValue, val string, now time.Time) error {
	v, err := fleet.LookupVoucher(ctx, kv, val)
	if err != nil {
		fmt.Fprintf(w, "INCONNU / UNKNOWN\u00a0: %v\n", err)
		return errFound
	}
	payable := v.State == "printed" && now.Before(v.Expires())
	verdict := "PAYABLE"
	if !payable {
		verdict = "NON PAYABLE / NOT PAYABLE"
	}
	fmt.Fprintf(w, "%s\u00a0: %s, %s, borne / kiosk %s, état / state %s, expire / expires %s\n", verdict, v.Validation,
		game.Money(v.Amount), v.Kiosk, v.State, v.Expires().UTC().Format(time.RFC3339))
	if v.State == "paid" {
		where := "centre, " + v.PaidBy
		if v.PaidKiosk != "" {
			where = "borne / kiosk " + v.PaidKiosk
		}
		fmt.Fprintf(w, "payé / paid\u00a0: %s, %s\n", where, time.Unix(0, v.PaidAt).UTC().Format(time.RFC3339))
	}
	if v.Conflict != "" {
		fmt.Fprintf(w, "PAYÉ DEUX FOIS / PAID TWICE\u00a0: %s\n", v.Conflict)
	}
	if !payable {
		return errFound
	}
	return nil
}

// serve runs a nats-server with JetStream on listen until ctx ends: the
// centre of a development run (make run-fleet). Production runs a
// clustered nats-server of its own.
func serve(ctx context.Context, listen, dir string, stdout io.Writer) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if dir == "" {
		return errors.New("serve: -store DIR is missing")
	}
	s, err := server.NewServer(&server.Options{Host: host, Port: p, JetStream: true, StoreDir: dir, NoSigs: true})
	if err != nil {
		return err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return errors.New("nats-server did not start")
	}
	fmt.Fprintf(stdout, "nats-server JetStream: %s (store %s)\n", s.ClientURL(), dir)
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	return nil
}
