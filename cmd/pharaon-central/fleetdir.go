package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/authority"
)

// The centre's directory (-fleet DIR, docs/fleet.md): the fleet's
// material as kiosk/fleet/authority lays it out (nsc/, tls/,
// voucher-master.key, nats-server.conf), and for each kiosk the bundle
// kiosks/<id>/ to copy to it: its credentials, the centre's CA, its
// voucher key, the lines of its pharaon.conf, and the centre's note of it
// (kiosk.json).

// kioskNote is what the centre keeps of a kiosk: kiosks/<id>/kiosk.json.
type kioskNote struct {
	ID      string    `json:"id"`
	Groups  []string  `json:"groups,omitempty"`
	User    string    `json:"user"` // its NATS user's public key
	Issued  time.Time `json:"issued"`
	Revoked time.Time `json:"revoked,omitzero"`
}

func kioskDir(dir, id string) string { return filepath.Join(dir, "kiosks", id) }

// bundle file names, in kiosks/<id>/ and on the kiosk beside its
// pharaon.conf.
const (
	bundleCreds      = "kiosk.creds"
	bundleCA         = "ca.pem"
	bundleVoucherKey = "voucher.key"
	bundleConf       = "pharaon.conf"
	bundleNote       = "kiosk.json"
)

// readKiosks reads the centre's notes of its kiosks, by id.
func readKiosks(dir string) ([]kioskNote, error) {
	names, err := filepath.Glob(filepath.Join(dir, "kiosks", "*", bundleNote))
	if err != nil {
		return nil, err
	}
	var out []kioskNote
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var k kioskNote
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b kioskNote) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func readKiosk(dir, id string) (kioskNote, error) {
	b, err := os.ReadFile(filepath.Join(kioskDir(dir, id), bundleNote))
	if errors.Is(err, os.ErrNotExist) {
		return kioskNote{}, fmt.Errorf("kiosk %s: not one of this centre's (pharaon-central kiosk add)", id)
	}
	if err != nil {
		return kioskNote{}, err
	}
	var k kioskNote
	if err := json.Unmarshal(b, &k); err != nil {
		return kioskNote{}, fmt.Errorf("kiosk %s: %w", id, err)
	}
	return k, nil
}

func writeKiosk(dir string, k kioskNote) error {
	b, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	return authority.WriteFile(filepath.Join(kioskDir(dir, k.ID), bundleNote), append(b, '\n'), 0o644)
}

// kioskIDs are every kiosk the centre issued credentials to, revoked ones
// included: their vouchers stay payable at the centre.
func kioskIDs(dir string) ([]string, error) {
	ks, err := readKiosks(dir)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ks))
	for i, k := range ks {
		ids[i] = k.ID
	}
	return ids, nil
}

// writeBundle writes kiosk k's bundle: a copy of its .creds, the CA, its
// voucher key and the lines of its configuration reaching url.
func writeBundle(m *authority.Material, k kioskNote, creds, url string) error {
	d := kioskDir(m.Dir, k.ID)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	c, err := os.ReadFile(creds)
	if err != nil {
		return err
	}
	if err := authority.WriteFile(filepath.Join(d, bundleCreds), c, 0o600); err != nil {
		return err
	}
	ca, err := os.ReadFile(m.CAFile())
	if err != nil {
		return err
	}
	if err := authority.WriteFile(filepath.Join(d, bundleCA), ca, 0o644); err != nil {
		return err
	}
	master, err := m.VoucherMaster()
	if err != nil {
		return err
	}
	if err := authority.WriteFile(filepath.Join(d, bundleVoucherKey), fleet.KioskVoucherKey(master, k.ID), 0o600); err != nil {
		return err
	}
	conf := fmt.Sprintf("# The fleet's lines of kiosk %s's pharaon.conf (pharaon-central kiosk add; docs/kiosk-config.md).\n"+
		"# The files named here go beside it, readable by the kiosk's user only.\n"+
		"kiosk-id = %s\nnats-url = %s\nnats-creds = %s\nnats-ca = %s\nnats-voucher-key = %s\n",
		k.ID, k.ID, url, bundleCreds, bundleCA, bundleVoucherKey)
	if err := authority.WriteFile(filepath.Join(d, bundleConf), []byte(conf), 0o644); err != nil {
		return err
	}
	return writeKiosk(m.Dir, k)
}
