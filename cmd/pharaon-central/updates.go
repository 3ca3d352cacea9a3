package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// The operator's software updates through the fleet (kiosk/fleet/rollout.go,
// docs/fleet.md "Software updates"):
//
//	pharaon-central updates upload -file BUNDLE
//	pharaon-central updates list
//	pharaon-central updates start -bundle V (-to KIOSK | -group G [-percent P]) [-max-failures N] -by NAME
//	pharaon-central updates status -rollout R
//	pharaon-central updates stop -rollout R -by NAME [-why TEXT]
//	pharaon-central updates rollback -rollout R -bundle V -by NAME
//	pharaon-central updates watch                  the stop rule as the reports come in, until stopped
//
// Who starts, stops or rolls back (-by) is written in the rollout's audit.

const updatesUsage = `pharaon-central updates: mises à jour du logiciel par la flotte / software updates through the fleet
  upload -file B               déposer un paquet de mise à jour signé / upload a signed update bundle
  list                         paquets et déploiements / bundles and rollouts
  start -bundle V (-to KIOSK | -group G [-percent P]) [-max-failures N] [-take-timeout D] -by NOM/NAME
                               déployer / start a rollout (arrêt si plus de N % d’échecs / stops past N % failed; défaut / default 10)
  status -rollout R            état par borne, la règle d’arrêt appliquée / each kiosk's state, the stop rule applied
  stop -rollout R -by NOM/NAME [-why TEXTE/TEXT]  arrêter / stop
  rollback -rollout R -bundle V -by NOM/NAME  revenir en arrière (paquet signé comme retour) / roll back (a bundle signed as a rollback)
  watch                        appliquer la règle d’arrêt au fil des rapports / apply the stop rule as reports come in
toutes / all: -fleet DIR (défaut / default $PHARAON_FLEET) -nats URL (défaut / default ` + defaultURL + `)
`

