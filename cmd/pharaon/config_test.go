package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk/speech"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// mapEnv is an environment for the tests.
type mapEnv map[string]string

func (m mapEnv) Getenv(k string) string { return m[k] }
func (m mapEnv) Setenv(k, v string) error {
	m[k] = v
	return nil
}

func TestParseConfigFile(t *testing.T) {
	text := `# a kiosk
db = /var/lib/pharaon/k.db
kiosk-id = PH 0042
lang = EN

fullscreen = false
dev = true
fps = 1
keys = issuer-2026.pub, /etc/pharaon/issuer-2027.pub,
validator = /dev/serial/by-id/jcm
printer = printer0
venue = Tabac de la Gare, 12 place Bellecour, 69002 Lyon
max-credit = 150
payout-limit = 1 500 €
voucher-validity = 90
block-dir = /media/pharaon
`
	var c Config
	require.NoError(t, ParseConfigFile(strings.NewReader(text), "/etc/pharaon", &c))
	assert.Equal(t, Config{
		DB: "/var/lib/pharaon/k.db", KioskID: "PH 0042", Lang: ui.English, Fullscreen: false, Dev: true, FPS: true,
		Keys:      []string{"/etc/pharaon/issuer-2026.pub", "/etc/pharaon/issuer-2027.pub"},
		Validator: "/dev/serial/by-id/jcm", Printer: "/etc/pharaon/printer0",
		Venue:     "Tabac de la Gare, 12 place Bellecour, 69002 Lyon",
		MaxCredit: 150 * game.Euro, PayoutLimit: 1500 * game.Euro, VoucherValidity: 90 * 24 * time.Hour,
		BlockDir: "/media/pharaon",
	}, c)
}

func TestParseConfigCashAmounts(t *testing.T) {
	for in, want := range map[string]game.Money{"200": 200 * game.Euro, "37,50": 3750, "37.50": 3750, "1 500 €": 1500 * game.Euro} {
		var c Config
		require.NoError(t, ParseConfigFile(strings.NewReader("max-credit = "+in+"\n"), "", &c), in)
		assert.Equal(t, want, c.MaxCredit, in)
	}
}

// The backdrop key: auto (the screens' own limit by size), full at any
// size, or plain.
func TestConfigBackdrop(t *testing.T) {
	for in, want := range map[string]ui.Options{
		"auto":  {},
		"full":  {FullBackdropMaxPixels: -1},
		"plain": {PlainPlayfield: true},
	} {
		var c Config
		require.NoError(t, ParseConfigFile(strings.NewReader("backdrop = "+in+"\n"), "", &c), in)
		assert.Equal(t, in, c.Backdrop)
		var opt ui.Options
		backdropOptions(c.Backdrop, &opt)
		assert.Equal(t, want.FullBackdropMaxPixels, opt.FullBackdropMaxPixels, in)
		assert.Equal(t, want.PlainPlayfield, opt.PlainPlayfield, in)
	}
	var opt ui.Options
	backdropOptions("", &opt)
	assert.Zero(t, opt.FullBackdropMaxPixels, "no key: the screens' default")
	assert.False(t, opt.PlainPlayfield)
}

// The voice key: on by default (« Voix » on the home screen), off for no
// voice at all; anything else is refused.
func TestConfigVoice(t *testing.T) {
	logger := log.New(io.Discard, "", 0)
	var c Config
	v := playerVoice(c, logger)
	require.NotNil(t, v, "no key: the voice is there for the player who wants it")
	closeVoice(v)
	v.Say(speech.Utterance{Text: "après l’arrêt"}) // stopped: nothing more is said, nothing blocks
	closeVoice(nil)                                // no voice: nothing to stop

	require.NoError(t, ParseConfigFile(strings.NewReader("voice = off\n"), "", &c))
	assert.Equal(t, "off", c.Voice)
	assert.Nil(t, playerVoice(c, logger), "off: no voice, so no button")

	c = Config{}
	require.NoError(t, ParseConfigFile(strings.NewReader("voice = on\n"), "", &c))
	v = playerVoice(c, logger)
	require.NotNil(t, v)
	v.(*speech.Speaker).Close()

	err := ParseConfigFile(strings.NewReader("voice = loud\n"), "", &Config{})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "voice")
}

