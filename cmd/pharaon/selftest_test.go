package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game/block"
	"pharaon/hw/sim"
	"pharaon/kiosk"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// The binary's self-test at boot: with the signed manifest of the running
// binary the kiosk serves; a binary the manifest does not match, or a
// manifest without its signature or signed by a key that is not an update
// key, puts the kiosk out of service with the reason on stderr and an
// event in its log, its data left as they were. Without a manifest (a
// development run) the log says the self-test was skipped.
func TestBinarySelfTestOfTheSoftware(t *testing.T) {
	dir := t.TempDir()
	keysDir := filepath.Join(dir, "update-keys")
	require.NoError(t, os.MkdirAll(keysDir, 0o755))
	priv := ed25519.NewKeyFromSeed([]byte("pharaon self-test update key 32b"))
	pem, err := block.MarshalPublicKey(priv.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(keysDir, "update.pub"), pem, 0o644))
	other := ed25519.NewKeyFromSeed([]byte("someone else's key, not trusted!"))

	exe, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	sum := sha256.Sum256(exe)
	good := hex.EncodeToString(sum[:]) + "  /usr/bin/pharaon\n"
	bad := hex.EncodeToString(make([]byte, 32)) + "  /usr/bin/pharaon\n"
	manifest := filepath.Join(dir, "MANIFEST.sha256")
	write := func(text string, k ed25519.PrivateKey) {
		require.NoError(t, os.WriteFile(manifest, []byte(text), 0o644))
		os.Remove(manifest + update.SignatureSuffix)
		if k != nil {
			sig, err := update.SignManifest([]byte(text), k)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(manifest+update.SignatureSuffix, sig, 0o644))
		}
	}
	db := filepath.Join(dir, "data", "pharaon.db")
	args := []string{"-dev", "-db", db, "-manifest", manifest, "-update-keys", keysDir}

	r := runBinary(t, dir, "-dev", "-db", db)
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout)
	assert.Contains(t, r.stderr, "no signed manifest installed: the binary's self-test is skipped")

	// The configuration file cannot turn the check off: a manifest named
	// there is refused, the kiosk does not start on it.
	conf := filepath.Join(dir, "pharaon.conf")
	require.NoError(t, os.WriteFile(conf, []byte("manifest = /nowhere\n"), 0o600))
	write(bad, priv)
	r = runBinary(t, dir, append([]string{"-config", conf}, args...)...)
	require.NotEqual(t, exitOK, r.status, r.stderr)
	assert.Contains(t, r.stderr, "config line 1: manifest is not a key of the configuration")
	r = runBinary(t, dir, args...)
	assert.Equal(t, "SCREEN out_of_service "+kiosk.FaultSoftware+" credit=0\n", r.stdout)

	write(good, priv)
	r = runBinary(t, dir, args...)
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout, r.stderr)

	for _, c := range []struct {
		name, text string
		key        ed25519.PrivateKey
		says       string
	}{
		{"binary changed", bad, priv, "the running binary is not the one the package installed"},
		{"unsigned", good, nil, "the installed manifest is not signed"},
		{"untrusted key", good, other, "is not an update key of this kiosk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			write(c.text, c.key)
			r := runBinary(t, dir, args...)
			assertOutOfService(t, r, kiosk.FaultSoftware, c.says, c.name)
			assertFaultLogged(t, db, kiosk.FaultSoftware, c.says)
		})
	}
}

