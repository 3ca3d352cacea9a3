package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/ui"
)

// Config is how the kiosk runs: the flags and the configuration file say
// it (docs/kiosk-config.md).
type Config struct {
	DB         string  // the SQLite database
	KioskID    string  // the kiosk's name in the fleet and on its vouchers
	Venue      string  // where the kiosk stands, printed on its vouchers
	Lang       ui.Lang // the language the screens start in
	Fullscreen bool    // fill the screen (the kiosk) or open a window (development)
	// Dev: a development run: demo blocks, both cash devices simulated
	// on pseudo-terminals and the panel that drives them.
	Dev bool
	FPS bool // log frames per second and time per frame while a game runs
	// Backdrop is how much of the playfield's backdrop the game screen
	// draws: "auto" (the whole of it on a field up to
	// ui.DefaultFullBackdropMaxPixels, the frieze and base band alone on a
	// larger one), "full" (at any size: a kiosk with a GPU) or "plain"
	// (never the whole).
	Backdrop string
	// Voice is "on" (the default: « Voix » on the home screen speaks the
	// screens with espeak-ng for the player who turns it on) or "off" (no
	// button, no speech).
	Voice string
	// VoiceWAV (the flag -voice-wav only) writes each utterance to this
	// file instead of the audio output: a machine without sound that
	// measures what speaking costs (packaging/voice-frames.sh).
	VoiceWAV string
	// DevSeed (-dev only): the demo blocks of a new development database
	// are drawn from it, so a scripted session knows its games' outcomes
	// (devseed.go); 0 draws them at random.
	DevSeed uint64
	// FirstInstall: there is no database yet and the kiosk may create it
	// (the flag -first-install only: a configuration file that said it
	// forever would let a lost database be replaced silently).
	FirstInstall bool
	// Installed is the marker a production kiosk writes after its first
	// successful start (installed-marker; by default beside its
	// configuration file, else beside its database): a kiosk that finds it
	// and no database has lost its data. It must not live on the data
	// partition, which it vouches for.
	Installed string
	// Anchor is the anchor file of the database's chain heads
	// (store.AnchorConfig; by default pharaon.anchor beside the database).
	Anchor string
	// Trust is the trust root the anchor rests on (DESIGN.md §4): "tpm"
	// (the secret sealed to the TPM, the counter in it), "files" (both in
	// TrustDir) or "auto" (default: the TPM when TPM exists). TrustDir is
	// off the data partition: by default the first-install marker's
	// directory. TPM is the TPM's device, or an emulator's socket
	// (default /dev/tpmrm0).
	Trust, TrustDir, TPM string
	Keys                 []string
	// The cash devices' stable paths (kiosk.CashConfig); none: no cash-in
	// or no cash-out, shown as such (with -dev: the simulators).
	Validator string // the bill validator's serial device
	// ValidatorFamily is the bill validator's protocol family (validator
	// = id003 | essp; default id003), ESSP an eSSP unit's settings (the
	// kiosk's own configuration only: its key is the cabinet's secret).
	ValidatorFamily validator.Family
	ESSP            validator.ESSPSettings
	Printer         string // the voucher printer's serial device (ESC/POS)
	// BlockDir is where the maintenance screen's blocks view looks for
	// block files: a USB stick is mounted under it (empty: /media,
	// maint.BlockDir).
	BlockDir string
	// Manifest is a signed manifest the binary's self-test checks it
	// against when the package's own (/usr/share/pharaon/MANIFEST.sha256)
	// is not installed: the -manifest flag of a development run or a test,
	// never the configuration file, which cannot turn the check off or
	// point it elsewhere (softwareCheck). UpdateKeys is the directory of
	// the update keys trusted to sign it (default /etc/pharaon/update-keys).
	Manifest, UpdateKeys string
	// The money flow's limits (kiosk.CashConfig; 0: the kiosk's
	// defaults, and the store's settings, which the maintenance screen
	// changes, override them).
	MaxCredit       game.Money    // the most credit notes can build
	PayoutLimit     game.Money    // the largest voucher paid at the shop's counter
	VoucherValidity time.Duration // how long a voucher is payable (whole days)
	// Fleet: the centre's NATS JetStream (kiosk/fleet). No URL: the kiosk
	// runs alone, the default. Its KioskID is the kiosk's; its voucher key
	// is read from FleetVoucherKey (nats-voucher-key).
	Fleet           fleet.Config
	FleetVoucherKey string
	// Site is the site file (site): the part of the configuration a
	// technician writes for one kiosk on the image's FAT partition, which a
	// laptop edits (siteKeys). Its relative paths are relative to it. No
	// file there is no site file: the kiosk's own configuration alone.
	Site string
}

