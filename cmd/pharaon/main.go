// Command pharaon is the kiosk: it opens the store, starts the appliance core
// (package kiosk) and shows the player's screens (package kiosk/ui) fullscreen.
//
// It only parses the flags and the configuration file, checks it has a
// display, and wires the parts together; it stops them cleanly on SIGINT or
// SIGTERM. With -dev it provisions a development kiosk (a demo issuer key and
// demo blocks for the three stakes), runs both cash devices as simulators on
// pseudo-terminals (kiosk/devsim) for the kiosk's real drivers, and shows the
// panel that inserts notes and causes device faults; nothing of that exists
// without -dev, which a production configuration never sets.
//
// A start-up failure (the database cannot be opened or is missing, a key
// file cannot be read) prints its reason on stderr and shows the
// out-of-service screen with it until the kiosk is stopped, then exits with
// the failure's status: a service manager does not restart it in a silent
// loop. Exit status: 0 after a clean stop, 1 on another failure, 2 on a
// misuse or when there is no display, 3 when the database cannot be opened,
// 4 when there is no database and the kiosk is not told it is a first
// install (-first-install), 5 when an issuer key file cannot be read. See
// docs/kiosk-config.md.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"pharaon/cmd/pharaon/internal/early"
	"pharaon/kiosk"
)

func main() {
	started := time.Now()
	// The locale as the process was given it, now that Fyne's
	// initialisation has read its own (package early).
	early.RestoreLocale()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], osEnv{}, os.Stdout, os.Stderr, started)
	stop()
	os.Exit(exitCode(err))
}

// Exit codes (docs/kiosk-config.md).
const (
	exitOK         = 0
	exitFailure    = 1
	exitUsage      = 2
	exitStore      = 3 // the database cannot be opened, read or written
	exitNoDatabase = 4 // no database, and not a first install
	exitKeys       = 5 // an issuer key file cannot be read
)

// usageError is a misuse of the command line, or no display (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func exitCode(err error) int {
	var u *usageError
	var se *startError
	var es *exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &es):
		return es.code
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &se):
		return se.status
	}
	return exitFailure
}

// env is the process environment, behind an interface so the tests give
// their own.
type env interface {
	Getenv(string) string
	Setenv(string, string) error
}

type osEnv struct{}

func (osEnv) Getenv(k string) string   { return os.Getenv(k) }
func (osEnv) Setenv(k, v string) error { return os.Setenv(k, v) }

// run is the whole command: args without the program name.
func run(ctx context.Context, args []string, e env, stdout, stderr io.Writer, started time.Time) error {
	if len(args) > 0 {
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd.run(ctx, args[1:], e, stdout, stderr)
		}
	}
	cfg, err := loadConfig(args, e, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			kioskUsage(stderr)
		} else {
			fmt.Fprintf(stderr, "pharaon: %v\n", err)
		}
		return err
	}
	if !hasDisplay(e) {
		fmt.Fprint(stderr, noDisplayMessage)
		return &usageError{"no display"}
	}
	fixLocale(e, cfg.Lang)
	setGCPercent(e)
	startMemLog(e, stderr)
	// A failure to start is said on stderr by runKiosk (the journal is all
	// a technician reads), then shown on the screen.
	return runKiosk(ctx, cfg, stdout, stderr, started)
}

// readConfigFiles reads the configuration file path into c, then the site
// file it names (site), if there is one: a kiosk flashed from the image
// and not configured yet has none.
func readConfigFiles(path string, c *Config) error {
	f, err := os.Open(path)
	if err != nil {
		return &usageError{fmt.Sprintf("config: %v", err)}
	}
	set, err := parseConfig(f, filepath.Dir(path), c, noManifest)
	f.Close()
	if err != nil {
		return &usageError{fmt.Sprintf("%s: %v", path, err)}
	}
	if c.Site == "" {
		return nil
	}
	site, err := os.Open(c.Site)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &usageError{fmt.Sprintf("site file: %v", err)}
	}
	defer site.Close()
	if err := ParseSiteFile(site, filepath.Dir(c.Site), c, path, set); err != nil {
		return &usageError{fmt.Sprintf("%s: %v", c.Site, err)}
	}
	return nil
}

