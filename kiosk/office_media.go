package kiosk

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"pharaon/kiosk/helper"
	"pharaon/store"
)

// The technician's USB stick (DESIGN.md §10): an update installed from a
// stick, the logs exported to one, a stick ejected. The kiosk's sandbox
// forbids all three, so the Office asks the root helper (kiosk/helper),
// which checks again what it is asked; the Office checks the role, that
// the kiosk is idle before an install, and writes each action and its
// outcome in the event log.

// MediaHelper is the root helper as the Office asks it (*helper.Client).
type MediaHelper interface {
	Sticks(ctx context.Context) ([]helper.Stick, error)
	Check(ctx context.Context, stick, file string) (helper.Update, error)
	Install(ctx context.Context, stick, file string, step func(string)) (helper.Update, error)
	Export(ctx context.Context, stick, kiosk string, files []helper.File, step func(string)) (helper.Exported, error)
	Eject(ctx context.Context, stick string) error
}

var _ MediaHelper = (*helper.Client)(nil)

// UseHelper gives the Office the root helper (none: every stick action
// fails with helper.ErrUnavailable, as in a development run).
func (o *Office) UseHelper(h MediaHelper) { o.helper = h }

func (o *Office) mediaHelper() (MediaHelper, error) {
	if o.helper == nil {
		return nil, helper.ErrUnavailable
	}
	return o.helper, nil
}

// Files of an export besides the helper's own (helper.JournalFile...).
const (
	ExportEvents     = "events.csv"
	ExportDiagnostic = "diagnostic.txt"
)

// exportMaxEvents caps the events exported, the newest kept.
const exportMaxEvents = 200_000

// Sticks are the USB sticks the helper sees and the update bundles on
// them.
func (o *Office) Sticks(ctx context.Context, s *Session) ([]helper.Stick, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the USB sticks"); err != nil {
		return nil, err
	}
	h, err := o.mediaHelper()
	if err != nil {
		return nil, err
	}
	return h.Sticks(ctx)
}

// CheckUpdate verifies an update bundle on a stick and says what it
// would install; nothing is installed.
func (o *Office) CheckUpdate(ctx context.Context, s *Session, stick, file string) (helper.Update, error) {
	if err := o.begin(ctx, s, RoleTechnician, "check an update"); err != nil {
		return helper.Update{}, err
	}
	h, err := o.mediaHelper()
	if err != nil {
		return helper.Update{}, err
	}
	u, err := h.Check(ctx, stick, file)
	if err != nil {
		o.audit(store.LevelWarning, "update_refused", "update %s on %s refused to %s: %v", file, stick, s.role, err)
	}
	return u, err
}

// InstallUpdate installs an update bundle from a stick, when the kiosk is
// idle: no credit, no game, no note on its way, no cash-out, no test mode
// (ErrBusy otherwise). The package's installation restarts the kiosk: the
// request is in the event log before it is made, the outcome after when
// the kiosk is still there to write it (the helper's journal has it in any
// case).
func (o *Office) InstallUpdate(ctx context.Context, s *Session, stick, file string, step func(string)) (helper.Update, error) {
	if err := o.begin(ctx, s, RoleTechnician, "install an update"); err != nil {
		return helper.Update{}, err
	}
	h, err := o.mediaHelper()
	if err != nil {
		return helper.Update{}, err
	}
	m := o.m
	m.mu.Lock()
	busy := m.playerBusyLocked() || m.cash.test.on
	credit := m.credit
	m.mu.Unlock()
	if busy {
		err := fmt.Errorf("update with a credit of %s, a game, a note, a cash-out or the test mode: %w", credit.Plain(), ErrBusy)
		o.audit(store.LevelWarning, "update_refused", "update %s on %s refused to %s: %v", file, stick, s.role, err)
		return helper.Update{}, err
	}
	if _, err := o.m.st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "maintenance", Code: "update_asked",
		Detail: fmt.Sprintf(updateAskedFormat, file, stick, s.role, Version)}); err != nil {
		return helper.Update{}, fmt.Errorf("install an update: the event log: %w", err)
	}
	u, err := h.Install(ctx, stick, file, step)
	if err != nil {
		o.audit(store.LevelWarning, "update_not_installed", "update %s on %s not installed for %s: %v", file, stick, s.role, err)
		return u, err
	}
	o.audit(store.LevelWarning, "update_installed", "update %s %s installed by %s from %s on %s (before: %s), key %s",
		u.Package, u.Version, s.role, file, stick, u.From, u.Key)
	return u, nil
}