func runUpdates(ctx context.Context, args []string, stdout, stderr io.Writer, now func() time.Time) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "-help" {
		fmt.Fprint(stderr, updatesUsage)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("pharaon-central updates "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("fleet", os.Getenv("PHARAON_FLEET"), "the centre's `directory` (pharaon-central init)")
	url := fs.String("nats", defaultURL, "the fleet's NATS `URL`")
	file := fs.String("file", "", "the signed update bundle `file` (upload)")
	bundle := fs.String("bundle", "", "the uploaded bundle: its `name` or its version (start, rollback)")
	toKiosk := fs.String("to", "", "the `kiosk` to update (start)")
	toGroup := fs.String("group", "", "the `group` to update (start)")
	percent := fs.Int("percent", 0, "the share of the group, 1 to 100 (start; default all of it)")
	maxFailures := fs.Int("max-failures", fleet.DefaultMaxFailures, "the share (percent) of the kiosks that took it that may fail or go out of service (start; 0: none)")
	takeTimeout := fs.Duration("take-timeout", fleet.DefaultTakeTimeout, "how long a kiosk that took it has to say it runs it (start)")
	rollout := fs.String("rollout", "", "the rollout's `id` (status, stop, rollback)")
	by := fs.String("by", "", "who asks: the rollout's audit (start, stop, rollback)")
	why := fs.String("why", "", "why it is stopped (stop)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	missing := func(what string) error {
		fmt.Fprintf(stderr, "updates %s: %s manque / is missing\n", sub, what)
		return errUsage
	}
	switch {
	case *dir == "":
		return missing("-fleet DIR (ou / or PHARAON_FLEET)")
	case sub == "upload" && *file == "":
		return missing("-file B")
	case (sub == "start" || sub == "rollback") && *bundle == "":
		return missing("-bundle V")
	case (sub == "status" || sub == "stop" || sub == "rollback") && *rollout == "":
		return missing("-rollout R")
	case (sub == "start" || sub == "stop" || sub == "rollback") && *by == "":
		return missing("-by NOM/NAME")
	case sub == "start" && (*toKiosk == "") == (*toGroup == ""):
		fmt.Fprintln(stderr, "updates start: -to KIOSK ou / or -group GROUP, un seul / exactly one")
		return errUsage
	case sub == "start" && *percent != 0 && *toGroup == "":
		fmt.Fprintln(stderr, "updates start: -percent d’un groupe seulement / of a group only")
		return errUsage
	case sub == "start" && (*percent < 0 || *percent > 100 || *maxFailures < 0 || *maxFailures > 100):
		fmt.Fprintln(stderr, "updates start: -percent et / and -max-failures de / from 0 à / to 100")
		return errUsage
	}
	switch sub {
	case "upload", "list", "start", "status", "stop", "rollback", "watch":
	default:
		fmt.Fprint(stderr, updatesUsage)
		return errUsage
	}
	m, err := authority.Open(*dir)
	if err != nil {
		return err
	}
	c, err := connectCentre(m, *url)
	if err != nil {
		return err
	}
	defer c.nc.Close()
	ro := fleet.NewRollouts(c.js, now)
	switch sub {
	case "upload":
		b, err := fleet.UploadBundle(ctx, c.js, *file, now())
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %s n’est pas un paquet de mise à jour / is not an update bundle: %v\n", *file, err)
			return errFound
		}
		fmt.Fprintf(stdout, "DÉPOSÉ / UPLOADED\u00a0: %s (%s %s %s%s), %d octets / bytes, SHA-256 %s\n", b.Name, b.Package, b.Version, b.Kind,
			rollbackMark(b.Rollback), b.Size, b.SHA256)
		fmt.Fprintln(stdout, "  la signature est vérifiée par chaque borne / each kiosk verifies the signature")
		return nil
	case "list":
		return printUpdates(ctx, stdout, c, ro)
	case "start":
		spec := fleet.RolloutSpec{Bundle: *bundle, Percent: *percent, MaxFailures: *maxFailures, TakeTimeout: *takeTimeout, By: *by}
		if *maxFailures == 0 {
			spec.MaxFailures = -1 // none may fail
		}
		if *toKiosk != "" {
			spec.To = fleet.ToKiosk(*toKiosk)
		} else {
			spec.To = fleet.ToGroup(*toGroup)
		}
		r, err := ro.Start(ctx, spec)
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %v\n", err)
			return errFound
		}
		fmt.Fprintf(stdout, "DÉPLOIEMENT / ROLLOUT %s\u00a0: %s %s → %s, %d bornes / kiosks (%s), arrêt au-delà de / stops past %d %% d’échecs / failed\n",
			r.ID, r.Bundle.Package, r.Bundle.Version, r.To, len(r.Targets), strings.Join(r.Targets, ", "), r.MaxFailures)
		return nil
	case "status":
		st, err := ro.Evaluate(ctx, *rollout)
		if err != nil {
			return err
		}
		return printRolloutStatus(stdout, st, now())
	case "stop":
		r, err := ro.Stop(ctx, *rollout, *by, *why)
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %v\n", err)
			return errFound
		}
		fmt.Fprintf(stdout, "ARRÊTÉ / STOPPED\u00a0: %s par / by %s\u00a0; les offres non prises sont retirées / the offers not taken are withdrawn\n", r.ID, *by)
		return nil
	case "rollback":
		back, err := ro.Rollback(ctx, *rollout, *bundle, *by)
		if err != nil {
			fmt.Fprintf(stdout, "REFUSÉ / REFUSED\u00a0: %v\n", err)
			return errFound
		}
		fmt.Fprintf(stdout, "RETOUR / ROLLBACK\u00a0: %s arrêté / stopped\u00a0; %s %s → %s par le déploiement / by rollout %s\n",
			*rollout, back.Bundle.Package, back.Bundle.Version, strings.Join(back.Targets, ", "), back.ID)
		return nil
	case "watch":
		c.nc.Close()
		fmt.Fprintf(stdout, "déploiements / rollouts: la règle d’arrêt au fil des rapports / the stop rule as the reports come in (%s)\n", *url)
		watchRollouts(ctx, m, *url, now, stderr)
		return nil
	}
	return nil
}

// watchRollouts applies the rollouts' stop rule as the kiosks' reports
// come in (fleet.Rollouts.Watch) until ctx ends, on a connection of its
// own that follows the server through its restarts; what fails is
// written to w, and the watch starts again.
func watchRollouts(ctx context.Context, m *authority.Material, url string, now func() time.Time, w io.Writer) {
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
	for ctx.Err() == nil {
		err := func() error {
			nc, err := m.Connect(url, authority.AccountName, authority.CentralUser, nats.Name("pharaon-central updates"),
				nats.MaxReconnects(-1))
			if err != nil {
				return err
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				return err
			}
			return fleet.NewRollouts(js, now).Watch(ctx, time.Minute, func(err error) { logf("updates: %v", err) })
		}()
		if ctx.Err() != nil {
			return
		}
		logf("updates: the watch of the rollouts stopped, again in 5 s: %v", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

// startRolloutWatch runs watchRollouts on its own goroutine until the
// returned stop is called (pharaon-central serve).
func startRolloutWatch(m *authority.Material, url string, w io.Writer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchRollouts(ctx, m, url, time.Now, w)
	}()
	return func() { cancel(); <-done }
}

func rollbackMark(rollback bool) string {
	if rollback {
		return ", signé comme retour / signed as a rollback"
	}
	return ""
}

// printUpdates lists the bundles uploaded and the rollouts.
func printUpdates(ctx context.Context, w io.Writer, c *centre, ro *fleet.Rollouts) error {
	bundles, err := fleet.Bundles(ctx, c.js)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "paquet/bundle\tversion\ttype/kind\tretour/rollback\toctets/bytes\tdéposé/uploaded")
	for _, b := range bundles {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%d\t%s\n", b.Name, b.Version, b.Kind, b.Rollback, b.Size, b.Uploaded.UTC().Format(time.RFC3339))
	}
	tw.Flush()
	fmt.Fprintln(w)
	all, err := ro.List(ctx)
	if err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "déploiement/rollout\tversion\tvers/to\tbornes/kiosks\tétat/state\tpar/by")
	for _, r := range all {
		to := r.To
		if r.Percent > 0 {
			to += fmt.Sprintf(" %d%%", r.Percent)
		}
		by := ""
		if len(r.Log) > 0 {
			by = r.Log[0].By
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Bundle.Version, to, len(r.Targets), stateWords(r.State), by)
	}
	return tw.Flush()
}

