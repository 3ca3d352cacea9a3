package validator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"pharaon/hw"
)

// DefaultAccept are the notes the kiosk takes unless configured otherwise: 5, 10, 20 and 50 €.
var DefaultAccept = []int64{500, 1000, 2000, 5000}

// Settings are a driver's settings as the kiosk's configuration gives them, whatever the family:
// the wiring (Opener) turns them into the family's own. Zero fields take the driver's defaults.
// They carry hw's clock and back-off, the hardware's shared vocabulary, and nothing of a family's
// package.
type Settings struct {
	Family Family  // FamilyID003 when empty
	Accept []int64 // the notes taken, in cents; DefaultAccept when nil

	PollInterval time.Duration // between two polls of the unit
	ReplyTimeout time.Duration // silence after which a command is sent again
	Retries      int           // attempts of a command before the line is declared lost
	Backoff      hw.Backoff    // re-opening a lost device
	Clock        hw.Clock

	ESSP ESSPSettings // an eSSP unit's own; ignored by the other families
}

// ESSPSettings are what an eSSP unit and its host must agree on.
type ESSPSettings struct {
	// FixedKey is the fixed half of the encryption key, set in the unit with its maker's tool; 0
	// takes the unit's factory value. A secret of the cabinet: never logged nor shown.
	FixedKey uint64
	// Address is the unit's SSP address on the line (0, a bill validator's, by default).
	Address byte
	// Plain talks plain SSP, negotiating no key: the line then carries the credit reports in
	// clear, which a wire spliced into the cabinet could forge. For a bench, never a kiosk: the
	// zero value is encrypted (eSSP).
	Plain bool
}

// ParseFamily reads a family as the configuration spells it ("id003", "essp").
func ParseFamily(s string) (Family, error) {
	f := Family(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Families(), f) {
		return f, nil
	}
	names := make([]string, 0, len(Families()))
	for _, f := range Families() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("bill validator family %q: one of %s", s, strings.Join(names, ", "))
}

// Opener builds the driver of the unit at a path, and probes one for the boot self-test, for the
// family its settings name. The kiosk's core is given one by the wiring (hw/validator/drivers):
// the one place that knows the families, so that the core never learns which it drives.
type Opener interface {
	// Open builds a driver (not started) that opens path itself, again after a loss, calls w
	// for the money and reports every event to onEvent.
	Open(path string, w Wallet, s Settings, onEvent func(Event)) (Driver, error)
	// Probe opens path, asks the unit its status and what it is, changing nothing in it, and
	// closes it, within ctx.
	Probe(ctx context.Context, path string, s Settings) (Identity, Status, error)
}
