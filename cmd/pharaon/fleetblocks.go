package main

import (
	"context"
	"log"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// startFleetBlocks starts, on its own goroutine, the fetcher of the blocks
// the centre sends to this kiosk or its groups (kiosk/fleet/blocks.go). It
// imports through the machine, as the maintenance screen does: the
// store's verifying import, then the stakes on sale read again, the block
// claimed in the fleet by the fetcher first; the machine's own imports
// claim theirs through a fleet.Claimer. Each
// outcome is an event (fleet.EventFleetBlock) and a line in the log. The returned
// stop stops it, then calls then (the publisher's stop); on an error it is
// then itself.
func startFleetBlocks(ctx context.Context, cfg fleet.Config, st *store.Store, m *kiosk.Machine, clk kiosk.Clock,
	logger *log.Logger, then func()) (stop func(), err error) {
	f, err := fleet.NewBlockFetcher(cfg, st, m.ImportBlockClaimed)
	if err != nil {
		return then, err
	}
	// The imports at the kiosk (the maintenance screen) claim their block
	// in the fleet too; one imported while the centre did not answer is
	// claimed by the fetcher when it answers.
	cl, err := fleet.NewClaimer(cfg)
	if err != nil {
		return then, err
	}
	cl.OnLater = func(kiosk.BlockClaim) { f.Reclaim() }
	m.SetBlockClaims(cl)
	f.Now = clk.Now
	f.OnResult = func(r fleet.BlockResult) {
		logger.Printf("fleet: delivery %d (%s) of block %d/%d: %s: %s", r.Delivery, r.To, r.Emission, r.Number, r.Outcome, r.Detail)
	}
	var last string
	f.OnError = func(err error) {
		if err.Error() != last {
			last = err.Error()
			logger.Printf("fleet: blocks: %v (the kiosk takes its blocks when the centre answers)", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx) //nolint:errcheck // ends with ctx
	}()
	logger.Printf("fleet: kiosk %s takes the blocks sent to it and to the groups the centre put it in", cfg.KioskID)
	return func() {
		cancel()
		<-done
		m.SetBlockClaims(nil)
		cl.Close()
		if then != nil {
			then()
		}
	}, nil
}