// ExportLogs writes to a new folder on the stick the journal and the
// system's facts (the helper's), the whole event log (events.csv) and
// the kiosk's diagnostic (diagnostic.txt).
func (o *Office) ExportLogs(ctx context.Context, s *Session, stick string, step func(string)) (helper.Exported, error) {
	if err := o.begin(ctx, s, RoleTechnician, "export the logs"); err != nil {
		return helper.Exported{}, err
	}
	h, err := o.mediaHelper()
	if err != nil {
		return helper.Exported{}, err
	}
	// The export is in the event log it carries (a failure is logged
	// after it).
	o.audit(store.LevelInfo, "logs_export", "logs exported by %s to %s", s.role, stick)
	events, err := o.eventsCSV(ctx)
	if err != nil {
		return helper.Exported{}, fmt.Errorf("export the logs: %w", err)
	}
	ex, err := h.Export(ctx, stick, o.m.KioskID(), []helper.File{
		{Name: ExportEvents, Data: events},
		{Name: ExportDiagnostic, Data: o.diagnostic(ctx)},
	}, step)
	if err != nil {
		o.audit(store.LevelWarning, "logs_export_failed", "logs export by %s to %s failed: %v", s.role, stick, err)
		return ex, err
	}
	return ex, nil
}

// EjectStick unmounts a stick, so that it can be pulled out.
func (o *Office) EjectStick(ctx context.Context, s *Session, stick string) error {
	if err := o.begin(ctx, s, RoleTechnician, "eject a USB stick"); err != nil {
		return err
	}
	h, err := o.mediaHelper()
	if err != nil {
		return err
	}
	if err := h.Eject(ctx, stick); err != nil {
		o.audit(store.LevelWarning, "stick_eject_failed", "stick %s not ejected for %s: %v", stick, s.role, err)
		return err
	}
	o.audit(store.LevelInfo, "stick_ejected", "stick %s ejected by %s", stick, s.role)
	return nil
}

