package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// initFleet makes the centre's material in dir (authority.Init) and the
// nats-server configuration for the operator's own server, listening on
// listen and storing in store.
//
// With node, it writes that node's configuration instead (cluster.go).
func initFleet(w io.Writer, dir string, tlsIn authority.TLSInput, listen, store string, node *authority.Node) error {
	m, err := authority.Init(dir, tlsIn)
	if err != nil {
		return err
	}
	if store == "" {
		store = filepath.Join(dir, "jetstream")
	}
	if node != nil {
		return initNode(w, m, listen, store, *node, tlsIn.Hosts)
	}
	if err := m.WriteServerConfig(listen, store); err != nil {
		return err
	}
	fmt.Fprintf(w, "FLOTTE / FLEET %s\u00a0: opérateur / operator %s, compte / account %s\n", dir, authority.OperatorName, m.AccountPublicKey())
	fmt.Fprintf(w, "  serveur / server: nats-server -c %s (ou / or pharaon-central serve -fleet %s)\n", m.ServerConfigFile(), dir)
	fmt.Fprintf(w, "  CA des bornes / the kiosks' CA: %s\n", m.CAFile())
	fmt.Fprintf(w, "  ne quitte jamais le centre / never leaves the centre: %s, %s, %s\n", m.VoucherMasterFile(),
		filepath.Join(dir, "nsc", "keys"), filepath.Join(dir, "tls", "*-key.pem"))
	return nil
}

// addKiosk issues kiosk id's credentials for groups and writes its
// bundle (fleetdir.go). A kiosk already there gets new credentials, its
// old ones revoked: that is how its groups change, or a leaked .creds is
// replaced. When the server at natsURL answers, the kiosk's consumer of the
// deliveries is made there and the account's revocations pushed; else it
// says to run pharaon-central provision once the server runs.
func addKiosk(ctx context.Context, w io.Writer, dir, id string, groups []string, natsURL, kioskURL string, now time.Time) error {
	if err := kiosk.CheckKioskID(id); err != nil {
		return err
	}
	if id == authority.CentralUser {
		return fmt.Errorf("kiosk id %q: not %q, the centre's own name", id, authority.CentralUser)
	}
	for _, g := range groups {
		if !fleet.ValidKioskID(g) {
			return fmt.Errorf("group %q, named as a kiosk is: %w", g, kiosk.ErrKioskID)
		}
	}
	m, err := authority.Open(dir)
	if err != nil {
		return err
	}
	p := authority.Permissions(fleet.KioskPermissions(id, groups))
	creds, err := m.IssueUser(authority.AccountName, id, &p, now)
	if err != nil {
		return err
	}
	u, err := m.UserOf(id)
	if err != nil {
		return err
	}
	note := kioskNote{ID: id, Groups: groups, User: u.PublicKey, Issued: now.UTC()}
	if err := writeBundle(m, note, creds, kioskURL); err != nil {
		return err
	}
	// Revocations and the consumer on the running server, if it answers.
	if err := m.RefreshServerConfig(); err != nil {
		return err
	}
	fmt.Fprintf(w, "BORNE / KIOSK %s\u00a0: %s (groupes / groups: %s)\n", id, kioskDir(dir, id), groupList(groups))
	if err := onServer(ctx, m, natsURL, func(c *centre) error {
		return fleet.ProvisionKiosk(ctx, c.js, id, groups)
	}); err != nil {
		fmt.Fprintf(w, "  serveur injoignable / server unreachable (%v)\u00a0: son consommateur sera créé au démarrage de pharaon-central serve, "+
			"ou par pharaon-central provision -fleet %s / its consumer is made when pharaon-central serve starts, or by provision\n", err, dir)
	}
	return nil
}

// revokeKiosk revokes kiosk id's credentials: the server refuses them
// from the moment it has the account's new JWT (pushed here when it
// answers, read from its configuration at its next start), and the
// kiosk's consumer is deleted. Its records and its vouchers stay: its
// vouchers remain payable at the centre.
func revokeKiosk(ctx context.Context, w io.Writer, dir, id, natsURL string, now time.Time) error {
	m, err := authority.Open(dir)
	if err != nil {
		return err
	}
	note, err := readKiosk(dir, id)
	if err != nil {
		return err
	}
	if _, err := m.Revoke(id, now); err != nil {
		return err
	}
	note.Revoked = now.UTC()
	if err := writeKiosk(dir, note); err != nil {
		return err
	}
	if err := m.RefreshServerConfig(); err != nil {
		return err
	}
	fmt.Fprintf(w, "RÉVOQUÉE / REVOKED %s\n", id)
	if err := onServer(ctx, m, natsURL, func(c *centre) error {
		return fleet.RemoveKiosk(ctx, c.js, id)
	}); err != nil {
		fmt.Fprintf(w, "  serveur injoignable / server unreachable (%v)\u00a0: ses identifiants seront refusés au prochain démarrage du serveur / "+
			"its credentials are refused at the server's next start\n", err)
	}
	return nil
}

// onServer pushes the account's JWT to the server at url and runs fn
// connected as the centre; nothing is done when it does not answer.
func onServer(ctx context.Context, m *authority.Material, url string, fn func(*centre) error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := m.PushAccount(ctx, url); err != nil {
		return err
	}
	c, err := connectCentre(m, url)
	if err != nil {
		return err
	}
	defer c.nc.Close()
	return fn(c)
}

// listKiosks prints the centre's kiosks.
func listKiosks(w io.Writer, dir string) error {
	m, err := authority.Open(dir)
	if err != nil {
		return err
	}
	ks, err := readKiosks(dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "borne/kiosk\tgroupes/groups\tutilisateur/user\témis/issued\tétat/state")
	for _, k := range ks {
		state := "active"
		if u, err := m.UserOf(k.ID); err != nil || u.Revoked || u.PublicKey != k.User {
			state = "RÉVOQUÉE/REVOKED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, groupList(k.Groups), k.User, k.Issued.Format(time.RFC3339), state)
	}
	return tw.Flush()
}

func groupList(groups []string) string {
	if len(groups) == 0 {
		return "—"
	}
	return strings.Join(groups, ",")
}