// The binary's self-test is decided by what the package installed, never by
// the configuration (which its manifest does not cover): the package's
// signed manifest is checked whenever it is there, whatever -manifest says;
// the binary of a signed package checks even when the manifest was
// removed (the check then fails); an unsigned package's manifest and a
// development build without one skip it, saying why.
func TestSoftwareManifestIsThePackages(t *testing.T) {
	dir := t.TempDir()
	packaged := filepath.Join(dir, "usr", "share", "pharaon", "MANIFEST.sha256")
	flag := filepath.Join(dir, "dev", "MANIFEST.sha256")

	m, why := softwareManifest("", packaged, false)
	assert.Empty(t, m)
	assert.Contains(t, why, "a development build")
	m, _ = softwareManifest(flag, packaged, false)
	assert.Equal(t, flag, m, "a development run or a test names its own")
	m, why = softwareManifest("", packaged, true)
	assert.Equal(t, packaged, m, "a signed package's binary checks, the manifest missing or not")
	assert.Empty(t, why)

	require.NoError(t, os.MkdirAll(filepath.Dir(packaged), 0o755))
	require.NoError(t, os.WriteFile(packaged, []byte("sums\n"), 0o644))
	m, why = softwareManifest("", packaged, false)
	assert.Empty(t, m)
	assert.Contains(t, why, "is not signed (a package built without an update key)")

	require.NoError(t, os.WriteFile(packaged+update.SignatureSuffix, []byte("sig"), 0o644))
	for _, f := range []string{"", flag, "/nowhere"} {
		m, why = softwareManifest(f, packaged, false)
		assert.Equal(t, packaged, m, "-manifest %q does not turn the package's check away", f)
		assert.Empty(t, why)
	}
}

// The cash devices' self-test at boot: a development run's simulators
// answer and the kiosk serves; a validator or a printer whose port is
// missing or that does not answer puts the kiosk out of service with the
// fault on its screen, the line on stderr, and a critical event in its
// log, its data left as they were.
func TestBinarySelfTestOfTheDevices(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "pharaon.db")
	r := runBinary(t, dir, "-dev", "-db", db)
	require.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout)
	assert.Contains(t, r.stderr, "the cash devices' self-test took ")
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, " took ") {
			t.Log(l) // the figures of DESIGN.md §7
		}
	}

	// A pseudo-terminal nobody answers on: a unit plugged in but dead.
	silent, err := sim.OpenPTY(filepath.Join(dir, "silent"))
	require.NoError(t, err)
	defer silent.Close()
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name string
		args []string
		code string
		says string
	}{
		{"validator missing", []string{"-validator", missing}, kiosk.FaultValidator, "bill validator " + missing},
		{"validator not answering", []string{"-validator", silent.Link}, kiosk.FaultValidator, "no answer within"},
		{"printer missing", []string{"-printer", missing}, kiosk.FaultPrinter, "voucher printer " + missing},
		{"printer not answering", []string{"-printer", silent.Link}, kiosk.FaultPrinter, "printer status"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBinary(t, dir, append([]string{"-dev", "-db", db}, c.args...)...)
			assertOutOfService(t, r, c.code, c.says, c.name)
			assertFaultLogged(t, db, c.code, c.says)
		})
	}
}

// assertOutOfService checks that the binary ran to a clean stop showing the
// out-of-service screen with fault code and no credit, and said why on
// stderr; where names the run in the messages.
func assertOutOfService(t *testing.T, r result, code, says, where string) {
	t.Helper()
	require.Equal(t, exitOK, r.status, "%s: %s", where, r.stderr)
	assert.Equal(t, "SCREEN out_of_service "+code+" credit=0\n", r.stdout, "%s: %s", where, r.stderr)
	assert.Contains(t, r.stderr, "pharaon: out of service: "+code+": ", where)
	assert.Contains(t, r.stderr, says, where)
}

// assertFaultLogged checks that the kiosk's newest event in db is the
// critical event of fault code, its detail saying says.
func assertFaultLogged(t *testing.T, db, code, says string) {
	t.Helper()
	st, err := store.Open(db)
	require.NoError(t, err)
	defer st.Close()
	ev, err := st.EventsWhere(context.Background(), store.EventQuery{Source: "kiosk", N: 5})
	require.NoError(t, err)
	require.NotEmpty(t, ev)
	assert.Equal(t, code, ev[0].Code, "the newest event")
	assert.Equal(t, store.LevelCritical, ev[0].Level)
	assert.Contains(t, ev[0].Detail, says)
}
