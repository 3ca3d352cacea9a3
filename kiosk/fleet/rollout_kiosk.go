package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/hw"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// The kiosk's side of the fleet's software updates (rollout.go): the
// follower reads the kiosk's offer, downloads the bundle, hands it to the
// kiosk's installer (kiosk/update's checks, as for a bundle on a USB stick)
// once the machine is idle, and reports. Whatever fails, the kiosk keeps
// running the version it runs: the installer changes nothing on a refusal
// and reinstalls the previous version on a failure.

// EventFleetUpdate is the kiosk's event of an update's outcome (source
// "fleet").
const EventFleetUpdate = "fleet_update"

// UpdateInstaller installs a bundle file as the kiosk installs one from a
// USB stick: on a kiosk the root helper and kiosk/update (the signature by
// an update key of the kiosk's, no version older than the running one
// unless the bundle is signed as a rollback); in tests an update.Updater
// over a fake package manager.
type UpdateInstaller interface {
	// Version is the version the kiosk runs.
	Version(ctx context.Context) (string, error)
	// Check verifies the bundle at path against the kiosk (signature,
	// version, kind) and installs nothing; Install verifies it again and
	// installs it. An error wraps kiosk/update's (update.Reason names it).
	Check(ctx context.Context, bundle string) (update.Result, error)
	Install(ctx context.Context, bundle string) (update.Result, error)
}

// UpdateMachine is the kiosk's machine as the follower needs it
// (*kiosk.Machine).
type UpdateMachine interface {
	// HoldIdle locks the players out if no credit, no game, no note and
	// no cash-out is under way, and says whether it did.
	HoldIdle(why string) (release func(), ok bool)
	// InService says the kiosk sells.
	InService() bool
}

// UpdateLog is where the follower writes its outcomes: the store's event
// log, which the outbox carries to the centre.
type UpdateLog interface {
	Log(ctx context.Context, e store.Event) (store.Event, error)
}

// UpdateFollower follows the kiosk's offers of updates.
type UpdateFollower struct {
	cfg  Config
	inst UpdateInstaller
	m    UpdateMachine
	log  UpdateLog
	dir  string

	// Poll is the wait between two readings of the offer (default 30 s);
	// MinBackoff and MaxBackoff bound the wait after a failure (defaults
	// 250 ms and 30 s). Now is the kiosk's clock for the reports, Sleep
	// its waits.
	Poll                   time.Duration
	MinBackoff, MaxBackoff time.Duration
	Now                    func() time.Time
	Sleep                  func(ctx context.Context, d time.Duration) error
	// MinFree is the room the bundle's download must leave on the
	// download directory's file system (default 256 MiB): it is the data
	// partition, and a kiosk whose ledger cannot be written stops
	// selling. Free says how much room there is (default: statfs).
	MinFree int64
	Free    func(dir string) (int64, error)
	// OnReport, when set, is called with each report once it is written;
	// OnError with each failure.
	OnReport func(UpdateReport)
	OnError  func(error)

	// staged is the bundle downloaded for the offer of a rollout, kept
	// while the kiosk is busy: owned by the Run goroutine.
	staged struct{ rollout, path string }
}

// NewUpdateFollower returns the follower of cfg's kiosk, downloading into
// dir (which must not be the data partition's: a bundle is not the
// kiosk's data); Run starts it.
func NewUpdateFollower(cfg Config, inst UpdateInstaller, m UpdateMachine, log UpdateLog, dir string) (*UpdateFollower, error) {
	if cfg.URL == "" {
		return nil, errors.New("fleet: no NATS URL")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	if inst == nil || m == nil || log == nil || dir == "" {
		return nil, errors.New("fleet: an update follower needs an installer, the machine, the event log and a directory")
	}
	return &UpdateFollower{cfg: cfg, inst: inst, m: m, log: log, dir: dir, Poll: 30 * time.Second,
		MinBackoff: 250 * time.Millisecond, MaxBackoff: 30 * time.Second, Now: time.Now, Sleep: hw.SystemClock{}.Sleep,
		MinFree: 256 << 20, Free: freeSpace}, nil
}

// Run follows the offers until ctx is cancelled, reconnecting after a
// failure with a doubling wait. It returns ctx's error.
func (f *UpdateFollower) Run(ctx context.Context) error {
	defer f.unstage()
	return reconnecting(ctx, f.MinBackoff, f.MaxBackoff, f.session, func(err error) {
		if f.OnError != nil {
			f.OnError(err)
		}
	}, f.Sleep)
}

func (f *UpdateFollower) unstage() {
	if f.staged.path != "" {
		os.Remove(f.staged.path)
	}
	f.staged.rollout, f.staged.path = "", ""
}

// updateSession is one connection.
type updateSession struct {
	js      jetstream.JetStream
	offers  Bucket
	reports Bucket
}

func (f *UpdateFollower) session(ctx context.Context) (progressed bool, err error) {
	nc, err := f.cfg.connect()
	if err != nil {
		return false, err
	}
	defer nc.Close()
	defer context.AfterFunc(ctx, nc.Close)()
	js, err := jetstream.New(nc)
	if err != nil {
		return false, err
	}
	s := &updateSession{js: js, offers: NewBucket(js, UpdateOffers), reports: NewBucket(js, UpdateReports)}
	for {
		if err := f.step(ctx, s); err != nil {
			return progressed, err
		}
		progressed = true
		if err := f.Sleep(ctx, f.Poll); err != nil {
			return progressed, err
		}
	}
}

// offer reads the kiosk's offer: nil when none (never made, or withdrawn).
func (f *UpdateFollower) offer(ctx context.Context, s *updateSession) (*UpdateOffer, error) {
	e, err := s.offers.get(ctx, f.cfg.KioskID)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("offer: %w", err)
	}
	var o UpdateOffer
	if err := json.Unmarshal(e.value, &o); err != nil {
		return nil, fmt.Errorf("offer unreadable: %w", err)
	}
	switch {
	case o.Kiosk != f.cfg.KioskID:
		return nil, fmt.Errorf("offer of rollout %s names kiosk %q", o.Rollout, o.Kiosk)
	case !validRolloutID(o.Rollout):
		return nil, fmt.Errorf("offer of rollout %q: not a rollout's id", o.Rollout)
	case !strings.HasPrefix(o.Bucket, UpdateObjects):
		return nil, fmt.Errorf("offer of rollout %s: bucket %q is not an update store", o.Rollout, o.Bucket)
	}
	return &o, nil
}

