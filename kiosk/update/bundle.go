package update

import (
	"archive/tar"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"pharaon/game/block"
)

// Format is the manifest's format string.
const Format = "pharaon-update/1"

// SignatureContext is the Ed25519ctx context of a bundle's signature.
const SignatureContext = "pharaon update bundle v1"

// Entry names of a bundle.
const (
	entryManifest  = "MANIFEST"
	entrySignature = "MANIFEST.sig"
)

// Payload kinds: the kiosk's Debian package (applied with dpkg on the
// running system), or a whole system for the other slot of an A/B disk
// (kiosk/update/system.go).
const (
	KindDeb    = "deb"
	KindSystem = "system"
)

// Package is the name of the kiosk's Debian package.
const Package = "pharaon"

// maxManifest bounds the manifest: it is a few lines of JSON.
const maxManifest = 64 << 10

// MaxPayload bounds a payload (the package is some tens of megabytes).
const MaxPayload = 2 << 30

// Manifest says what a bundle installs. The signature covers its bytes as
// they are in the bundle.
type Manifest struct {
	Format  string    `json:"format"`
	Kind    string    `json:"kind"`
	Package string    `json:"package"`
	Version string    `json:"version"`
	Arch    string    `json:"arch"`
	Payload string    `json:"payload"`
	Size    int64     `json:"size"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created"`
	// Rollback says the issuer means this bundle to replace a newer
	// version: without it a kiosk refuses a version that is not newer
	// than the one it runs. Signed with the rest.
	Rollback bool `json:"rollback,omitempty"`
}

// Errors of a bundle that is refused; the messages wrapping them say why.
var (
	ErrFormat    = errors.New("not a Pharaon update bundle")
	ErrUnsigned  = errors.New("the bundle is not signed")
	ErrUntrusted = errors.New("the bundle is signed by a key that is not trusted for updates")
	ErrSignature = errors.New("the bundle's signature does not match its manifest")
	ErrPayload   = errors.New("the payload is not the one the manifest describes")
)

func (m *Manifest) check() error {
	switch {
	case m.Format != Format:
		return fmt.Errorf("manifest format %q, want %q: %w", m.Format, Format, ErrFormat)
	case m.Kind == "":
		return fmt.Errorf("manifest: no kind: %w", ErrFormat)
	case m.Package == "":
		return fmt.Errorf("manifest: no package: %w", ErrFormat)
	case m.Payload == "" || m.Payload != path.Base(m.Payload) || m.Payload == "." || m.Payload == ".." ||
		m.Payload == entryManifest || m.Payload == entrySignature || strings.ContainsAny(m.Payload, "\\\x00"):
		return fmt.Errorf("manifest: payload name %q: %w", m.Payload, ErrFormat)
	case m.Size <= 0 || m.Size > MaxPayload:
		return fmt.Errorf("manifest: payload size %d: %w", m.Size, ErrFormat)
	}
	if err := ValidVersion(m.Version); err != nil {
		return fmt.Errorf("manifest: %w: %w", err, ErrFormat)
	}
	if s, err := hex.DecodeString(m.SHA256); err != nil || len(s) != sha256.Size || strings.ToLower(m.SHA256) != m.SHA256 {
		return fmt.Errorf("manifest: sha256 %q: %w", m.SHA256, ErrFormat)
	}
	return nil
}

var signOpts = &ed25519.Options{Context: SignatureContext}

// Write makes a bundle of the payload read from payload (size bytes) on w,
// signed by priv. m gives the kind, package, version, architecture, payload
// name and creation time; Write fills in the format, size and SHA-256,
// which it computes from the payload it reads twice (payload must be a
// file, or anything that seeks).
func Write(w io.Writer, m Manifest, payload io.ReadSeeker, priv ed25519.PrivateKey) (Manifest, error) {
	sum := sha256.New()
	n, err := io.Copy(sum, payload)
	if err != nil {
		return Manifest{}, fmt.Errorf("read payload: %w", err)
	}
	m.Format, m.Size, m.SHA256 = Format, n, hex.EncodeToString(sum.Sum(nil))
	m.Created = m.Created.UTC().Truncate(time.Second)
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Manifest{}, err
	}
	mb = append(mb, '\n')
	sig, err := priv.Sign(nil, mb, signOpts)
	if err != nil {
		return Manifest{}, fmt.Errorf("sign: %w", err)
	}
	id := block.KeyIDOf(priv.Public().(ed25519.PublicKey))
	sigEntry := append(id[:len(id):len(id)], sig...)
	if _, err := payload.Seek(0, io.SeekStart); err != nil {
		return Manifest{}, fmt.Errorf("read payload: %w", err)
	}
	tw := tar.NewWriter(w)
	hdr := func(name string, size int64) *tar.Header {
		return &tar.Header{Name: name, Size: size, Mode: 0o644, ModTime: m.Created, Format: tar.FormatPAX, Typeflag: tar.TypeReg}
	}
	for _, e := range []struct {
		name string
		b    []byte
	}{{entryManifest, mb}, {entrySignature, sigEntry}} {
		if err := tw.WriteHeader(hdr(e.name, int64(len(e.b)))); err != nil {
			return Manifest{}, err
		}
		if _, err := tw.Write(e.b); err != nil {
			return Manifest{}, err
		}
	}
	if err := tw.WriteHeader(hdr(m.Payload, m.Size)); err != nil {
		return Manifest{}, err
	}
	sum.Reset()
	if c, err := io.Copy(tw, io.TeeReader(payload, sum)); err != nil || c != m.Size {
		return Manifest{}, fmt.Errorf("read payload: %d bytes of %d: %v", c, m.Size, err)
	}
	if hex.EncodeToString(sum.Sum(nil)) != m.SHA256 {
		return Manifest{}, fmt.Errorf("the payload changed while the bundle was written")
	}
	if err := tw.Close(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// Verified is a bundle whose signature, manifest and payload were checked:
// its payload is the staging file Path, to be installed or removed.
type Verified struct {
	Manifest Manifest
	Key      block.KeyID // the key that signed it
	Path     string      // the payload, checked, in the staging directory
}

// Remove deletes the staging file.
func (v *Verified) Remove() error { return os.Remove(v.Path) }

// Open reads the bundle r and checks it: the manifest's signature by one
// of keys (before anything else is read), the manifest, then the payload
// against the manifest's size and SHA-256 while it is copied to a new file
// in dir. On any error nothing is left in dir.
func Open(r io.Reader, keys block.Keys, dir string) (*Verified, error) {
	tr := tar.NewReader(r)
	m, id, err := readSigned(tr, keys)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".incoming-*")
	if err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	sum := sha256.New()
	if n, err := io.Copy(io.MultiWriter(f, sum), tr); err != nil || n != m.Size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("payload %s: %w: %w", m.Payload, err, ErrPayload)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != m.SHA256 {
		return nil, fmt.Errorf("payload %s has SHA-256 %s, the manifest says %s: %w", m.Payload, got, m.SHA256, ErrPayload)
	}
	if h, err := tr.Next(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("unexpected entry %q after the payload: %w", h.Name, ErrFormat)
		}
		return nil, fmt.Errorf("after the payload: %w: %w", err, ErrFormat)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	ok = true
	return &Verified{Manifest: m, Key: id, Path: f.Name()}, nil
}

