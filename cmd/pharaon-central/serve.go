package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// centre is a connection as the centre's user, which has every right in
// the fleet's account.
type centre struct {
	nc *nats.Conn
	js jetstream.JetStream
	m  *authority.Material
}

// connectCentre connects to url as the centre, verifying the server with
// the fleet's CA.
func connectCentre(m *authority.Material, url string) (*centre, error) {
	nc, err := m.Connect(url, authority.AccountName, authority.CentralUser, nats.Name("pharaon-central"))
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &centre{nc: nc, js: js, m: m}, nil
}

// provision makes the fleet's streams and buckets and each active kiosk's
// consumer of the deliveries (kiosk/fleet/provision.go).
func provision(ctx context.Context, w io.Writer, c *centre, replicas int) error {
	if err := fleet.Provision(ctx, c.js, replicas); err != nil {
		return err
	}
	ks, err := readKiosks(c.m.Dir)
	if err != nil {
		return err
	}
	n := 0
	for _, k := range ks {
		if !k.Revoked.IsZero() {
			continue
		}
		if err := fleet.ProvisionKiosk(ctx, c.js, k.ID, k.Groups); err != nil {
			return err
		}
		n++
	}
	fmt.Fprintf(w, "PROVISIONNÉ / PROVISIONED\u00a0: %s, %s, %s, %s, %s\u00a0; %d bornes / kiosks\n", fleet.RecordsStream, fleet.BlocksStream,
		fleet.VoucherBucket, fleet.ClaimsBucket, fleet.BlockResults, n)
	return nil
}

// serve runs a nats-server for the fleet on listen until ctx ends: the
// centre of a development run (make run-fleet) and of the tests, in
// operator mode with TLS from the fleet's material in dir, as the
// operator's own server runs with nats-server.conf. It provisions the
// streams, the buckets and the kiosks' consumers at its start, answers
// the kiosks' claims of blocks (serveClaims), and applies the rollouts'
// stop rule as the kiosks report (watchRollouts).
//
// With node, it runs as that node of the fleet's cluster (cluster.go).
func serve(ctx context.Context, dir, listen, store string, node *authority.Node, hosts []string, w io.Writer) error {
	if node != nil {
		return serveNode(ctx, dir, listen, store, *node, hosts, w)
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if store == "" {
		return errors.New("serve: -store DIR is missing")
	}
	m, err := authority.Open(dir)
	if err != nil {
		return err
	}
	s := m.NewServer(host, p, store)
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Stop()
	url := s.URL()
	c, err := connectCentre(m, url)
	if err != nil {
		return err
	}
	err = provision(ctx, io.Discard, c, 1)
	c.nc.Close()
	if err != nil {
		return err
	}
	stop, err := startClaims(m, url, w)
	if err != nil {
		return err
	}
	defer stop()
	// The rollouts' stop rule, as the kiosks report (updates.go).
	defer startRolloutWatch(m, url, w)()
	fmt.Fprintf(w, "nats-server JetStream: %s (store %s, fleet %s)\n", url, store, dir)
	<-ctx.Done()
	return nil
}

// startClaims starts the centre's claim service (kiosk/fleet/claimservice.go)
// on a connection of its own to url, which follows the server through its
// restarts; what it fails to answer is written to w.
func startClaims(m *authority.Material, url string, w io.Writer) (stop func(), err error) {
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, format+"\n", args...)
	}
	nc, err := m.Connect(url, authority.AccountName, authority.CentralUser, nats.Name("pharaon-central claims"),
		nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { logf("claims: disconnected: %v", err) }),
		nats.ReconnectHandler(func(nc *nats.Conn) { logf("claims: connected again to %s", nc.ConnectedUrlRedacted()) }))
	if err != nil {
		return nil, err
	}
	unsub, err := fleet.ServeClaims(nc, func(err error) { logf("claims: %v", err) })
	if err != nil {
		nc.Close()
		return nil, err
	}
	return func() { unsub(); nc.Close() }, nil
}

// serveClaims runs the centre's claim service until ctx ends, beside the
// operator's nats-server (pharaon-central claims): the kiosks claim their
// blocks through it (docs/fleet.md).
func serveClaims(ctx context.Context, m *authority.Material, url string, w io.Writer) error {
	stop, err := startClaims(m, url, w)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(w, "revendications / claims: %s (%s*)\n", url, fleet.ClaimsSubject)
	<-ctx.Done()
	return nil
}
