// Command pharaon-central is the operator's side of the fleet (DESIGN.md
// §11, docs/fleet.md): it makes and keeps the fleet's security material
// (an operator, the accounts, one user per kiosk with its permissions, the
// TLS CA; kiosk/fleet/authority) and each kiosk's bundle, provisions the
// streams and buckets, reads the records the kiosks published to NATS
// JetStream and prints each kiosk's status (its block stock among it) and
// the fleet's report by stake and by block, checks and pays vouchers once
// across the fleet from the number typed at its counter, sends blocks,
// answers the kiosks' claims of blocks, and, for a development run, serves
// a nats-server of its own.
//
//	pharaon-central init    -fleet DIR [-hosts H,…] [-tls-ca F -tls-cert F -tls-key F]
//	pharaon-central kiosk add|revoke|list -fleet DIR [-id ID] [-groups G,…] [-url URL]
//	pharaon-central provision -fleet DIR [-replicas N]
//	pharaon-central serve   -fleet DIR -listen 127.0.0.1:4222 -store DIR
//	                        [-node NAME -cluster ADDR -routes ADDR,…]   one node of a cluster
//	pharaon-central claims                            the kiosks' claims of blocks, until stopped
//	pharaon-central status  [-kiosk ID]               per-kiosk status
//	pharaon-central report                            sales and wins by stake and by block
//	pharaon-central voucher VALIDATION                is it valid and unpaid
//	pharaon-central pay     -by COUNTER VALIDATION
//	pharaon-central send-block -file F (-to KIOSK | -group G)
//	pharaon-central blocks  [-kiosk ID]               deliveries and results
//	pharaon-central updates upload|list|start|status|stop|rollback|watch   software updates (updates.go)
//	pharaon-central operator add -name N -role R      a console account (password on stdin)
//	pharaon-central console -http ADDR [-tls-cert F -tls-key F]  the web console
//
// Every command takes -fleet DIR (default $PHARAON_FLEET) and reaches the
// server at -nats URL (default tls://127.0.0.1:4222) as the centre.
// Exit status: 0 success, 1 failure (or a voucher not payable, a kiosk
// with problems), 2 misuse.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
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

// defaultURL is where the centre's server listens by default.
const defaultURL = "tls://127.0.0.1:4222"