func stateWords(s string) string {
	switch s {
	case fleet.RolloutRunning:
		return "en cours / running"
	case fleet.RolloutHalted:
		return "ARRÊTÉ SEUL / HALTED"
	case fleet.RolloutStopped:
		return "arrêté / stopped"
	case fleet.RolloutRolledBack:
		return "retour / rolled back"
	}
	return s
}

// printRolloutStatus prints a rollout, its audit and each target's state;
// a rollout halted, or a kiosk that failed, is a problem found.
func printRolloutStatus(w io.Writer, st fleet.RolloutStatus, now time.Time) error {
	r := st.Rollout
	to := r.To
	if r.Percent > 0 {
		to += fmt.Sprintf(" (%d %%)", r.Percent)
	}
	fmt.Fprintf(w, "DÉPLOIEMENT / ROLLOUT %s\u00a0: %s %s%s → %s, %s\n", r.ID, r.Bundle.Package, r.Bundle.Version, rollbackMark(r.Bundle.Rollback), to, stateWords(r.State))
	fmt.Fprintf(w, "  en attente / pending %d, en cours / installing %d, installées / installed %d, refusées / refused %d, échecs / failed %d, hors service / out of service %d\n",
		st.Pending, st.Installing, st.Installed, st.Refused, st.Failed, st.OutOfService)
	fmt.Fprintf(w, "  arrêt au-delà de / stops past %d %% des bornes qui l’ont prise / of the kiosks that took it (%d)\n", r.MaxFailures, st.Took)
	if r.RollbackOf != "" {
		fmt.Fprintf(w, "  retour du déploiement / rolls back rollout %s\n", r.RollbackOf)
	}
	if r.RolledBackBy != "" {
		fmt.Fprintf(w, "  repris par le déploiement / rolled back by rollout %s\n", r.RolledBackBy)
	}
	for _, e := range r.Log {
		fmt.Fprintf(w, "  %s %s %s\u00a0: %s\n", e.At.UTC().Format(time.RFC3339), e.By, e.Action, e.Detail)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "borne/kiosk\trésultat/outcome\tversion\ten service/in service\tvu/seen\tdétail/detail")
	bad := r.State == fleet.RolloutHalted
	for _, k := range st.Kiosks {
		if k.Report == nil {
			fmt.Fprintf(tw, "%s\ten attente / pending\t\t\t\t\n", k.Kiosk)
			continue
		}
		rep := k.Report
		detail := rep.Detail
		if k.Failed {
			detail = k.Why
			bad = true
		}
		seen := ""
		if !k.ReportedAt.IsZero() {
			seen = ago(now.Sub(k.ReportedAt))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\n", k.Kiosk, outcomeWords(rep.Outcome, rep.Reason), rep.Version, rep.InService, seen, detail)
	}
	tw.Flush()
	if len(st.Versions) > 0 {
		vs := make([]string, 0, len(st.Versions))
		for v, n := range st.Versions {
			vs = append(vs, fmt.Sprintf("%s × %d", v, n))
		}
		slices.Sort(vs)
		fmt.Fprintf(w, "versions\u00a0: %s\n", strings.Join(vs, ", "))
	}
	if bad {
		return errFound
	}
	return nil
}

func outcomeWords(outcome, reason string) string {
	s := outcome
	switch outcome {
	case fleet.UpdateInstalling:
		s = "en cours / installing"
	case fleet.UpdateInstalled:
		s = "installée / installed"
	case fleet.UpdateRefused:
		s = "REFUSÉE / REFUSED"
	case fleet.UpdateFailed:
		s = "ÉCHEC / FAILED"
	}
	if reason != "" {
		s += " (" + reason + ")"
	}
	return s
}