// ErrConfig is a configuration file or a flag that cannot be used.
var ErrConfig = errors.New("bad configuration")

// maxConfigSize bounds the configuration file: it is a few lines.
const maxConfigSize = 64 << 10

// configKeys are the keys of the configuration file, which are the long
// names of the flags.
var configKeys = []string{"db", "kiosk-id", "venue", "lang", "fullscreen", "dev", "dev-seed", "fps", "backdrop", "voice", "keys", "validator", "validator-device", "printer",
	"essp-key", "essp-address", "essp-encryption", "max-credit", "payout-limit", "voucher-validity", "installed-marker", "trust", "trust-dir", "tpm", "anchor", "block-dir",
	"update-keys", "nats-url", "nats-creds", "nats-ca", "nats-voucher-key", "site"}

// siteKeys are the keys a site file may set: what makes one kiosk of the
// fleet this one (its name and venue, its cash devices, its issuers'
// keys, its fleet credentials). Never the database, the
// trust root, the update keys or the limits on money: those stay in the
// kiosk's own configuration, on the root file system.
var siteKeys = []string{"kiosk-id", "venue", "keys", "validator", "validator-device", "printer",
	"nats-url", "nats-creds", "nats-ca", "nats-voucher-key"}

// retiredKeys are keys the kiosk no longer takes, and what replaced them:
// a configuration that still has one is refused, saying so.
var retiredKeys = map[string]string{
	"anchor-key":     "the anchor's secret is the trust root's, sealed to the TPM or kept in trust-dir (trust, trust-dir)",
	"nats-user":      "the kiosk connects with its credentials file (nats-creds, from pharaon-central kiosk add), no user and password",
	"nats-password":  "the kiosk connects with its credentials file (nats-creds, from pharaon-central kiosk add), no user and password",
	"nats-nkey-seed": "the kiosk connects with its credentials file (nats-creds, from pharaon-central kiosk add), which holds its seed",
	"nats-groups":    "a kiosk's groups are the centre's (pharaon-central kiosk add -groups)",
}

// maxValidityDays bounds a voucher's validity: ten years is a mistake.
const maxValidityDays = 3660

// ParseConfigFile reads a configuration file into c: one "key = value" a
// line, "#" starting a comment line, blank lines ignored. Keys are those of
// the flags (configKeys); "keys" is a comma-separated list of issuer public
// key files, relative to the file's directory dir when not absolute. A
// key given twice, an unknown key or a bad value is an error naming the
// line, and c is left as it was.
func ParseConfigFile(r io.Reader, dir string, c *Config) error {
	_, err := parseConfig(r, dir, c, noManifest)
	return err
}

// noManifest refuses the key manifest: the self-test does not depend on
// the configuration (softwareCheck), so no line of it may name a manifest.
func noManifest(key string) error {
	if key == "manifest" {
		return fmt.Errorf("manifest is not a key of the configuration: the binary's self-test runs whenever the package's signed manifest is installed: %w", ErrConfig)
	}
	return nil
}

// ParseSiteFile reads a site file into c: the format of the configuration
// file, written on a laptop as likely as not (a UTF-8 byte-order mark and
// CRLF line ends are taken), with siteKeys alone. A key the kiosk's own
// configuration already set (set, from parseConfig: the key and its line
// in the file named own) is refused rather than one file silently winning.
// On an error c is left as it was.
func ParseSiteFile(r io.Reader, dir string, c *Config, own string, set map[string]int) error {
	_, err := parseConfig(r, dir, c, func(key string) error {
		if !slices.Contains(siteKeys, key) {
			if !slices.Contains(configKeys, key) && key != "manifest" {
				return fmt.Errorf("unknown key %q (a site file sets %s): %w", key, strings.Join(siteKeys, ", "), ErrConfig)
			}
			return fmt.Errorf("%s is not a key of the site file, which sets %s; it belongs to the kiosk's own configuration (%s): %w",
				key, strings.Join(siteKeys, ", "), own, ErrConfig)
		}
		if n, ok := set[key]; ok {
			return fmt.Errorf("%s is set in %s too (line %d): set it in one of the two: %w", key, own, n, ErrConfig)
		}
		return nil
	})
	return err
}

// utf16BOMs are the byte-order marks of a file saved as UTF-16 (Windows'
// Notepad's "Unicode").
var utf16BOMs = [][]byte{{0xFF, 0xFE}, {0xFE, 0xFF}}