const usage = `pharaon-central: la flotte de bornes / the fleet of kiosks
  init [-hosts H,…]           créer les clés, la CA et la config du serveur / make the keys, the CA, the server's config
       [-tls-ca F -tls-cert F -tls-key F]  ou reprendre les siens / or take your own
  kiosk add -id ID [-groups G,…] [-url URL]  identifiants d’une borne / a kiosk's credentials (kiosks/ID/)
  kiosk revoke -id ID         révoquer une borne / revoke a kiosk
  kiosk list                  les bornes / the kiosks
  provision [-replicas N]     créer les flux et les seaux (N copies, 3 sur une grappe de trois) / make the streams and buckets (N copies, 3 on a cluster of three)
  serve -listen ADDR -store DIR  un nats-server local / a local nats-server
  init|serve -node NOM -cluster ADDR -routes ADDR,…  un nœud de la grappe (routes TLS, flux en N copies) / a node of the cluster (TLS routes, streams in N copies)
  claims                      répondre aux revendications de blocs des bornes / answer the kiosks' claims of blocks
  status  [-kiosk ID]         état de chaque borne / each kiosk's status
          [-anchor-keys DIR]  vérifier les sceaux avec DIR/<borne>.key / check the seals with DIR/<kiosk>.key
  report                      ventes et gains par mise et par bloc / sales and wins by stake and by block
  voucher VALIDATION          le ticket est-il valable et non payé / is the voucher valid and unpaid
  pay -by COUNTER VALIDATION  payer un ticket une fois dans la flotte / pay a voucher once fleet-wide
  send-block -file F (-to KIOSK | -group G)  envoyer un bloc signé / send a signed block
  blocks [-kiosk ID]          blocs envoyés et résultats par borne / blocks sent and each kiosk's result
  updates upload|list|start|status|stop|rollback|watch  mises à jour par la flotte / software updates through the fleet
  operator add -name N -role R  un compte de la console / a console account (pharaon-central operator)
  console -http ADDR          la console web / the web console (pharaon-central console -h)
toutes / all: -fleet DIR (défaut / default $PHARAON_FLEET) -nats URL (défaut / default ` + defaultURL + `)
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
	args = args[1:]
	if cmd == "updates" {
		return runUpdates(ctx, args, stdout, stderr, now)
	}
	if cmd == "console" || cmd == "operator" {
		return runConsole(ctx, cmd, args, stdout, stderr, now)
	}
	if cmd == "kiosk" {
		if len(args) == 0 || (args[0] != "add" && args[0] != "revoke" && args[0] != "list") {
			fmt.Fprint(stderr, usage)
			return errUsage
		}
		cmd, args = "kiosk "+args[0], args[1:]
	}
	fs := flag.NewFlagSet("pharaon-central "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("fleet", os.Getenv("PHARAON_FLEET"), "the centre's `directory` (pharaon-central init)")
	url := fs.String("nats", defaultURL, "the fleet's NATS `URL`")
	kioskID := fs.String("kiosk", "", "one kiosk only (status, blocks)")
	id := fs.String("id", "", "the kiosk (kiosk add, kiosk revoke)")
	groups := fs.String("groups", "", "the kiosk's `groups`, comma-separated (kiosk add)")
	kioskURL := fs.String("url", defaultURL, "the `URL` the kiosk reaches the server by (kiosk add)")
	hosts := fs.String("hosts", "", "the server's names and addresses, comma-separated, for its certificate (init)")
	tlsCA := fs.String("tls-ca", "", "your CA `file` (init)")
	tlsCert := fs.String("tls-cert", "", "your server certificate `file` (init)")
	tlsKey := fs.String("tls-key", "", "your server key `file` (init)")
	replicas := fs.Int("replicas", 0, "replicas of the streams and buckets, one a node: 3 on a cluster of three (provision; default: as they are, 1 when made)")
	by := fs.String("by", "", "the counter paying (pay)")
	listen := fs.String("listen", "127.0.0.1:4222", "address to serve on (serve; init: the server's configuration)")
	storeDir := fs.String("store", "", "JetStream store `directory` (serve; init: the server's configuration)")
	blockFile := fs.String("file", "", "signed block `file` (send-block)")
	toKiosk := fs.String("to", "", "the `kiosk` the block is for (send-block)")
	toGroup := fs.String("group", "", "the `group` the block is for (send-block)")
	nodeName := fs.String("node", "", "this server's `name` in the cluster (init, serve)")
	clusterAddr := fs.String("cluster", "", "`address` the other nodes' routes reach this one on, host:port (init, serve)")
	routes := fs.String("routes", "", "the other nodes' cluster `addresses`, comma-separated (init, serve)")
	keys := fs.String("anchor-keys", "", "`directory` of the kiosks' anchor secrets, <kiosk>.key (status, report)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "pharaon-central: -fleet DIR manque / is missing (or PHARAON_FLEET)")
		return errUsage
	}
	if *replicas < 0 {
		fmt.Fprintf(stderr, "%s: -replicas %d : 1 ou plus / 1 or more\n", cmd, *replicas)
		return errUsage
	}
	node, err := clusterNode(*nodeName, *clusterAddr, *routes)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return errUsage
	}
	if node != nil && cmd != "init" && cmd != "serve" {
		fmt.Fprintf(stderr, "%s: -node, -cluster, -routes : pour / for init, serve\n", cmd)
		return errUsage
	}
	switch cmd {
	case "init":
		return initFleet(stdout, *dir, authority.TLSInput{Hosts: splitList(*hosts), CAFile: *tlsCA, CertFile: *tlsCert, KeyFile: *tlsKey},
			*listen, *storeDir, node)
	case "serve":
		return serve(ctx, *dir, *listen, *storeDir, node, splitList(*hosts), stdout)
	case "kiosk list":
		return listKiosks(stdout, *dir)
	case "kiosk add", "kiosk revoke":
		if *id == "" {
			fmt.Fprintf(stderr, "%s: -id ID manque / is missing\n", cmd)
			return errUsage
		}
		if cmd == "kiosk revoke" {
			return revokeKiosk(ctx, stdout, *dir, *id, *url, now())
		}
		return addKiosk(ctx, stdout, *dir, *id, splitList(*groups), *url, *kioskURL, now())
	}
	m, err := authority.Open(*dir)
	if err != nil {
		return err
	}
	if cmd == "claims" {
		// A service: it waits for the server, and follows it through its
		// restarts.
		return serveClaims(ctx, m, *url, stdout)
	}
	c, err := connectCentre(m, *url)
	if err != nil {
		return err
	}
	defer c.nc.Close()
	js := c.js
	switch cmd {
	case "provision":
		return provision(ctx, stdout, c, *replicas)

	case "status", "report":
		f := fleet.NewFleet()
		if f.VoucherMaster, err = m.VoucherMaster(); err != nil {
			return err
		}
		if *keys != "" {
			if f.Keys, err = readAnchorKeys(*keys); err != nil {
				return err
			}
		}
		// Every kiosk's records, whatever -kiosk says: a block on sale at
		// kiosk K is on sale twice when another kiosk imported it too.
		sales := blockSales{}
		if err := fleet.ReadRecords(ctx, js, "", func(r fleet.Record) error {
			if *kioskID == "" || r.Kiosk == *kioskID {
				f.Add(r)
			}
			sales.apply(r.Kiosk, r.OutboxRecord)
			return nil
		}); err != nil {
			return err
		}
		if cmd == "status" {
			verr := f.CheckVouchers(ctx, js)
			err := printStatus(stdout, f, now())
			if verr != nil {
				fmt.Fprintf(stdout, "PROBLÈME / PROBLEM %s\u00a0: tickets non vérifiés / vouchers not checked: %v\n", fleet.VoucherBucket, verr)
				err = errFound
			}
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
		if cmd == "pay" && *by == "" {
			fmt.Fprintln(stderr, "pay: -by COUNTER manque / is missing")
			return errUsage
		}
		val, err := kiosk.ParseValidation(fs.Arg(0))
		if err != nil {
			fmt.Fprintf(stdout, "NUMÉRO INVALIDE / INVALID NUMBER\u00a0: %v\n", err)
			return errFound
		}
		vs, err := openVouchers(ctx, c)
		if err != nil {
			return err
		}
		if cmd == "voucher" {
			return checkVoucher(ctx, stdout, vs, val, now())
		}
		v, err := vs.Pay(ctx, val, *by, now())
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED %s\u00a0: %v\n", kiosk.MaskValidation(val), err)
			if errors.Is(err, fleet.ErrVoucherTest) {
				fmt.Fprintln(stdout, testVoucherVerdict)
			}
			printEntryProblem(stdout, v, err)
			return errFound
		}
		fmt.Fprintf(stdout, "PAYÉ / PAID\u00a0: %s, %s, borne / kiosk %s (ticket / voucher %d), par / by %s\n", kiosk.MaskValidation(val),
			game.Money(v.Amount), v.Kiosk, v.ID, v.PaidBy)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return errUsage
}

// openVouchers is the fleet's voucher bucket for the centre's kiosks.
func openVouchers(ctx context.Context, c *centre) (*fleet.Vouchers, error) {
	master, err := c.m.VoucherMaster()
	if err != nil {
		return nil, err
	}
	ids, err := kioskIDs(c.m.Dir)
	if err != nil {
		return nil, err
	}
	return fleet.NewVouchers(ctx, c.js, master, ids)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
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
	// The player's protection, for the kiosks that recorded any.
	for _, k := range f.Sorted() {
		if k.RealityChecks+k.LimitsSet+k.LimitsReached == 0 {
			continue
		}
		fmt.Fprintf(w, "PROTECTION %s\u00a0: points sur le jeu / reality checks %d, limites fixées / limits set %d, limites atteintes / limits reached %d\n",
			k.Kiosk, k.RealityChecks, k.LimitsSet, k.LimitsReached)
	}
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
		if k.RolledBack {
			// Its data put back to an earlier copy: whatever it paid
			// since that copy may be paid again (DESIGN.md §11).
			fmt.Fprintf(w, "RETOUR EN ARRIÈRE / ROLLED BACK %s\u00a0: la borne est revenue à une copie antérieure / "+
				"the kiosk went back to an earlier copy\n", k.Kiosk)
		}
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

func checkVoucher(ctx context.Context, w io.Writer, vs *fleet.Vouchers, val string, now time.Time) error {
	masked := kiosk.MaskValidation(val)
	v, err := vs.Find(ctx, val)
	if err != nil {
		fmt.Fprintf(w, "INCONNU / UNKNOWN %s\u00a0: %v\n", masked, err)
		return errFound
	}
	payable := v.State == "printed" && now.Before(v.Expires())
	var unreported error
	if payable {
		// What the centre's counter would pay: its kiosk's records hold it.
		unreported = vs.Reported(ctx, v, val)
		payable = unreported == nil
	}
	verdict := "PAYABLE"
	switch {
	case v.Test():
		verdict = testVoucherVerdict
	case !payable:
		verdict = "NON PAYABLE / NOT PAYABLE"
	}
	fmt.Fprintf(w, "%s\u00a0: %s, %s, borne / kiosk %s (ticket / voucher %d), état / state %s, expire / expires %s\n", verdict, masked,
		game.Money(v.Amount), v.Kiosk, v.ID, v.State, v.Expires().UTC().Format(time.RFC3339))
	if v.State == "paid" || v.State == "claimed" {
		where := "centre, " + v.PaidBy
		if v.PaidKiosk != "" {
			where = "borne / kiosk " + v.PaidKiosk + ", " + v.PaidBy
		}
		fmt.Fprintf(w, "payé / paid\u00a0: %s, %s\n", where, time.Unix(0, v.PaidAt).UTC().Format(time.RFC3339))
	}
	if v.Conflict != "" {
		fmt.Fprintf(w, "PAYÉ DEUX FOIS / PAID TWICE\u00a0: %s\n", v.Conflict)
	}
	if unreported != nil {
		fmt.Fprintf(w, "non payé ici / not paid here\u00a0: %v\n", unreported)
		printEntryProblem(w, v, unreported)
	}
	if !payable {
		return errFound
	}
	return nil
}

// testVoucherVerdict is what the centre says of a kiosk's test voucher
// (printed at its first start, void, of no value).
const testVoucherVerdict = "BON D'ESSAI — ANNULÉ — SANS VALEUR / TEST VOUCHER — VOID — NO VALUE"

// printEntryProblem reports a voucher entry the centre does not pay on its
// kiosk's word (an entry its kiosk's records do not hold, or rewritten) as
// a problem of its kiosk, as status does.
func printEntryProblem(w io.Writer, v fleet.VoucherEntry, err error) {
	if v.Key == "" || !errors.Is(err, fleet.ErrVoucherUnreported) && !errors.Is(err, fleet.ErrVoucherForged) {
		return
	}
	fmt.Fprintf(w, "PROBLÈME / PROBLEM %s\u00a0: entrée / entry %s\u00a0: %v\n", v.Kiosk, v.Key, err)
}
