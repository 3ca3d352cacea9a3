package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// fleetSpool is the directory, beside the kiosk's database, where the
// kiosk downloads the bundles the fleet sends it and the root helper
// takes them from (pharaon helper -spool): the kiosk's user writes there,
// root reads.
const fleetSpool = "fleet-updates"

// helperUpdates installs the fleet's bundles through the root helper,
// with the checks of a bundle on a USB stick (the helper's own update
// keys; no downgrade unless the bundle is signed as a rollback).
type helperUpdates struct {
	c interface {
		FleetCheck(ctx context.Context, file string) (helper.Update, error)
		FleetInstall(ctx context.Context, file string) (helper.Update, error)
	}
}

// Version is the version of the running binary: the package's, which the
// build sets (kiosk.Version), so a kiosk restarted into a new package or
// system says the new one.
func (helperUpdates) Version(context.Context) (string, error) { return kiosk.Version, nil }

func (h helperUpdates) Check(ctx context.Context, bundle string) (update.Result, error) {
	u, err := h.c.FleetCheck(ctx, filepath.Base(bundle))
	return resultOf(u), updateError(err)
}

func (h helperUpdates) Install(ctx context.Context, bundle string) (update.Result, error) {
	u, err := h.c.FleetInstall(ctx, filepath.Base(bundle))
	return resultOf(u), updateError(err)
}

func resultOf(u helper.Update) update.Result {
	return update.Result{Manifest: update.Manifest{Package: u.Package, Version: u.Version}, From: u.From}
}

// updateError is the helper's refusal as kiosk/update's error again, so
// that the follower tells a refusal from a failure by update.Reason.
func updateError(err error) error {
	var he *helper.Error
	if errors.As(err, &he) {
		if e := update.ReasonError(he.Code); e != nil {
			return fmt.Errorf("%w: %w", e, err)
		}
	}
	return err
}

// startFleetUpdates starts, on its own goroutine, the follower of the
// updates the centre offers this kiosk (kiosk/fleet/rollout_kiosk.go): it
// downloads an offered bundle into the spool beside the database, has
// the root helper check it, installs it through the helper once the
// machine is idle (its players locked out in the same step), and reports
// to the centre. Each report is an event (fleet.EventFleetUpdate) and a
// line in the log. The returned stop stops it, then calls then.
func startFleetUpdates(ctx context.Context, cfg fleet.Config, st *store.Store, m *kiosk.Machine, clk kiosk.Clock,
	logger *log.Logger, hc *helper.Client, spool string, then func()) (stop func(), err error) {
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return then, fmt.Errorf("fleet: updates: %w", err)
	}
	// A download a stop or a crash left behind: the follower downloads
	// again what is still offered.
	if old, err := filepath.Glob(filepath.Join(spool, ".fleet-update-*")); err == nil {
		for _, p := range old {
			os.Remove(p)
		}
	}
	f, err := fleet.NewUpdateFollower(cfg, helperUpdates{c: hc}, m, st, spool)
	if err != nil {
		return then, err
	}
	f.Now = clk.Now
	f.OnReport = func(r fleet.UpdateReport) {
		logger.Printf("fleet: update %s of rollout %s: %s (running %s): %s", r.Offered, r.Rollout, r.Outcome, r.Version, r.Detail)
	}
	var last string
	f.OnError = func(err error) {
		if err.Error() != last {
			last = err.Error()
			logger.Printf("fleet: updates: %v (the kiosk reads its offers when the centre answers)", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx) //nolint:errcheck // ends with ctx
	}()
	return func() {
		cancel()
		<-done
		if then != nil {
			then()
		}
	}, nil
}
