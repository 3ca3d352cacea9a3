// Package update makes, verifies and applies the kiosk's signed update
// bundles (DESIGN.md §10, docs/technician.md).
//
// A bundle is an uncompressed tar archive of exactly three entries, in this
// order:
//
//	MANIFEST      JSON (Manifest): what the bundle installs, its version,
//	              the payload's name, size and SHA-256
//	MANIFEST.sig  the 8-byte id of the signing key then its 64-byte
//	              Ed25519ctx signature of MANIFEST (context SignatureContext)
//	PAYLOAD       the payload named by the manifest (a .deb)
//
// The signing key is an issuer's Ed25519 key (the key files of
// game/block), but for another purpose: the kiosk trusts update keys from
// their own directory, and the signature's context differs from a ticket
// block's, so that no block signature is ever a bundle signature.
//
// Reading a bundle (Open) checks the signature before it reads the payload,
// then hashes the payload while it copies it to a staging file; nothing is
// installed until every check passed (Updater.Apply). Applying runs dpkg:
// the package installs nothing under the data partition's /var/lib/pharaon,
// which Apply checks in the package's contents before installing it, and
// the package that was installed before is kept to be reinstalled when the
// new one fails.
package update