// The validator key names the unit's family; its device has its own key,
// and a device path under the old key still starts a kiosk configured
// before the families.
func TestConfigValidatorFamily(t *testing.T) {
	var c Config
	require.NoError(t, ParseConfigFile(strings.NewReader(
		"validator = id003\nvalidator-device = /dev/pharaon-validator\nessp-key = 0123456701234567\nessp-address = 0\nessp-encryption = off\n"), "", &c))
	assert.Equal(t, validator.FamilyID003, c.ValidatorFamily)
	assert.Equal(t, "/dev/pharaon-validator", c.Validator)
	assert.Equal(t, validator.ESSPSettings{FixedKey: 0x0123456701234567, Plain: true}, c.ESSP)

	c = Config{}
	require.NoError(t, ParseConfigFile(strings.NewReader("validator = /dev/serial/by-id/usb-JCM\n"), "", &c))
	assert.Equal(t, "/dev/serial/by-id/usb-JCM", c.Validator, "the key's spelling before the families")
	assert.Empty(t, c.ValidatorFamily, "the default family")

	err := ParseConfigFile(strings.NewReader("validator = foo\n"), "", &Config{})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `validator = "foo"`)
	assert.Contains(t, err.Error(), "id003")
	assert.Contains(t, err.Error(), "essp")
	assert.Contains(t, err.Error(), "validator-device")

	err = ParseConfigFile(strings.NewReader("validator = essp\n"), "", &c)
	if drivers.Has(validator.FamilyESSP) {
		require.NoError(t, err)
		assert.Equal(t, validator.FamilyESSP, c.ValidatorFamily)
	} else {
		require.ErrorIs(t, err, ErrConfig)
		assert.Contains(t, err.Error(), "no eSSP driver")
	}

	var stderr bytes.Buffer
	_, err = loadConfig([]string{"-validator", "foo"}, mapEnv{"HOME": "/home/k"}, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `validator = "foo"`)
}

func TestParseConfigFileRefusesAndChangesNothing(t *testing.T) {
	cases := map[string]string{
		"unknown key":     "db = a.db\ncolour = blue\n",
		"no equals":       "db a.db\n",
		"duplicate":       "lang = fr\nlang = en\n",
		"bad bool":        "fullscreen = maybe\n",
		"bad lang":        "lang = de\n",
		"empty path":      "db =\n",
		"control char":    "kiosk-id = a\x01b\n",
		"not utf-8":       "kiosk-id = caf\xe9\n",
		"too large":       "# " + strings.Repeat("x", maxConfigSize) + "\n",
		"no key file":     "keys = , ,\n",
		"bad line last":   "db = a.db\ndev = true\nfps = yes please\n",
		"empty key name":  " = 1\n",
		"equals in value": "fps = true=false\n",
		"venue control":   "venue = Tabac\x1b[2J\n",
		"zero credit":     "max-credit = 0\n",
		"negative limit":  "payout-limit = -10\n",
		"not an amount":   "max-credit = lots\n",
		"three decimals":  "payout-limit = 1,505\n",
		"validity zero":   "voucher-validity = 0\n",
		"validity hours":  "voucher-validity = 24h\n",
		"validity huge":   "voucher-validity = 100000\n",
		"credit huge":     "max-credit = 100 000\n",
		"limit huge":      "payout-limit = 1 000 000\n",
		"credit overflow": "max-credit = 99999999999999999999\n",
		"bad backdrop":    "backdrop = stars\n",
		"bad validator":   "validator = foo\n",
		"validator empty": "validator =\n",
		"essp key short":  "essp-key = 01234567\n",
		"essp key text":   "essp-key = the cabinet key\n",
		"essp address":    "essp-address = 200\n",
		"essp plain word": "essp-encryption = optional\n",
		"essp encryption": "essp-encryption = maybe\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			before := Config{DB: "keep.db", Fullscreen: true}
			c := before
			err := ParseConfigFile(strings.NewReader(text), "/etc", &c)
			require.ErrorIs(t, err, ErrConfig)
			assert.Equal(t, before, c, "a refused file changes nothing")
		})
	}
}

func TestLoadConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.conf")
	require.NoError(t, os.WriteFile(path, []byte("db = file.db\nlang = en\nfullscreen = false\nkiosk-id = from-file\n"), 0o600))
	var stderr bytes.Buffer

	c, err := loadConfig([]string{"-config", path, "-lang", "fr", "-kiosk-id", "from-flag"}, mapEnv{}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "file.db"), c.DB, "a relative path in the file is relative to the file")
	assert.Equal(t, ui.French, c.Lang, "a flag overrides the file")
	assert.Equal(t, "from-flag", c.KioskID)
	assert.False(t, c.Fullscreen, "what the flags do not say, the file does")
	assert.Equal(t, filepath.Join(dir, installedMarker), c.Installed, "the first-install marker is beside the configuration")
	assert.False(t, c.FirstInstall)

	c, err = loadConfig([]string{"-fullscreen=true", "-config", path}, mapEnv{}, &stderr)
	require.NoError(t, err)
	assert.True(t, c.Fullscreen, "the flags win whatever their order")
}

func TestLoadConfigDefaults(t *testing.T) {
	var stderr bytes.Buffer
	c, err := loadConfig(nil, mapEnv{"HOME": "/home/k"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, Config{DB: productionDB, Fullscreen: true, Lang: ui.French, Installed: "/var/lib/pharaon/pharaon.installed"}, c,
		"production defaults (without a configuration file, the marker is beside the database)")

	c, err = loadConfig([]string{"-dev"}, mapEnv{"HOME": "/home/k"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "/home/k/.local/share/pharaon/pharaon.db", c.DB)
	assert.True(t, c.Dev)
	assert.Equal(t, devKioskID, c.KioskID, "a development run prints its vouchers as PH-DEV")
	assert.Equal(t, devVenue, c.Venue)

	c, err = loadConfig([]string{"-dev", "-kiosk-id", "PH-7", "-venue", "Bar"}, mapEnv{"HOME": "/home/k"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "PH-7", c.KioskID)
	assert.Equal(t, "Bar", c.Venue)

	c, err = loadConfig([]string{"-dev"}, mapEnv{"HOME": "/home/k", "XDG_DATA_HOME": "/data"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "/data/pharaon/pharaon.db", c.DB)

	c, err = loadConfig([]string{"-dev"}, mapEnv{"HOME": "/home/k", "XDG_DATA_HOME": "relative"}, &stderr)
	require.NoError(t, err)
	assert.Equal(t, "/home/k/.local/share/pharaon/pharaon.db", c.DB, "a relative XDG_DATA_HOME is ignored, as the spec says")

	_, err = loadConfig([]string{"-dev"}, mapEnv{}, &stderr)
	assert.Equal(t, exitUsage, exitCode(err), "no HOME and no -db")
}

func TestLoadConfigMisuse(t *testing.T) {
	for _, args := range [][]string{
		{"-lang", "de"},
		{"-colour", "blue"},
		{"extra"},
		{"-fullscreen=perhaps"},
		{"-config", "/no/such/file.conf"},
		{"-max-credit", "0"},
		{"-voucher-validity", "forever"},
		{"-printer", "/dev/ttyUSB0"}, // a printer prints the kiosk's name: it needs one
		{"-max-credit", "5000"},
		{"-payout-limit", "50000"},
		{"-max-credit", "800", "-payout-limit", "500"}, // notes alone would make a voucher the shop cannot pay
	} {
		_, err := loadConfig(args, mapEnv{"HOME": "/h"}, &bytes.Buffer{})
		assert.Equal(t, exitUsage, exitCode(err), "%q: %v", args, err)
	}
	var stderr bytes.Buffer
	_, err := loadConfig([]string{"-h"}, mapEnv{}, &stderr)
	assert.True(t, errors.Is(err, flag.ErrHelp))
	assert.Empty(t, stderr.String(), "the caller prints its own usage (TestHelp)")
	err = run(t.Context(), []string{"-h"}, mapEnv{}, io.Discard, &stderr, time.Now())
	assert.Equal(t, exitOK, exitCode(err))
	assert.Contains(t, stderr.String(), "-dev")
}

func TestRunWithoutDisplay(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "sub", "pharaon.db")
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"-dev", "-db", db}, mapEnv{"HOME": dir}, &stdout, &stderr, time.Now())
	assert.Equal(t, exitUsage, exitCode(err))
	msg := stderr.String()
	assert.Contains(t, msg, "aucun écran")
	assert.Contains(t, msg, "no display")
	assert.Contains(t, msg, "xvfb-run -a make run")
	assert.Contains(t, msg, "xvfb-run -a -s \"-screen 0 1280x800x24\" bin/pharaon -dev")
	assert.NoDirExists(t, filepath.Dir(db), "nothing is created without a display")
}

func TestHasDisplay(t *testing.T) {
	assert.False(t, hasDisplay(mapEnv{}))
	assert.True(t, hasDisplay(mapEnv{"DISPLAY": ":0"}))
	assert.True(t, hasDisplay(mapEnv{"WAYLAND_DISPLAY": "wayland-0"}))
}

func TestFixLocale(t *testing.T) {
	cases := []struct {
		name string
		in   mapEnv
		lang ui.Lang
		want mapEnv
	}{
		{"nothing set", mapEnv{}, ui.French, mapEnv{"LANG": "fr_FR.UTF-8"}},
		{"C", mapEnv{"LANG": "C"}, ui.French, mapEnv{"LANG": "fr_FR.UTF-8"}},
		{"C.UTF-8", mapEnv{"LANG": "C.UTF-8"}, ui.English, mapEnv{"LANG": "en_GB.UTF-8"}},
		{"POSIX everywhere", mapEnv{"LC_ALL": "POSIX", "LANG": "C"}, ui.French, mapEnv{"LC_ALL": "fr_FR.UTF-8", "LANG": "fr_FR.UTF-8"}},
		{"a language", mapEnv{"LANG": "de_DE.UTF-8"}, ui.French, mapEnv{"LANG": "de_DE.UTF-8"}},
		{"LC_ALL decides", mapEnv{"LC_ALL": "en_US.UTF-8", "LANG": "C"}, ui.French, mapEnv{"LC_ALL": "en_US.UTF-8", "LANG": "C"}},
		{"C messages", mapEnv{"LC_MESSAGES": "C.utf8", "LANG": "es_ES.UTF-8"}, ui.French, mapEnv{"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fixLocale(c.in, c.lang)
			assert.Equal(t, c.want, c.in)
		})
	}
}

// The anchor defaults to beside the database and the trust root to the
// first-install marker's directory (off the data partition); the file or
// the flags put them elsewhere (a relative path is the configuration's
// directory's), and the trust root's kind is one of three words.
func TestConfigAnchor(t *testing.T) {
	c := Config{DB: "/var/lib/pharaon/pharaon.db", Installed: "/var/lib/pharaon-install/pharaon.installed", Trust: "files"}
	a, err := anchorConfig(c)
	require.NoError(t, err)
	assert.Equal(t, "/var/lib/pharaon/pharaon.anchor", a.Path)
	assert.Equal(t, "/var/lib/pharaon-install", a.TrustDir)
	assert.Nil(t, a.Trust, "files: the store opens them")
	require.NoError(t, ParseConfigFile(strings.NewReader("trust-dir = trust\nanchor = /srv/anchor\ntrust = tpm\ntpm = /dev/tpm-x\n"), "/etc/pharaon", &c))
	assert.Equal(t, "/etc/pharaon/trust", c.TrustDir)
	assert.Equal(t, "/srv/anchor", c.Anchor)
	assert.Equal(t, "tpm", c.Trust)
	_, err = anchorConfig(c)
	require.ErrorIs(t, err, store.ErrTrust, "a TPM asked for and absent is refused, never files instead")
	err = ParseConfigFile(strings.NewReader("trust = maybe\n"), "/etc/pharaon", &c)
	require.ErrorIs(t, err, ErrConfig)
	err = ParseConfigFile(strings.NewReader("anchor-key = /etc/pharaon/anchor.key\n"), "/etc/pharaon", &c)
	require.ErrorIs(t, err, ErrConfig, "the secret is the trust root's: no key of the configuration names it")
}

// The technician's language setting wins over the configuration's; an
// unreadable one leaves the configuration's, said in the log.
func TestStartLang(t *testing.T) {
	var log strings.Builder
	logger := newLogger(&log, osEnv{})
	assert.Equal(t, ui.French, startLang(ui.French, "", logger))
	assert.Equal(t, ui.English, startLang(ui.French, "en", logger))
	assert.Equal(t, ui.French, startLang(ui.English, "fr", logger))
	assert.Empty(t, log.String())
	assert.Equal(t, ui.English, startLang(ui.English, "de", logger))
	assert.Contains(t, log.String(), "language setting", "said in the log")
}

// The configuration's kiosk-id keeps the kiosk id's one rule
// (kiosk.CheckKioskID): an id the fleet, the setup or the settings view
// would refuse stops the start with a usage error.
func TestLoadConfigRefusesABadKioskID(t *testing.T) {
	for _, id := range []string{"PH.42", "PH 42", "PH-0042-" + strings.Repeat("x", 30), "BORNE-É"} {
		var stderr bytes.Buffer
		_, err := loadConfig([]string{"-kiosk-id", id}, mapEnv{"HOME": "/home/k"}, &stderr)
		var usage *usageError
		require.ErrorAs(t, err, &usage, "%q", id)
		assert.Contains(t, err.Error(), "kiosk-id", "%q", id)
	}
	c, err := loadConfig([]string{"-kiosk-id", "PH_0042"}, mapEnv{"HOME": "/home/k"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, "PH_0042", c.KioskID)
}

// writeSite writes the kiosk's own configuration (own) naming the site file
// site/pharaon.conf, and that file (text), in a new directory; it returns
// the own file's path.
func writeSite(t *testing.T, own, text string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.conf")
	require.NoError(t, os.WriteFile(path, []byte(own+"site = site/pharaon.conf\n"), 0o600))
	if text != "" {
		require.NoError(t, os.Mkdir(filepath.Join(dir, "site"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "site", "pharaon.conf"), []byte(text), 0o600))
	}
	return path
}

func TestSiteFileAsALaptopWritesIt(t *testing.T) {
	// Windows' Notepad: a byte-order mark, CRLF line ends.
	text := "\uFEFF# Borne du Tabac de la Gare\r\nkiosk-id = PH-0042\r\nvenue = Tabac de la Gare, Lyon\r\n" +
		"keys = keys/issuer-2026.pub\r\nvalidator = /dev/pharaon-validator\r\nprinter = /dev/pharaon-printer\r\n" +
		"nats-ca = fleet/ca.pem\r\nnats-creds = fleet/kiosk.creds\r\n"
	path := writeSite(t, "db = k.db\nmax-credit = 100\n", text)
	site := filepath.Join(filepath.Dir(path), "site")

	c, err := loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "PH-0042", c.KioskID)
	assert.Equal(t, "Tabac de la Gare, Lyon", c.Venue, "no carriage return kept")
	assert.Equal(t, []string{filepath.Join(site, "keys", "issuer-2026.pub")}, c.Keys, "relative to the site file")
	assert.Equal(t, "/dev/pharaon-validator", c.Validator)
	assert.Equal(t, "/dev/pharaon-printer", c.Printer)
	assert.Equal(t, filepath.Join(site, "fleet", "ca.pem"), c.Fleet.CAFile)
	assert.Equal(t, filepath.Join(site, "fleet", "kiosk.creds"), c.Fleet.CredsFile)
	assert.Equal(t, filepath.Join(filepath.Dir(path), "k.db"), c.DB, "the kiosk's own configuration still counts")
	assert.Equal(t, 100*game.Euro, c.MaxCredit)

	c, err = loadConfig([]string{"-config", path, "-kiosk-id", "PH-7"}, mapEnv{}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "PH-7", c.KioskID, "a flag overrides the site file too")
}

func TestNoSiteFileIsTheOwnConfigurationAlone(t *testing.T) {
	path := writeSite(t, "db = k.db\nkiosk-id = PH-1\n", "")
	c, err := loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
	require.NoError(t, err, "a kiosk flashed and not configured yet has no site file")
	assert.Equal(t, "PH-1", c.KioskID)
	assert.Equal(t, filepath.Join(filepath.Dir(path), "site", "pharaon.conf"), c.Site)
}

func TestSiteFileRefusals(t *testing.T) {
	for name, tc := range map[string]struct{ own, site, says string }{
		"the database":     {"", "db = /tmp/other.db\n", "db is not a key of the site file"},
		"the trust root":   {"", "trust = files\n", "trust is not a key of the site file"},
		"the trust dir":    {"", "trust-dir = /tmp\n", "trust-dir is not a key of the site file"},
		"the update keys":  {"", "update-keys = keys\n", "update-keys is not a key of the site file"},
		"the limits":       {"", "payout-limit = 15 000\n", "payout-limit is not a key of the site file"},
		"development":      {"", "dev = true\n", "dev is not a key of the site file"},
		"a manifest":       {"", "manifest = m\n", "manifest is not a key of the site file"},
		"another site":     {"", "site = other.conf\n", "site is not a key of the site file"},
		"the first start":  {"", "first-install = true\n", "unknown key \"first-install\""},
		"set in both":      {"kiosk-id = PH-1\n", "kiosk-id = PH-2\n", "kiosk-id is set in"},
		"UTF-16":           {"", "\xff\xfek\x00i\x00", "UTF-16"},
		"a bad line":       {"", "kiosk-id = PH-2\r\nprinter\r\n", "line 2"},
		"a bad kiosk id":   {"", "kiosk-id = PH 2\n", "kiosk-id"},
		"a bad fleet url":  {"", "nats-url = http://x\n", "nats-url"},
		"the language":     {"", "lang = en\n", "lang is not a key of the site file"},
		"twice in the one": {"", "venue = A\nvenue = B\n", "already set on line 1"},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeSite(t, tc.own, tc.site)
			_, err := loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
			require.Error(t, err)
			assert.Equal(t, exitUsage, exitCode(err))
			assert.Contains(t, err.Error(), tc.says)
			if tc.says != "kiosk-id" {
				assert.Contains(t, err.Error(), filepath.Join("site", "pharaon.conf"), "the message names the site file")
			}
		})
	}
}

func TestSiteFileUnreadable(t *testing.T) {
	path := writeSite(t, "", "")
	site := filepath.Join(filepath.Dir(path), "site", "pharaon.conf")
	require.NoError(t, os.MkdirAll(site, 0o700)) // a directory where the file should be
	_, err := loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
	require.Error(t, err)
	assert.Equal(t, exitUsage, exitCode(err))
	assert.Contains(t, err.Error(), site)
}