// loadConfig reads the configuration: the defaults, then the configuration
// file (-config), then the flags given on the command line. On -h it returns
// flag.ErrHelp and prints nothing: the caller prints its own usage.
func loadConfig(args []string, e env, stderr io.Writer) (Config, error) {
	// First pass: find -config (and refuse bad flags before reading files).
	var probe Config
	var configPath string
	fs := flag.NewFlagSet("pharaon", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindFlags(fs, &probe, &configPath)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, err
		}
		return Config{}, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return Config{}, &usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}

	cfg := Config{Fullscreen: true}
	if configPath != "" {
		if err := readConfigFiles(configPath, &cfg); err != nil {
			return Config{}, err
		}
	}
	// Second pass: the flags override the file.
	fs = flag.NewFlagSet("pharaon", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindFlags(fs, &cfg, &configPath)
	if err := fs.Parse(args); err != nil {
		return Config{}, &usageError{err.Error()}
	}
	if cfg.DB == "" {
		db, err := defaultDB(e, cfg.Dev)
		if err != nil {
			return Config{}, err
		}
		cfg.DB = db
	}
	// Notes alone must never make a voucher the shop cannot pay.
	maxCredit, payout := cmp.Or(cfg.MaxCredit, kiosk.DefaultMaxCredit), cmp.Or(cfg.PayoutLimit, kiosk.DefaultPayoutLimit)
	if maxCredit > payout {
		return Config{}, &usageError{fmt.Sprintf("max-credit %s is above payout-limit %s: a voucher of notes alone could not be paid at the counter",
			maxCredit.Plain(), payout.Plain())}
	}
	if cfg.Installed == "" {
		cfg.Installed = filepath.Join(filepath.Dir(cfg.DB), installedMarker)
		if configPath != "" {
			cfg.Installed = filepath.Join(filepath.Dir(configPath), installedMarker)
		}
	}
	// A voucher names the kiosk that printed it: a kiosk with a printer
	// must have a name. A development run is named for what it is.
	if cfg.KioskID == "" {
		switch {
		case cfg.Dev:
			cfg.KioskID = devKioskID
			if cfg.Venue == "" {
				cfg.Venue = devVenue
			}
		case cfg.Printer != "":
			return Config{}, &usageError{"kiosk-id is required with a printer: it identifies the kiosk on its vouchers"}
		}
	}
	// The id names the kiosk on its vouchers and in the fleet: the one rule
	// (kiosk.CheckKioskID) the setup and the settings view keep too.
	if cfg.KioskID != "" {
		if err := kiosk.CheckKioskID(cfg.KioskID); err != nil {
			return Config{}, &usageError{fmt.Sprintf("kiosk-id: %v", err)}
		}
	}
	if cfg.DevSeed != 0 && !cfg.Dev {
		return Config{}, &usageError{"dev-seed is for a development run: give -dev with it"}
	}
	// In a fleet the kiosk is known by its id.
	cfg.Fleet.KioskID = cfg.KioskID
	if cfg.FleetVoucherKey != "" {
		key, err := os.ReadFile(cfg.FleetVoucherKey)
		if err != nil {
			return Config{}, &usageError{fmt.Sprintf("nats-voucher-key: %v", err)}
		}
		cfg.Fleet.VoucherKey = key
	}
	if err := cfg.Fleet.Check(); err != nil {
		return Config{}, &usageError{fmt.Sprintf("nats-url: %v", err)}
	}
	return cfg, nil
}

// The name and venue of a development run when its configuration gives none.
const (
	devKioskID = "PH-DEV"
	devVenue   = "Borne de développement"
)

// productionDB is where the kiosk keeps its database (DESIGN.md §4), on a
// partition that survives updates.
const productionDB = "/var/lib/pharaon/pharaon.db"

// defaultDB is the database of a development run, under the user's data
// directory ($XDG_DATA_HOME/pharaon, else ~/.local/share/pharaon), or the
// kiosk's.
func defaultDB(e env, dev bool) (string, error) {
	if !dev {
		return productionDB, nil
	}
	if d := e.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "pharaon", "pharaon.db"), nil
	}
	home := e.Getenv("HOME")
	if home == "" {
		return "", &usageError{"no HOME to put the development database in: give -db"}
	}
	return filepath.Join(home, ".local", "share", "pharaon", "pharaon.db"), nil
}
