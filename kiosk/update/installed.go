package update

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"strings"

	"pharaon/game/block"
)

// The installed package's manifest (packaging/deb.sh): one "SUM  PATH"
// line for each file the package installs, signed with an update key when
// the package is built with one (`make deb UPDATE_KEY=…`). The signature
// file beside it (SignatureSuffix) holds the key's id then the Ed25519ctx
// signature of the manifest's bytes under ManifestContext.

// ManifestContext is the Ed25519ctx context of the installed manifest's
// signature: a bundle's signature can never pass for it, nor the reverse.
const ManifestContext = "pharaon installed manifest v1"

// SignatureSuffix names the signature file beside the manifest.
const SignatureSuffix = ".sig"

// Errors of the binary's self-test (CheckBinary).
var (
	ErrManifestUnsigned = errors.New("the installed manifest is not signed")
	ErrManifestBad      = errors.New("the installed manifest's signature does not match it, or its key is not trusted")
	ErrBinaryChanged    = errors.New("the running binary is not the one the package installed")
)

var manifestOpts = &ed25519.Options{Context: ManifestContext}

// SignManifest returns the signature file of manifest under priv.
func SignManifest(manifest []byte, priv ed25519.PrivateKey) ([]byte, error) {
	sig, err := priv.Sign(nil, manifest, manifestOpts)
	if err != nil {
		return nil, err
	}
	id := block.KeyIDOf(priv.Public().(ed25519.PublicKey))
	return append(id[:len(id):len(id)], sig...), nil
}

// VerifyManifest checks sig, a signature file, against manifest and keys.
func VerifyManifest(manifest, sig []byte, keys block.Keys) error {
	if len(sig) != len(block.KeyID{})+ed25519.SignatureSize {
		return fmt.Errorf("signature of %d bytes: %w", len(sig), ErrManifestBad)
	}
	var id block.KeyID
	copy(id[:], sig)
	var key ed25519.PublicKey
	ok := false
	if keys != nil {
		key, ok = keys.Lookup(id)
	}
	if !ok || len(key) != ed25519.PublicKeySize || block.KeyIDOf(key) != id {
		return fmt.Errorf("key %s is not an update key of this kiosk: %w", id, ErrManifestBad)
	}
	if ed25519.VerifyWithOptions(key, manifest, sig[len(id):], manifestOpts) != nil {
		return fmt.Errorf("key %s: %w", id, ErrManifestBad)
	}
	return nil
}

// CheckBinary is the binary's self-test: the manifest at manifestPath,
// signed (manifestPath+SignatureSuffix) by one of keys, lists the file
// installed at installed with the SHA-256 of exe, the running binary.
func CheckBinary(manifestPath string, keys block.Keys, exe, installed string) error {
	mb, err := os.ReadFile(manifestPath)
	if err != nil {
		return fmt.Errorf("installed manifest: %w", err)
	}
	sig, err := os.ReadFile(manifestPath + SignatureSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: no %s: %w", manifestPath, SignatureSuffix, ErrManifestUnsigned)
	}
	if err != nil {
		return fmt.Errorf("installed manifest's signature: %w", err)
	}
	if err := VerifyManifest(mb, sig, keys); err != nil {
		return fmt.Errorf("%s: %w", manifestPath, err)
	}
	want := ""
	sc := bufio.NewScanner(bytes.NewReader(mb))
	for sc.Scan() {
		if sum, p, ok := strings.Cut(sc.Text(), "  "); ok && p == installed {
			want = sum
		}
	}
	if want == "" {
		return fmt.Errorf("%s does not list %s: %w", manifestPath, installed, ErrBinaryChanged)
	}
	got, err := FileSum(exe)
	if err != nil {
		return fmt.Errorf("read the running binary: %w", err)
	}
	if got != want {
		return fmt.Errorf("%s: SHA-256 %s, the manifest says %s: %w", exe, got, want, ErrBinaryChanged)
	}
	return nil
}