// parseConfig reads "key = value" lines into c, each key first passed to
// allow, and returns the keys set with their lines. On an error c is left
// as it was.
func parseConfig(r io.Reader, dir string, c *Config, allow func(key string) error) (map[string]int, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	if len(b) > maxConfigSize {
		return nil, fmt.Errorf("config larger than %d bytes: %w", maxConfigSize, ErrConfig)
	}
	for _, bom := range utf16BOMs {
		if bytes.HasPrefix(b, bom) {
			return nil, fmt.Errorf("config is UTF-16 text: save it as UTF-8: %w", ErrConfig)
		}
	}
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("config is not UTF-8 text: %w", ErrConfig)
	}
	next := *c
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxConfigSize)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("config line %d: %q is not key = value: %w", n, line, ErrConfig)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("config line %d: %s already set on line %d: %w", n, key, first, ErrConfig)
		}
		seen[key] = n
		if err := allow(key); err != nil {
			return nil, fmt.Errorf("config line %d: %w", n, err)
		}
		if err := next.set(key, value, dir); err != nil {
			return nil, fmt.Errorf("config line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	*c = next
	return seen, nil
}

// set sets one key from its text.
func (c *Config) set(key, value, dir string) error {
	boolean := func(dst *bool) error {
		v, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s = %q: true or false: %w", key, value, ErrConfig)
		}
		*dst = v
		return nil
	}
	// oneOf takes a value among words.
	oneOf := func(dst *string, words ...string) error {
		if slices.Contains(words, value) {
			*dst = value
			return nil
		}
		return fmt.Errorf("%s = %q: %s or %s: %w", key, value, strings.Join(words[:len(words)-1], ", "), words[len(words)-1], ErrConfig)
	}
	path := func(dst *string, v string) error {
		if v == "" {
			return fmt.Errorf("%s: empty path: %w", key, ErrConfig)
		}
		if dir != "" && !filepath.IsAbs(v) {
			v = filepath.Join(dir, v)
		}
		*dst = v
		return nil
	}
	switch key {
	case "db":
		return path(&c.DB, value)
	case "installed-marker":
		return path(&c.Installed, value)
	case "trust":
		return oneOf(&c.Trust, "auto", "tpm", "files")
	case "trust-dir":
		return path(&c.TrustDir, value)
	case "tpm":
		return path(&c.TPM, value)
	case "anchor":
		return path(&c.Anchor, value)
	case "block-dir":
		return path(&c.BlockDir, value)
	case "manifest":
		return path(&c.Manifest, value)
	case "update-keys":
		return path(&c.UpdateKeys, value)
	case "kiosk-id", "venue":
		// Printed on vouchers: one line of text.
		if strings.ContainsFunc(value, unicode.IsControl) {
			return fmt.Errorf("%s %q: control characters: %w", key, value, ErrConfig)
		}
		if key == "venue" {
			c.Venue = value
		} else {
			c.KioskID = value
		}
		return nil
	case "max-credit", "payout-limit":
		bound := kiosk.MaxCreditBound
		if key == "payout-limit" {
			bound = kiosk.PayoutLimitBound
		}
		m, err := game.ParseMoney(value)
		if err != nil || m <= 0 || m > bound {
			return fmt.Errorf("%s = %q: an amount in euros from 0,01 to %s (\"200\", \"1 500\", \"37,50\"): %w",
				key, value, bound.Plain(), ErrConfig)
		}
		if key == "max-credit" {
			c.MaxCredit = m
		} else {
			c.PayoutLimit = m
		}
		return nil
	case "voucher-validity":
		days, err := strconv.Atoi(value)
		if err != nil || days < 1 || days > maxValidityDays {
			return fmt.Errorf("voucher-validity = %q: whole days, 1 to %d: %w", value, maxValidityDays, ErrConfig)
		}
		c.VoucherValidity = time.Duration(days) * 24 * time.Hour
		return nil
	case "lang":
		l, err := ui.ParseLang(value)
		if err != nil {
			return fmt.Errorf("%w: %w", err, ErrConfig)
		}
		c.Lang = l
		return nil
	case "fullscreen":
		return boolean(&c.Fullscreen)
	case "dev":
		return boolean(&c.Dev)
	case "fps":
		return boolean(&c.FPS)
	case "backdrop":
		return oneOf(&c.Backdrop, "auto", "full", "plain")
	case "voice":
		return oneOf(&c.Voice, "on", "off")
	case "dev-seed":
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("dev-seed = %q: a whole number from 1: %w", value, ErrConfig)
		}
		c.DevSeed = n
		return nil
	case "keys":
		var keys []string
		for _, k := range strings.Split(value, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if err := path(&k, k); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			return fmt.Errorf("keys: no file: %w", ErrConfig)
		}
		c.Keys = keys
		return nil
	case "validator":
		if strings.Contains(value, "/") {
			// The device, as the key named it before the families: kept, so
			// that a kiosk's configuration from then still starts.
			return path(&c.Validator, value)
		}
		f, err := validator.ParseFamily(value)
		if err != nil {
			return fmt.Errorf("validator = %q: the bill validator's protocol, id003 (JCM) or essp (Innovative Technology); its device is validator-device: %w", value, ErrConfig)
		}
		if !drivers.Has(f) {
			return fmt.Errorf("validator = %q: this build has no %s driver: %w", value, f.Label(), ErrConfig)
		}
		c.ValidatorFamily = f
		return nil
	case "validator-device":
		return path(&c.Validator, value)
	case "essp-key":
		// 16 hexadecimal digits, as the maker's tool shows the fixed key.
		v := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(value)), "0x")
		k, err := strconv.ParseUint(v, 16, 64)
		if err != nil || len(v) != 16 {
			return fmt.Errorf("essp-key: the eSSP fixed key, 16 hexadecimal digits (0123456701234567): %w", ErrConfig)
		}
		c.ESSP.FixedKey = k
		return nil
	case "essp-address":
		n, err := strconv.ParseUint(value, 10, 8)
		if err != nil || n > 127 {
			return fmt.Errorf("essp-address = %q: the unit's SSP address, 0 to 127 (0: a bill validator's): %w", value, ErrConfig)
		}
		c.ESSP.Address = byte(n)
		return nil
	case "essp-encryption":
		var w string
		if err := oneOf(&w, "required", "off"); err != nil {
			return err
		}
		c.ESSP.Plain = w == "off"
		return nil
	case "printer":
		return path(&c.Printer, value)
	case "nats-url":
		for _, u := range strings.Split(value, ",") {
			scheme, host, ok := strings.Cut(strings.TrimSpace(u), "://")
			if !ok || (scheme != "nats" && scheme != "tls") || host == "" {
				return fmt.Errorf("nats-url = %q: nats://host:port or tls://host:port, comma-separated: %w", value, ErrConfig)
			}
		}
		c.Fleet.URL = value
		return nil
	case "nats-creds":
		return path(&c.Fleet.CredsFile, value)
	case "nats-ca":
		return path(&c.Fleet.CAFile, value)
	case "nats-voucher-key":
		return path(&c.FleetVoucherKey, value)
	case "site":
		return path(&c.Site, value)
	}
	if why, ok := retiredKeys[key]; ok {
		return fmt.Errorf("%s is no longer taken: %s: %w", key, why, ErrConfig)
	}
	return fmt.Errorf("unknown key %q (%s): %w", key, strings.Join(configKeys, ", "), ErrConfig)
}