// readSigned reads a bundle's manifest and signature from tr and checks
// the signature by one of keys (before anything else is read), the
// manifest, and the payload entry's name and size: tr is left at the
// payload's first byte, for the caller to hash against the manifest.
func readSigned(tr *tar.Reader, keys block.Keys) (Manifest, block.KeyID, error) {
	var none block.KeyID
	next := func(want string) (*tar.Header, error) {
		h, err := tr.Next()
		if err == io.EOF {
			if want == entrySignature {
				return nil, fmt.Errorf("no %s entry: %w", entrySignature, ErrUnsigned)
			}
			return nil, fmt.Errorf("no %s entry: %w", want, ErrFormat)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrFormat)
		}
		if h.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("entry %q is not a regular file: %w", h.Name, ErrFormat)
		}
		if want != "" && h.Name != want {
			if want == entrySignature {
				return nil, fmt.Errorf("entry %q where %s should be: %w", h.Name, entrySignature, ErrUnsigned)
			}
			return nil, fmt.Errorf("entry %q where %s should be: %w", h.Name, want, ErrFormat)
		}
		return h, nil
	}
	h, err := next(entryManifest)
	if err != nil {
		return Manifest{}, none, err
	}
	if h.Size > maxManifest {
		return Manifest{}, none, fmt.Errorf("manifest of %d bytes: %w", h.Size, ErrFormat)
	}
	mb, err := io.ReadAll(tr)
	if err != nil {
		return Manifest{}, none, fmt.Errorf("manifest: %w: %w", err, ErrFormat)
	}
	h, err = next(entrySignature)
	if err != nil {
		return Manifest{}, none, err
	}
	if h.Size != int64(len(block.KeyID{})+ed25519.SignatureSize) {
		return Manifest{}, none, fmt.Errorf("signature entry of %d bytes: %w", h.Size, ErrUnsigned)
	}
	sb, err := io.ReadAll(tr)
	if err != nil {
		return Manifest{}, none, fmt.Errorf("signature: %w: %w", err, ErrFormat)
	}
	var id block.KeyID
	copy(id[:], sb)
	sig := sb[len(id):]
	var key ed25519.PublicKey
	ok := false
	if keys != nil {
		key, ok = keys.Lookup(id)
	}
	if !ok || len(key) != ed25519.PublicKeySize || block.KeyIDOf(key) != id {
		return Manifest{}, none, fmt.Errorf("key %s: %w", id, ErrUntrusted)
	}
	if ed25519.VerifyWithOptions(key, mb, sig, signOpts) != nil {
		return Manifest{}, none, fmt.Errorf("key %s: %w", id, ErrSignature)
	}
	// Signed: the manifest is the issuer's.
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, none, fmt.Errorf("manifest: %w: %w", err, ErrFormat)
	}
	if err := m.check(); err != nil {
		return Manifest{}, none, err
	}
	h, err = next(m.Payload)
	if err != nil {
		return Manifest{}, none, fmt.Errorf("%w: %w", err, ErrPayload)
	}
	if h.Size != m.Size {
		return Manifest{}, none, fmt.Errorf("payload %s of %d bytes, the manifest says %d: %w", m.Payload, h.Size, m.Size, ErrPayload)
	}
	return m, id, nil
}

// PeekKind reads the kind a bundle's manifest names, without checking its
// signature: it chooses how a bundle is applied, and Updater.Apply and
// SystemInstaller.Install then check everything themselves.
func PeekKind(r io.Reader) (string, error) {
	tr := tar.NewReader(r)
	h, err := tr.Next()
	if err != nil || h.Name != entryManifest || h.Size > maxManifest {
		return "", fmt.Errorf("no %s entry first: %w", entryManifest, ErrFormat)
	}
	var m struct {
		Kind string `json:"kind"`
	}
	if err := json.NewDecoder(tr).Decode(&m); err != nil {
		return "", fmt.Errorf("manifest: %w: %w", err, ErrFormat)
	}
	return m.Kind, nil
}