// eventsCSV is the event log, oldest first, in the kiosk's time zone: id,
// time, level, source, code, detail.
func (o *Office) eventsCSV(ctx context.Context) ([]byte, error) {
	var all []store.Event
	before := int64(0)
	for len(all) < exportMaxEvents {
		page, err := o.m.st.EventsWhere(ctx, store.EventQuery{N: 1000, BeforeID: before})
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 1000 {
			break
		}
		before = page[len(page)-1].ID
	}
	slices.Reverse(all)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"id", "time", "level", "source", "code", "detail"})
	loc := o.m.Location()
	for _, e := range all {
		_ = w.Write([]string{strconv.FormatInt(e.ID, 10), e.At.In(loc).Format(time.RFC3339Nano),
			string(e.Level), e.Source, e.Code, e.Detail})
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// diagnostic is the kiosk's state as a technician reads it: its software,
// its devices, its fault, its meters. A part that cannot be read says so.
func (o *Office) diagnostic(ctx context.Context) []byte {
	var b strings.Builder
	m := o.m
	now := m.clk.Now().In(m.Location())
	fmt.Fprintf(&b, "Pharaon kiosk %s, diagnostic of %s\n\n", m.KioskID(), now.Format(time.RFC3339))
	id, err := SoftwareIdentity()
	id.Trust, id.TPM = m.st.Trust()
	fmt.Fprintf(&b, "[software]\nversion: %s\nrevision: %s\nmodified: %v\nbuilt: %s\ngo: %s\nprogram: %s\nsha256: %s\ntrust root: %s (tpm: %v)\n",
		id.Version, id.Revision, id.Modified, id.BuildTime, id.GoVersion, id.Path, id.SHA256, id.Trust, id.TPM)
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	snap := m.Snapshot()
	fmt.Fprintf(&b, "\n[state]\nstate: %v\ncredit: %s\nfault: %s %s\n", snap.State, snap.Credit.Plain(), snap.Fault.Code, snap.Fault.Detail)
	d := m.devices()
	u := d.ValidatorUnit
	fmt.Fprintf(&b, "\n[devices]\nvalidator: %s connected=%v %s\nvalidator family: %s, model: %q, serial: %q, version: %q, polls answered: %d\nprinter: %s connected=%v %s\n",
		d.ValidatorPath, d.Validator.Connected, d.Validator.Message, u.Family, u.Model, u.Serial, u.Version, d.Polls,
		d.PrinterPath, d.Printer.Connected, d.Printer.Message)
	meters, err := m.st.Meters(ctx)
	b.WriteString("\n[meters]\n")
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	for _, k := range slices.Sorted(maps.Keys(meters)) {
		fmt.Fprintf(&b, "%s: %d\n", k, meters[k])
	}
	return []byte(b.String())
}

// updateAskedFormat is update_asked's detail: the bundle, the stick, the
// role, the version running when it was asked (UpdateRecord reads it
// back).
const updateAskedFormat = "update %s on %s asked by %s, running %s"

// updateAsked reads update_asked's detail back: the bundle and the version
// that ran.
var updateAsked = regexp.MustCompile(`^update (.+) on \S+ asked by \S+, running (\S+)$`)

// Outcomes of the last update asked from the maintenance screen.
const (
	// UpdateInstalled: installed; the kiosk runs another version than
	// when it was asked (it restarted into it), or said it installed it.
	UpdateInstalled = "installed"
	// UpdateNotInstalled: the helper refused it or its install failed.
	UpdateNotInstalled = "not_installed"
	// UpdateUnknown: asked, no outcome written, and the kiosk runs the
	// version it ran then: not installed (the helper's journal says why).
	UpdateUnknown = "unknown"
)

// UpdateRecord is the last update asked from the maintenance screen, as
// the event log has it (Identity).
type UpdateRecord struct {
	At      time.Time // when it was asked
	File    string    // the bundle, on its stick
	Before  string    // the version that ran then
	Outcome string    // Update…; "" : none asked
}

// lastUpdate is the last update asked among the newest maintenance events,
// and its outcome: the event written after it, else whether the version
// changed since (the package's postinst restarts the kiosk before it can
// write one).
func (o *Office) lastUpdate(ctx context.Context) (UpdateRecord, error) {
	evs, err := o.m.st.EventsWhere(ctx, store.EventQuery{N: 1000, Source: "maintenance"})
	if err != nil {
		return UpdateRecord{}, err
	}
	outcome := ""
	for _, e := range evs { // newest first
		switch e.Code {
		case "update_installed", "update_not_installed":
			if outcome == "" {
				outcome = e.Code
			}
		case "update_asked":
			r := UpdateRecord{At: e.At.In(o.m.Location())}
			if m := updateAsked.FindStringSubmatch(e.Detail); m != nil {
				r.File, r.Before = m[1], m[2]
			}
			switch {
			case outcome == "update_installed", outcome == "" && r.Before != "" && r.Before != Version:
				r.Outcome = UpdateInstalled
			case outcome == "update_not_installed":
				r.Outcome = UpdateNotInstalled
			default:
				r.Outcome = UpdateUnknown
			}
			return r, nil
		}
	}
	return UpdateRecord{}, nil
}

// IsUnavailable says err is the helper's absence.
func IsUnavailable(err error) bool { return errors.Is(err, helper.ErrUnavailable) }