// bindFlags declares the command line's flags on fs, writing into c when
// parsed. Only the flags given on the command line change c, so they
// override the configuration file read before them.
func bindFlags(fs *flag.FlagSet, c *Config, configPath *string) {
	fs.StringVar(configPath, "config", "", "configuration file (key = value lines; docs/kiosk-config.md)")
	fs.Func("db", "SQLite database `file`", func(s string) error { return c.set("db", s, "") })
	fs.Func("kiosk-id", "the kiosk's `name`, printed on its vouchers", func(s string) error { return c.set("kiosk-id", s, "") })
	fs.Func("venue", "where the kiosk stands (`shop, address`), printed on its vouchers", func(s string) error { return c.set("venue", s, "") })
	fs.Func("lang", "language of the screens at start: fr or en", func(s string) error { return c.set("lang", s, "") })
	fs.BoolFunc("fullscreen", "fill the screen (default true; -fullscreen=false opens a 1280×800 window)",
		func(s string) error { return c.set("fullscreen", s, "") })
	fs.BoolFunc("dev", "development: demo issuer key and blocks, simulated bill validator and printer with their panel (never in production)",
		func(s string) error { return c.set("dev", s, "") })
	fs.Func("installed-marker", "the first-install marker `file` (default: beside the configuration, else the database)",
		func(s string) error { return c.set("installed-marker", s, "") })
	fs.Func("trust", "the trust root: `auto` (the TPM if there is one), tpm or files",
		func(s string) error { return c.set("trust", s, "") })
	fs.Func("trust-dir", "the trust root's `directory`, off the data partition: the sealed secret, or the secret and counter without a TPM (default: the first-install marker's)",
		func(s string) error { return c.set("trust-dir", s, "") })
	fs.Func("tpm", "the TPM 2.0 `device` (default /dev/tpmrm0), or an emulator's socket",
		func(s string) error { return c.set("tpm", s, "") })
	fs.Func("anchor", "the anchor `file` of the database's chain heads (default: pharaon.anchor beside the database)",
		func(s string) error { return c.set("anchor", s, "") })
	fs.Func("block-dir", "the `directory` the maintenance screen looks for block files under, where a USB stick is mounted (default /media)",
		func(s string) error { return c.set("block-dir", s, "") })
	fs.Func("manifest", "a signed manifest `file` the binary is checked against at boot when the package's own is not installed (development, tests; not a key of the configuration file)",
		func(s string) error { return c.set("manifest", s, "") })
	fs.Func("update-keys", "the `directory` of the update keys (*.pub) trusted to sign the manifest (default /etc/pharaon/update-keys)",
		func(s string) error { return c.set("update-keys", s, "") })
	fs.BoolVar(&c.FirstInstall, "first-install", false,
		"a new kiosk: create its database (without it a production kiosk refuses to start with no database)")
	fs.Func("dev-seed", "development: draw the demo blocks of a new development database from this `number` (a scripted session's known games; with -dev only)",
		func(s string) error { return c.set("dev-seed", s, "") })
	fs.Func("backdrop", "the playfield's backdrop: `auto` (whole on a field up to 1 000 000 pixels, its frieze and base band alone on a larger one), full (a kiosk with a GPU) or plain",
		func(s string) error { return c.set("backdrop", s, "") })
	fs.Func("voice", "the player's voice: `on` (« Voix » on the home screen speaks the screens, with espeak-ng) or off",
		func(s string) error { return c.set("voice", s, "") })
	fs.StringVar(&c.VoiceWAV, "voice-wav", "", "write what the voice says to this WAV `file` instead of the audio output (measuring without sound; not a key of the configuration file)")
	fs.BoolFunc("fps", "log frames per second and time per frame during a game, and each screen and window shown", func(s string) error { return c.set("fps", s, "") })
	fs.Func("keys", "trusted issuer public key `files`, comma-separated", func(s string) error { return c.set("keys", s, "") })
	fs.Func("validator", "the bill validator's `protocol`: id003 (JCM, the default) or essp (Innovative Technology); with -dev, the simulated unit's",
		func(s string) error { return c.set("validator", s, "") })
	fs.Func("validator-device", "the bill validator's serial `device`", func(s string) error { return c.set("validator-device", s, "") })
	fs.Func("essp-address", "an eSSP bill validator's SSP `address` (default 0)", func(s string) error { return c.set("essp-address", s, "") })
	fs.Func("essp-encryption", "an eSSP unit's line: `required` (the key negotiated, every packet encrypted) or off (plain SSP, for a bench); the fixed key, essp-key, only in the configuration file",
		func(s string) error { return c.set("essp-encryption", s, "") })
	fs.Func("printer", "voucher printer (ESC/POS) serial `device`", func(s string) error { return c.set("printer", s, "") })
	fs.Func("max-credit", "the most credit bank notes can build, in `euros` (default 200)", func(s string) error { return c.set("max-credit", s, "") })
	fs.Func("payout-limit", "the largest voucher paid at the shop's counter, in `euros` (default 1500)",
		func(s string) error { return c.set("payout-limit", s, "") })
	fs.Func("voucher-validity", "how long a voucher is payable, in `days` (default 60)",
		func(s string) error { return c.set("voucher-validity", s, "") })
	fs.Func("nats-url", "the fleet's NATS JetStream `URL` (tls://host:4222); none: the kiosk runs alone",
		func(s string) error { return c.set("nats-url", s, "") })
	fs.Func("nats-creds", "the kiosk's NATS credentials `file` (kiosk.creds, from pharaon-central kiosk add)",
		func(s string) error { return c.set("nats-creds", s, "") })
	fs.Func("nats-ca", "the fleet's CA `file`, which the server's certificate is checked against (TLS)",
		func(s string) error { return c.set("nats-ca", s, "") })
	fs.Func("nats-voucher-key", "the kiosk's voucher key `file` (voucher.key, from pharaon-central kiosk add)",
		func(s string) error { return c.set("nats-voucher-key", s, "") })
}