// report reads the kiosk's report of a rollout, nil when none.
func (f *UpdateFollower) report(ctx context.Context, s *updateSession, rollout string) (*UpdateReport, error) {
	e, err := s.reports.get(ctx, ReportKey(f.cfg.KioskID, rollout))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var r UpdateReport
	if err := json.Unmarshal(e.value, &r); err != nil {
		return nil, nil // written again below
	}
	return &r, nil
}

// step reads the offer and does what it asks, once.
func (f *UpdateFollower) step(ctx context.Context, s *updateSession) error {
	o, err := f.offer(ctx, s)
	if err != nil {
		return err
	}
	if o == nil || f.staged.rollout != "" && f.staged.rollout != o.Rollout {
		f.unstage()
	}
	if o == nil {
		return nil
	}
	running, err := f.inst.Version(ctx)
	if err != nil {
		return fmt.Errorf("the running version: %w", err)
	}
	rep, err := f.report(ctx, s, o.Rollout)
	if err != nil {
		return err
	}
	now := UpdateReport{Kiosk: f.cfg.KioskID, Rollout: o.Rollout, Version: running, Offered: o.Version, InService: f.m.InService()}
	switch {
	case rep != nil && rep.Outcome == UpdateInstalling:
		// The kiosk restarted during or after its install, before it
		// could say how it went: the version it runs says.
		if running == o.Version {
			now.Outcome, now.Detail = UpdateInstalled, "runs "+running+" since its restart"
		} else {
			now.Outcome, now.Reason, now.Detail = UpdateFailed, "restarted", fmt.Sprintf("restarted on %s, not %s", running, o.Version)
		}
		return f.write(ctx, s, now)
	case rep != nil:
		// Answered: the centre is kept told of the version it runs and
		// whether it sells (a kiosk out of service after an update stops
		// the rollout).
		if rep.Version != running || rep.InService != now.InService {
			now.Outcome, now.Reason, now.Detail = rep.Outcome, rep.Reason, rep.Detail
			return f.write(ctx, s, now)
		}
		return nil
	case running == o.Version:
		now.Outcome, now.Detail = UpdateInstalled, "already runs "+running
		return f.write(ctx, s, now)
	}
	path, refusal, err := f.download(ctx, s, o)
	if err != nil {
		return err
	}
	if refusal != nil {
		now.Outcome, now.Reason, now.Detail = UpdateRefused, refusal.reason, refusal.detail
		return f.write(ctx, s, now)
	}
	// Checked first: a bundle this kiosk refuses (its signature, its
	// version) is never reported as taken.
	if _, err := f.inst.Check(ctx, path); err != nil {
		switch reason := update.Reason(err); {
		case reason == "busy":
			return nil
		case refusedReasons[reason]:
			f.unstage()
			now.Outcome, now.Reason, now.Detail = UpdateRefused, reason, err.Error()
		default:
			return fmt.Errorf("check the bundle of rollout %s: %w", o.Rollout, err)
		}
		return f.write(ctx, s, now)
	}
	release, idle := f.m.HoldIdle("a software update from the fleet")
	if !idle {
		return nil // a player's credit or game: at a later poll
	}
	defer release()
	// The offer read again under the hold: a rollout stopped meanwhile is
	// not installed.
	again, err := f.offer(ctx, s)
	if err != nil {
		return err
	}
	if again == nil || *again != *o {
		return nil
	}
	now.Outcome, now.Detail = UpdateInstalling, "installing "+o.Version+" over "+running
	if err := f.write(ctx, s, now); err != nil {
		return err
	}
	res, ierr := f.inst.Install(ctx, path)
	f.unstage()
	if v, err := f.inst.Version(ctx); err == nil {
		now.Version = v
	}
	now.InService = f.m.InService()
	switch reason := update.Reason(ierr); {
	case ierr == nil:
		now.Outcome, now.Detail = UpdateInstalled, fmt.Sprintf("%s %s installed over %s", res.Manifest.Package, res.Manifest.Version, res.From)
	case reason == "busy":
		return nil // another update (the technician's) runs: at a later poll
	case refusedReasons[reason]:
		now.Outcome, now.Reason, now.Detail = UpdateRefused, reason, ierr.Error()
	default:
		now.Outcome, now.Reason, now.Detail = UpdateFailed, reason, ierr.Error()
	}
	return f.write(ctx, s, now)
}

