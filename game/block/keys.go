package block

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
)

// KeyID names an issuer key: the first 8 bytes of SHA-256 of the Ed25519
// public key.
type KeyID [8]byte

// KeyIDOf is the KeyID of pub.
func KeyIDOf(pub ed25519.PublicKey) KeyID {
	sum := sha256.Sum256(pub)
	var id KeyID
	copy(id[:], sum[:])
	return id
}

// String is the id as 16 lowercase hex digits.
func (k KeyID) String() string { return hex.EncodeToString(k[:]) }

// Keys resolves trusted issuer public keys (the kiosk's configuration).
type Keys interface {
	Lookup(KeyID) (ed25519.PublicKey, bool)
}

// noKeys reports whether keys trusts no key at all: a kiosk configured
// with none (ErrNoKeys).
func noKeys(keys Keys) bool {
	ks, isSet := keys.(KeySet)
	return keys == nil || isSet && len(ks) == 0
}

// KeySet is a set of trusted public keys indexed by their KeyID.
type KeySet map[KeyID]ed25519.PublicKey

// NewKeySet trusts the given public keys.
func NewKeySet(pubs ...ed25519.PublicKey) KeySet {
	ks := make(KeySet, len(pubs))
	for _, p := range pubs {
		ks[KeyIDOf(p)] = p
	}
	return ks
}

// Lookup returns the trusted key named id.
func (ks KeySet) Lookup(id KeyID) (ed25519.PublicKey, bool) {
	p, ok := ks[id]
	return p, ok
}

// PEM block types of the key files written by the issuer tool and read by
// the kiosk.
const (
	pemPrivate = "PRIVATE KEY" // PKCS #8
	pemPublic  = "PUBLIC KEY"  // PKIX
)

// ErrKey is returned for bytes that are not an Ed25519 key in the expected
// PEM encoding.
var ErrKey = errors.New("not an Ed25519 key file")

// MarshalPrivateKey encodes priv as a PKCS #8 PEM block.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("marshal private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPrivate, Bytes: der}), nil
}

// MarshalPublicKey encodes pub as a PKIX PEM block.
func MarshalPublicKey(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("marshal public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPublic, Bytes: der}), nil
}

// ParsePrivateKey reads an Ed25519 private key from a PKCS #8 PEM block.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	der, err := pemBytes(b, pemPrivate)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%T, not Ed25519: %w", k, ErrKey)
	}
	return priv, nil
}

// ParsePublicKey reads an Ed25519 public key from a PKIX PEM block.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	der, err := pemBytes(b, pemPublic)
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%T, not Ed25519: %w", k, ErrKey)
	}
	return pub, nil
}

func pemBytes(b []byte, typ string) ([]byte, error) {
	blk, rest := pem.Decode(b)
	switch {
	case blk == nil:
		return nil, fmt.Errorf("no PEM block: %w", ErrKey)
	case blk.Type != typ:
		return nil, fmt.Errorf("PEM block %q, want %q: %w", blk.Type, typ, ErrKey)
	case len(blk.Headers) != 0:
		return nil, fmt.Errorf("PEM block has headers (encrypted key?): %w", ErrKey)
	}
	if p, _ := pem.Decode(rest); p != nil {
		return nil, fmt.Errorf("more than one PEM block: %w", ErrKey)
	}
	return blk.Bytes, nil
}
