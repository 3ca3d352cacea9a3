package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"pharaon/game/block"
)

// keygen -out NAME: NAME.key (private, 0600) and NAME.pub (public).
func (a *app) keygen(_ context.Context, args []string) error {
	flags := newFlagSet("keygen")
	out := flags.String("out", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return a.flagErr(err, "keygen")
	}
	switch {
	case *out == "":
		return a.usagef("keygen : -out NOM est obligatoire", "keygen: -out NAME is required")
	case len(pos) > 0:
		return a.usagef("keygen : argument inattendu « %s »", "keygen: unexpected argument %q", pos[0])
	}
	keyPath, pubPath := *out+".key", *out+".pub"
	// Both names must be free before anything is written.
	for _, p := range []string{keyPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("keygen: %s: %w", p, errExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("keygen: %w", err)
		}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	privPEM, err := block.MarshalPrivateKey(priv)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	pubPEM, err := block.MarshalPublicKey(pub)
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	if err := writeNew(keyPath, privPEM, 0o600); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	if err := writeNew(pubPath, pubPEM, 0o644); err != nil {
		os.Remove(keyPath) // a private key without its public half is of no use
		return fmt.Errorf("keygen: %w", err)
	}
	id := block.KeyIDOf(pub)
	fmt.Fprintf(a.stdout, a.lang.tr(
		"clé %s créée : %s (privée, à garder secrète), %s (publique, pour les bornes)\n",
		"key %s created: %s (private, keep it secret), %s (public, for the kiosks)\n"),
		id, keyPath, pubPath)
	return nil
}