// refusedReasons are update.Reason's codes of a bundle refused before
// anything changed; the others are failures of an install begun.
var refusedReasons = map[string]bool{"unsigned": true, "untrusted": true, "signature": true, "payload": true, "format": true,
	"downgrade": true, "mismatch": true, "datadir": true, "norollback": true, "readonly": true, "noslots": true, "unconfirmed": true}

// downloadRefusal is why a download is refused: a reason's code
// (update.Reason's "payload", or "space") and the detail.
type downloadRefusal struct{ reason, detail string }

func refuse(reason, format string, args ...any) *downloadRefusal {
	return &downloadRefusal{reason: reason, detail: fmt.Sprintf(format, args...)}
}

// download brings the offer's bundle into the kiosk's directory, checked
// against the offer's size and SHA-256 (the object store's own digest is
// checked as it is read), once an offer. A bundle that is not the offer's
// is a refusal (said in refusal), not an error.
func (f *UpdateFollower) download(ctx context.Context, s *updateSession, o *UpdateOffer) (path string, refusal *downloadRefusal, err error) {
	if f.staged.rollout == o.Rollout {
		return f.staged.path, nil, nil
	}
	obj, err := s.js.ObjectStore(ctx, o.Bucket)
	if err != nil {
		return "", nil, fmt.Errorf("object store %s: %w", o.Bucket, err)
	}
	info, err := obj.GetInfo(ctx, o.Object)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return "", refuse("payload", "bundle %s not in %s", o.Object, o.Bucket), nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("bundle %s: %w", o.Object, err)
	}
	if int64(info.Size) != o.Size || o.Size <= 0 || o.Size > update.MaxPayload+maxManifestOverhead {
		return "", refuse("payload", "bundle %s has %d bytes, the offer says %d", o.Object, info.Size, o.Size), nil
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return "", nil, err
	}
	if free, err := f.Free(f.dir); err != nil {
		return "", nil, fmt.Errorf("room for the bundle: %w", err)
	} else if free-o.Size < f.MinFree {
		return "", refuse("space", "bundle %s of %d bytes: %d bytes free on the kiosk's disk, %d must stay for its data",
			o.Object, o.Size, free, f.MinFree), nil
	}
	tmp, err := os.CreateTemp(f.dir, ".fleet-update-*")
	if err != nil {
		return "", nil, err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	rd, err := obj.Get(ctx, o.Object)
	if err != nil {
		return "", nil, fmt.Errorf("get %s: %w", o.Object, err)
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, sum), io.LimitReader(rd, o.Size+1))
	rd.Close()
	switch {
	case errors.Is(err, jetstream.ErrDigestMismatch):
		return "", refuse("payload", "bundle %s: %v", o.Object, err), nil
	case err != nil:
		return "", nil, fmt.Errorf("read %s: %w", o.Object, err)
	case n != o.Size:
		return "", refuse("payload", "bundle %s: %d bytes read, the offer says %d", o.Object, n, o.Size), nil
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != o.SHA256 {
		return "", refuse("payload", "bundle %s: SHA-256 %s, the offer says %s", o.Object, got[:16], o.SHA256), nil
	}
	if err := tmp.Close(); err != nil {
		return "", nil, err
	}
	ok = true
	f.staged.rollout, f.staged.path = o.Rollout, tmp.Name()
	return tmp.Name(), nil, nil
}

// write records a report: the kiosk's event log, then its key of the
// reports.
func (f *UpdateFollower) write(ctx context.Context, s *updateSession, r UpdateReport) error {
	r.At = f.Now().UTC()
	level := store.LevelInfo
	if r.Outcome == UpdateRefused || r.Outcome == UpdateFailed || !r.InService {
		level = store.LevelWarning
	}
	detail := fmt.Sprintf("rollout %s, %s offered, running %s: %s", r.Rollout, r.Offered, r.Version, r.Outcome)
	if r.Detail != "" {
		detail += ": " + r.Detail
	}
	if _, err := f.log.Log(ctx, store.Event{Level: level, Source: "fleet", Code: EventFleetUpdate, Detail: detail}); err != nil {
		return err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := s.reports.put(ctx, ReportKey(r.Kiosk, r.Rollout), data); err != nil {
		return fmt.Errorf("report of rollout %s: %w", r.Rollout, err)
	}
	if f.OnReport != nil {
		f.OnReport(r)
	}
	return nil
}

// freeSpace is the room left on the file system of dir for an
// unprivileged user.
func freeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
