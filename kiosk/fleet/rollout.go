package fleet

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/kiosk"
	"pharaon/kiosk/update"
)

// Software updates sent through the fleet (DESIGN.md §11, docs/fleet.md
// "Software updates"). The operator uploads a signed update bundle
// (kiosk/update) into the centre's catalogue, UpdateBundles, which only the
// centre's user reads. A rollout sends it to one kiosk, or to a group or a
// share of a group: the centre copies the bundle into the address's own
// object store (UpdateObjectsFor: a kiosk reads its own and its groups'
// only) and writes an offer under each chosen kiosk's key of UpdateOffers.
// Each kiosk reads its offer (a direct get of its own key), downloads the
// bundle, installs it through kiosk/update when it is idle, and reports
// under "<kiosk>.<rollout>" of UpdateReports, the only keys it may write
// there. The rollout itself (its targets, its stop rule, who started and
// stopped it) is the centre's entry of RolloutsBucket; Rollouts.Evaluate
// stops it by itself when too many of the kiosks that took it failed or
// went out of service, and withdraws the offers not yet taken.
//
// What the centre reads of a bundle (its version, its kind, whether it is
// signed as a rollback) is the manifest unverified: the centre holds no
// update key. The kiosk verifies everything itself, as for a bundle from a
// USB stick; the centre's reading only chooses what to offer and refuses
// the operator's obvious mistakes early.
const (
	// UpdateBundles is the centre's catalogue of uploaded bundles.
	UpdateBundles = "pharaon-update-bundles"
	// UpdateObjects prefixes the object stores of the bundles sent to an
	// address (UpdateObjectsFor).
	UpdateObjects = "pharaon-updates-"
	// RolloutsBucket holds the rollouts, written by the centre only.
	RolloutsBucket = "pharaon-rollouts"
	// UpdateOffers holds each kiosk's current offer, key "<kiosk>",
	// written by the centre; a kiosk reads its own.
	UpdateOffers = "pharaon-update-offers"
	// UpdateReports holds the kiosks' reports, key "<kiosk>.<rollout>";
	// a kiosk writes its own.
	UpdateReports = "pharaon-update-reports"
	// RolloutHistory is how many revisions of a rollout the bucket keeps.
	RolloutHistory = 32
	// DefaultMaxFailures is the share (percent) of the kiosks that took a
	// rollout that may fail or go out of service before it stops.
	DefaultMaxFailures = 10
	// DefaultTakeTimeout is how long a kiosk that took an update has to
	// report it installed (it restarts into it) before the centre counts
	// it out of service.
	DefaultTakeTimeout = 30 * time.Minute
)

// UpdateObjectsFor is the object store of the bundles sent to a:
// pharaon-updates-kiosk-<id> or pharaon-updates-group-<group>.
func UpdateObjectsFor(a Address) string {
	if a.Group {
		return UpdateObjects + "group-" + a.Name
	}
	return UpdateObjects + "kiosk-" + a.Name
}

// Bundle is an uploaded bundle as the centre describes it (its manifest
// read unverified, its digest computed on upload).
type Bundle struct {
	Name     string    `json:"name"` // its object's name in the catalogue and the addresses' stores
	Version  string    `json:"version"`
	Kind     string    `json:"kind"` // update.KindDeb or update.KindSystem
	Package  string    `json:"package"`
	Rollback bool      `json:"rollback,omitempty"` // signed as a rollback (the manifest says)
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"` // hex, of the whole bundle file
	Uploaded time.Time `json:"uploaded"`
}

// Errors of the rollouts.
var (
	ErrNoBundle       = errors.New("no such bundle uploaded")
	ErrNoRollout      = errors.New("no such rollout")
	ErrRolloutOver    = errors.New("the rollout is not running")
	ErrNoTargets      = errors.New("no kiosk to send the update to")
	ErrUnknownKiosk   = errors.New("not a kiosk of the fleet (never added, or revoked)")
	ErrOfferOpen      = errors.New("the kiosk has an offer of another running rollout")
	ErrNotRollback    = errors.New("the bundle is not signed as a rollback")
	ErrRollbackNewer  = errors.New("a rollback's version must be older than the rollout's")
	ErrBundleMismatch = errors.New("the bundle is not what the rollout's record says")
)

func bundleMeta(b Bundle) map[string]string {
	return map[string]string{"version": b.Version, "kind": b.Kind, "package": b.Package,
		"rollback": strconv.FormatBool(b.Rollback), "sha256": b.SHA256, "uploaded": b.Uploaded.UTC().Format(time.RFC3339)}
}

func bundleOf(info *jetstream.ObjectInfo) Bundle {
	md := info.Metadata
	b := Bundle{Name: info.Name, Version: md["version"], Kind: md["kind"], Package: md["package"], SHA256: md["sha256"],
		Rollback: md["rollback"] == "true", Size: int64(info.Size)}
	b.Uploaded, _ = time.Parse(time.RFC3339, md["uploaded"])
	return b
}

// catalogue finds, or makes, the centre's catalogue of bundles.
func catalogue(ctx context.Context, js jetstream.JetStream) (jetstream.ObjectStore, error) {
	return objectStore(ctx, js, UpdateBundles)
}

func objectStore(ctx context.Context, js jetstream.JetStream, name string) (jetstream.ObjectStore, error) {
	obj, err := js.ObjectStore(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		replicas := 1
		if s, err := js.Stream(ctx, BlocksStream); err == nil {
			replicas = max(s.CachedInfo().Config.Replicas, 1)
		}
		obj, err = js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: name,
			Storage: jetstream.FileStorage, Replicas: replicas})
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", name, err)
	}
	return obj, nil
}

// UploadBundle puts the bundle file at path into the centre's catalogue,
// named by its version and digest (the same file uploaded again is one
// object). A file whose manifest cannot be read is refused and nothing is
// stored.
func UploadBundle(ctx context.Context, js jetstream.JetStream, path string, now time.Time) (Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return Bundle{}, err
	}
	defer f.Close()
	m, err := update.PeekManifest(f)
	if err != nil {
		return Bundle{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Bundle{}, err
	}
	sum := sha256.New()
	n, err := io.Copy(sum, f)
	if err != nil {
		return Bundle{}, fmt.Errorf("%s: %w", path, err)
	}
	if n > update.MaxPayload+maxManifestOverhead {
		return Bundle{}, fmt.Errorf("%s: %d bytes: %w", path, n, update.ErrFormat)
	}
	b := Bundle{Version: m.Version, Kind: m.Kind, Package: m.Package, Rollback: m.Rollback, Size: n,
		SHA256: hex.EncodeToString(sum.Sum(nil)), Uploaded: now.UTC().Truncate(time.Second)}
	b.Name = BundleName(b.Version, b.SHA256)
	obj, err := catalogue(ctx, js)
	if err != nil {
		return Bundle{}, err
	}
	if info, err := obj.GetInfo(ctx, b.Name); err == nil && info.Size == uint64(n) {
		return bundleOf(info), nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Bundle{}, err
	}
	if _, err := obj.Put(ctx, jetstream.ObjectMeta{Name: b.Name, Description: fmt.Sprintf("%s %s %s", b.Package, b.Version, b.Kind),
		Metadata: bundleMeta(b)}, f); err != nil {
		return Bundle{}, fmt.Errorf("put %s: %w", b.Name, err)
	}
	return b, nil
}

// maxManifestOverhead is what a bundle holds besides its payload: the
// manifest, the signature and the tar headers.
const maxManifestOverhead = 1 << 20

// BundleName is a bundle's object name: its version and the first 12 hex
// digits of its digest.
func BundleName(version, sha string) string {
	return "update-" + version + "-" + sha[:min(12, len(sha))]
}

// Bundles lists the catalogue, by upload time.
func Bundles(ctx context.Context, js jetstream.JetStream) ([]Bundle, error) {
	obj, err := catalogue(ctx, js)
	if err != nil {
		return nil, err
	}
	infos, err := obj.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Bundle
	for _, i := range infos {
		out = append(out, bundleOf(i))
	}
	slices.SortFunc(out, func(a, b Bundle) int {
		return cmp.Or(a.Uploaded.Compare(b.Uploaded), strings.Compare(a.Name, b.Name))
	})
	return out, nil
}

// FindBundle is the uploaded bundle named name, or of that version when
// exactly one is.
func FindBundle(ctx context.Context, js jetstream.JetStream, name string) (Bundle, error) {
	all, err := Bundles(ctx, js)
	if err != nil {
		return Bundle{}, err
	}
	var found []Bundle
	for _, b := range all {
		if b.Name == name {
			return b, nil
		}
		if b.Version == name {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return Bundle{}, fmt.Errorf("bundle %q: %w", name, ErrNoBundle)
	case 1:
		return found[0], nil
	}
	return Bundle{}, fmt.Errorf("bundle %q: %d bundles of that version uploaded, name one of them", name, len(found))
}

// Rollout states.
const (
	RolloutRunning    = "running"
	RolloutHalted     = "halted"      // stopped by itself: too many failures
	RolloutStopped    = "stopped"     // stopped by the operator
	RolloutRolledBack = "rolled-back" // stopped, and a rollback sent to the kiosks that took it
)

// Rollout is a bundle sent to kiosks: the entry of RolloutsBucket.
type Rollout struct {
	ID      string   `json:"id"`
	Bundle  Bundle   `json:"bundle"`
	To      string   `json:"to"`                // Address.String
	Percent int      `json:"percent,omitempty"` // of a group; 0 or 100: all of it
	Targets []string `json:"targets"`           // the kiosks offered the bundle, sorted
	// MaxFailures is the share (percent) of the kiosks that took the
	// update that may fail or go out of service: reached, the rollout
	// stops by itself.
	MaxFailures int `json:"max_failures"`
	// TakeTimeout: a kiosk that took the update and did not say it is
	// installed after this long counts as out of service.
	TakeTimeout time.Duration `json:"take_timeout"`
	State       string        `json:"state"`
	// RollbackOf is the rollout this one takes back; RolledBackBy the
	// rollout that took this one back.
	RollbackOf   string `json:"rollback_of,omitempty"`
	RolledBackBy string `json:"rolled_back_by,omitempty"`
	// Log is who did what to the rollout, oldest first: the audit.
	Log []RolloutEvent `json:"log"`
}

// RolloutEvent is one line of a rollout's audit.
type RolloutEvent struct {
	At     time.Time `json:"at"`     // the centre's clock
	By     string    `json:"by"`     // the operator, or "centre" for the stop rule
	Action string    `json:"action"` // started, stopped, halted, rolled-back
	Detail string    `json:"detail,omitempty"`
}

// UpdateOffer is a kiosk's offer: the entry "<kiosk>" of UpdateOffers.
type UpdateOffer struct {
	Rollout  string    `json:"rollout"`
	Kiosk    string    `json:"kiosk"`
	To       string    `json:"to"`     // the address whose store holds the bundle
	Bucket   string    `json:"bucket"` // UpdateObjectsFor that address
	Object   string    `json:"object"`
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256"`
	Version  string    `json:"version"`
	Rollback bool      `json:"rollback,omitempty"`
	At       time.Time `json:"at"`
}

// Outcomes a kiosk reports of an offer.
const (
	// UpdateInstalling: the kiosk took the update (idle, the bundle
	// downloaded and matching) and hands it to its installer; a restart
	// into the new version follows.
	UpdateInstalling = "installing"
	// UpdateInstalled: the kiosk runs the offered version.
	UpdateInstalled = "installed"
	// UpdateRefused: the kiosk's checks refused the bundle (signature,
	// version, kind, digest): nothing changed.
	UpdateRefused = "refused"
	// UpdateFailed: the install failed; the kiosk runs the version it ran.
	UpdateFailed = "failed"
)

// UpdateReport is what a kiosk says of an offer: the entry
// "<kiosk>.<rollout>" of UpdateReports.
type UpdateReport struct {
	Kiosk   string `json:"kiosk"`
	Rollout string `json:"rollout"`
	Outcome string `json:"outcome"`
	// Reason is update.Reason's code of a refusal or a failure.
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Version is the version the kiosk runs; Offered the offer's.
	Version string `json:"version"`
	Offered string `json:"offered"`
	// InService: the kiosk sells (not out of service).
	InService bool      `json:"in_service"`
	At        time.Time `json:"at"` // the kiosk's clock
}

// ReportKey is the key of a kiosk's report of a rollout.
func ReportKey(kiosk, rollout string) string { return kiosk + "." + rollout }

// RolloutSpec is what the operator asks for.
type RolloutSpec struct {
	Bundle string  // the bundle's name (or version, when one bundle has it)
	To     Address // a kiosk or a group
	// Percent of the group (1 to 100; 0 means 100): which kiosks is
	// chosen deterministically from the bundle and the kiosks' ids.
	Percent     int
	MaxFailures int           // percent; 0: DefaultMaxFailures; -1: none may fail
	TakeTimeout time.Duration // 0: DefaultTakeTimeout
	By          string        // who starts it: the audit

	targets []string // a rollback's: the kiosks that took the rollout
}

// Rollouts are the centre's rollouts (pharaon-central updates, the
// console): start, stop, roll back, status. Now is the centre's clock.
type Rollouts struct {
	js  jetstream.JetStream
	Now func() time.Time
}

// NewRollouts are the rollouts on js.
func NewRollouts(js jetstream.JetStream, now func() time.Time) *Rollouts {
	if now == nil {
		now = time.Now
	}
	return &Rollouts{js: js, Now: now}
}

func (r *Rollouts) bucket() Bucket  { return NewBucket(r.js, RolloutsBucket) }
func (r *Rollouts) offers() Bucket  { return NewBucket(r.js, UpdateOffers) }
func (r *Rollouts) reports() Bucket { return NewBucket(r.js, UpdateReports) }

// GroupMembers are the kiosks in group, as the centre put them there: the
// filters of the kiosks' consumers of the deliveries (ProvisionKiosk), so a
// revoked kiosk, whose consumer is deleted, is in no group.
func GroupMembers(ctx context.Context, js jetstream.JetStream, group string) ([]string, error) {
	s, err := js.Stream(ctx, BlocksStream)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", BlocksStream, err)
	}
	var out []string
	l := s.ListConsumers(ctx)
	for info := range l.Info() {
		id, ok := strings.CutPrefix(info.Name, "blocks-")
		if !ok {
			continue
		}
		addrs, err := addressesOf(info)
		if err != nil {
			continue
		}
		if slices.Contains(addrs, ToGroup(group)) {
			out = append(out, id)
		}
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// ChooseTargets is the share percent (1 to 100) of members a rollout of
// the bundle whose digest is sha goes to: the members ordered by the
// SHA-256 of the digest and their id, the first ceil(n×percent/100) of
// them. The same bundle and members give the same kiosks, and a larger
// share keeps those a smaller one chose; another bundle starts elsewhere.
func ChooseTargets(sha string, members []string, percent int) []string {
	if percent <= 0 || percent > 100 {
		percent = 100
	}
	type ranked struct {
		id   string
		rank [32]byte
	}
	rs := make([]ranked, len(members))
	for i, m := range members {
		rs[i] = ranked{m, sha256.Sum256([]byte(sha + "\x00" + m))}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		return cmp.Or(slices.Compare(a.rank[:], b.rank[:]), strings.Compare(a.id, b.id))
	})
	n := (len(members)*percent + 99) / 100
	out := make([]string, n)
	for i := range n {
		out[i] = rs[i].id
	}
	slices.Sort(out)
	return out
}

// Start starts a rollout of spec: the bundle copied into the address's
// store, an offer to each target. A target with an offer of another
// running rollout refuses it (ErrOfferOpen: stop that one first), and
// nothing is offered.
func (r *Rollouts) Start(ctx context.Context, spec RolloutSpec) (Rollout, error) {
	b, err := FindBundle(ctx, r.js, spec.Bundle)
	if err != nil {
		return Rollout{}, err
	}
	return r.start(ctx, spec, b, "")
}

func (r *Rollouts) start(ctx context.Context, spec RolloutSpec, b Bundle, rollbackOf string) (Rollout, error) {
	if !ValidKioskID(spec.To.Name) {
		return Rollout{}, fmt.Errorf("address %q, named as a kiosk is: %w", spec.To.Name, kiosk.ErrKioskID)
	}
	if spec.By == "" {
		return Rollout{}, errors.New("a rollout says who starts it")
	}
	if spec.Percent < 0 || spec.Percent > 100 || spec.Percent != 0 && !spec.To.Group {
		return Rollout{}, fmt.Errorf("percent %d: 1 to 100, of a group only", spec.Percent)
	}
	if spec.MaxFailures < -1 || spec.MaxFailures > 100 {
		return Rollout{}, fmt.Errorf("max failures %d%%: 0 to 100", spec.MaxFailures)
	}
	now := r.Now().UTC()
	ro := Rollout{Bundle: b, To: spec.To.String(), Percent: spec.Percent, MaxFailures: spec.MaxFailures,
		TakeTimeout: spec.TakeTimeout, State: RolloutRunning, RollbackOf: rollbackOf}
	switch {
	case ro.MaxFailures == 0:
		ro.MaxFailures = DefaultMaxFailures
	case ro.MaxFailures < 0:
		ro.MaxFailures = 0
	}
	if ro.TakeTimeout <= 0 {
		ro.TakeTimeout = DefaultTakeTimeout
	}
	ro.ID = now.Format("20060102-150405") + "-" + b.SHA256[:min(8, len(b.SHA256))]
	if rollbackOf != "" {
		ro.ID += "-rb"
	}
	if spec.To.Group {
		members, err := GroupMembers(ctx, r.js, spec.To.Name)
		if err != nil {
			return Rollout{}, err
		}
		ro.Targets = ChooseTargets(b.SHA256, members, spec.Percent)
	} else {
		// A kiosk the centre does not serve (never added, or revoked: its
		// consumer deleted) is offered nothing.
		if _, err := r.js.Consumer(ctx, BlocksStream, BlocksConsumer(spec.To.Name)); errors.Is(err, jetstream.ErrConsumerNotFound) {
			return Rollout{}, fmt.Errorf("kiosk %s: %w", spec.To.Name, ErrUnknownKiosk)
		} else if err != nil {
			return Rollout{}, fmt.Errorf("kiosk %s: %w", spec.To.Name, err)
		}
		ro.Targets = []string{spec.To.Name}
	}
	if rollbackOf != "" {
		// A rollback goes to the kiosks that took the rollout back, of
		// whichever address: its targets are set by the caller.
		ro.Targets = spec.targets
	}
	if len(ro.Targets) == 0 {
		return Rollout{}, fmt.Errorf("%s: %w", spec.To, ErrNoTargets)
	}
	// Refused before anything is written: a kiosk follows one offer.
	for _, k := range ro.Targets {
		o, err := r.offer(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return Rollout{}, err
		}
		if o.Rollout == rollbackOf {
			continue
		}
		if prev, err := r.Get(ctx, o.Rollout); err == nil && prev.State == RolloutRunning {
			return Rollout{}, fmt.Errorf("kiosk %s, rollout %s (%s): %w", k, prev.ID, prev.Bundle.Version, ErrOfferOpen)
		}
	}
	detail := fmt.Sprintf("%s %s to %s", b.Package, b.Version, ro.To)
	if spec.Percent > 0 {
		detail += fmt.Sprintf(" (%d%%)", spec.Percent)
	}
	detail += fmt.Sprintf(": %d kiosks (%s), stops at %d%% failed", len(ro.Targets), strings.Join(ro.Targets, ", "), ro.MaxFailures)
	if rollbackOf != "" {
		detail += ", rolling back " + rollbackOf
	}
	ro.Log = []RolloutEvent{{At: now, By: spec.By, Action: "started", Detail: detail}}

	// The bundle into the address's store, checked against the catalogue.
	bucket := UpdateObjectsFor(spec.To)
	if err := r.copyBundle(ctx, b, bucket); err != nil {
		return Rollout{}, err
	}
	data, err := json.Marshal(ro)
	if err != nil {
		return Rollout{}, err
	}
	// Two rollouts of one bundle started in the same second get the
	// next free suffix.
	base := ro.ID
	for n := 2; ; n++ {
		_, err := r.bucket().create(ctx, ro.ID, data)
		if err == nil {
			break
		}
		if !errors.Is(err, jetstream.ErrKeyExists) || n > 100 {
			return Rollout{}, fmt.Errorf("rollout %s: %w", ro.ID, err)
		}
		ro.ID = base + "-" + strconv.Itoa(n)
		if data, err = json.Marshal(ro); err != nil {
			return Rollout{}, err
		}
	}
	for _, k := range ro.Targets {
		o := UpdateOffer{Rollout: ro.ID, Kiosk: k, To: spec.To.String(), Bucket: bucket, Object: b.Name, Size: b.Size,
			SHA256: b.SHA256, Version: b.Version, Rollback: b.Rollback, At: now}
		od, err := json.Marshal(o)
		if err != nil {
			return Rollout{}, err
		}
		if _, err := r.offers().put(ctx, k, od); err != nil {
			return Rollout{}, fmt.Errorf("offer to %s: %w", k, err)
		}
	}
	return ro, nil
}

// copyBundle copies a catalogue's bundle into the store bucket, unless it
// holds it already.
func (r *Rollouts) copyBundle(ctx context.Context, b Bundle, bucket string) error {
	dst, err := objectStore(ctx, r.js, bucket)
	if err != nil {
		return err
	}
	if info, err := dst.GetInfo(ctx, b.Name); err == nil && info.Size == uint64(b.Size) && info.Metadata["sha256"] == b.SHA256 {
		return nil
	}
	src, err := catalogue(ctx, r.js)
	if err != nil {
		return err
	}
	rd, err := src.Get(ctx, b.Name)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	defer rd.Close()
	sum := sha256.New()
	if _, err := dst.Put(ctx, jetstream.ObjectMeta{Name: b.Name, Description: fmt.Sprintf("%s %s %s", b.Package, b.Version, b.Kind),
		Metadata: bundleMeta(b)}, io.TeeReader(rd, sum)); err != nil {
		return fmt.Errorf("copy %s to %s: %w", b.Name, bucket, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != b.SHA256 {
		_ = dst.Delete(ctx, b.Name)
		return fmt.Errorf("bundle %s has SHA-256 %s in the catalogue, uploaded as %s: %w", b.Name, got, b.SHA256, ErrBundleMismatch)
	}
	return nil
}

func (r *Rollouts) offer(ctx context.Context, k string) (UpdateOffer, error) {
	e, err := r.offers().get(ctx, k)
	if err != nil {
		return UpdateOffer{}, err
	}
	var o UpdateOffer
	if err := json.Unmarshal(e.value, &o); err != nil {
		return UpdateOffer{}, fmt.Errorf("offer %s: %w", k, err)
	}
	return o, nil
}

// Get reads a rollout.
func (r *Rollouts) Get(ctx context.Context, id string) (Rollout, error) {
	ro, _, err := r.get(ctx, id)
	return ro, err
}

func (r *Rollouts) get(ctx context.Context, id string) (Rollout, uint64, error) {
	if !validRolloutID(id) {
		return Rollout{}, 0, fmt.Errorf("rollout %q: %w", id, ErrNoRollout)
	}
	e, err := r.bucket().get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return Rollout{}, 0, fmt.Errorf("rollout %q: %w", id, ErrNoRollout)
	}
	if err != nil {
		return Rollout{}, 0, err
	}
	var ro Rollout
	if err := json.Unmarshal(e.value, &ro); err != nil {
		return Rollout{}, 0, fmt.Errorf("rollout %s: %w", id, err)
	}
	return ro, e.revision, nil
}

// validRolloutID: letters, digits, - and _ only (one subject token).
func validRolloutID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// List reads every rollout, the newest first.
func (r *Rollouts) List(ctx context.Context) ([]Rollout, error) {
	kv, err := r.js.KeyValue(ctx, RolloutsBucket)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", RolloutsBucket, err)
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []Rollout
	for key := range lister.Keys() {
		ro, err := r.Get(ctx, key)
		if errors.Is(err, ErrNoRollout) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ro)
	}
	slices.SortFunc(out, func(a, b Rollout) int { return strings.Compare(b.ID, a.ID) })
	return out, nil
}

// change applies f to the rollout id and writes it if f says so, again
// when another writer came between (compare-and-set on the revision).
func (r *Rollouts) change(ctx context.Context, id string, f func(*Rollout) (bool, error)) (Rollout, error) {
	for range 10 {
		ro, rev, err := r.get(ctx, id)
		if err != nil {
			return Rollout{}, err
		}
		write, err := f(&ro)
		if err != nil || !write {
			return ro, err
		}
		data, err := json.Marshal(ro)
		if err != nil {
			return Rollout{}, err
		}
		_, err = r.bucket().update(ctx, id, data, rev)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		return ro, err
	}
	return Rollout{}, fmt.Errorf("rollout %s: written by others too often", id)
}

// Stop stops a running rollout: its offers not taken are withdrawn; the
// kiosks that installed it keep it. by is who stops it.
func (r *Rollouts) Stop(ctx context.Context, id, by, why string) (Rollout, error) {
	return r.stop(ctx, id, RolloutStopped, by, why)
}

func (r *Rollouts) stop(ctx context.Context, id, state, by, why string) (Rollout, error) {
	if by == "" {
		return Rollout{}, errors.New("a stop says who stops it")
	}
	ro, err := r.Get(ctx, id)
	if err != nil {
		return ro, err
	}
	if ro.State != RolloutRunning {
		return ro, fmt.Errorf("rollout %s is %s: %w", ro.ID, ro.State, ErrRolloutOver)
	}
	// The offers first: once the rollout reads stopped, none of its
	// offers is left for a kiosk to take. A stop that fails after them
	// leaves a running rollout that offers nothing more, the safe side;
	// it is stopped again.
	if err := r.withdraw(ctx, ro); err != nil {
		return ro, err
	}
	return r.change(ctx, id, func(ro *Rollout) (bool, error) {
		if ro.State != RolloutRunning {
			return false, fmt.Errorf("rollout %s is %s: %w", ro.ID, ro.State, ErrRolloutOver)
		}
		ro.State = state
		ro.Log = append(ro.Log, RolloutEvent{At: r.Now().UTC(), By: by, Action: state, Detail: why})
		return true, nil
	})
}

// withdraw deletes the offers of ro still under its targets' keys but
// those of the kiosks that took it, which go on reporting the version they
// run and whether they sell.
func (r *Rollouts) withdraw(ctx context.Context, ro Rollout) error {
	for _, k := range ro.Targets {
		if e, err := r.reports().get(ctx, ReportKey(k, ro.ID)); err == nil {
			var rep UpdateReport
			if json.Unmarshal(e.value, &rep) == nil && (rep.Outcome == UpdateInstalling || rep.Outcome == UpdateInstalled) {
				continue
			}
		}
		e, err := r.offers().get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var o UpdateOffer
		if json.Unmarshal(e.value, &o) == nil && o.Rollout != ro.ID {
			continue
		}
		if err := r.offers().delete(ctx, k, e.revision); err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return fmt.Errorf("withdraw the offer to %s: %w", k, err)
		}
	}
	return nil
}

// Rollback stops the rollout id if it runs and sends bundle, which must
// be signed as a rollback and older than the rollout's, to the kiosks that
// took it and did not fail it (installing or installed): a new rollout
// with the same stop rule. by is who asks.
func (r *Rollouts) Rollback(ctx context.Context, id, bundle, by string) (Rollout, error) {
	if by == "" {
		return Rollout{}, errors.New("a rollback says who asks it")
	}
	ro, err := r.Get(ctx, id)
	if err != nil {
		return Rollout{}, err
	}
	b, err := FindBundle(ctx, r.js, bundle)
	if err != nil {
		return Rollout{}, err
	}
	switch {
	case !b.Rollback:
		return Rollout{}, fmt.Errorf("%s (%s): %w", b.Name, b.Version, ErrNotRollback)
	case update.CompareVersions(b.Version, ro.Bundle.Version) >= 0:
		return Rollout{}, fmt.Errorf("%s to replace %s: %w", b.Version, ro.Bundle.Version, ErrRollbackNewer)
	case b.Kind != ro.Bundle.Kind || b.Package != ro.Bundle.Package:
		return Rollout{}, fmt.Errorf("%s %s replacing %s %s: %w", b.Package, b.Kind, ro.Bundle.Package, ro.Bundle.Kind, ErrBundleMismatch)
	case ro.RolledBackBy != "":
		return Rollout{}, fmt.Errorf("rollout %s was rolled back by %s: %w", ro.ID, ro.RolledBackBy, ErrRolloutOver)
	}
	st, err := r.Status(ctx, id)
	if err != nil {
		return Rollout{}, err
	}
	// The kiosks that failed it run their version already.
	var took []string
	for _, k := range st.Kiosks {
		if k.Report != nil && (k.Report.Outcome == UpdateInstalling || k.Report.Outcome == UpdateInstalled) {
			took = append(took, k.Kiosk)
		}
	}
	if len(took) == 0 {
		return Rollout{}, fmt.Errorf("rollout %s: no kiosk took it: %w", id, ErrNoTargets)
	}
	if ro.State == RolloutRunning {
		if _, err := r.stop(ctx, id, RolloutStopped, by, "to roll it back to "+b.Version); err != nil {
			return Rollout{}, err
		}
	}
	to, _ := parseAddress(ro.To)
	maxFailures := ro.MaxFailures
	if maxFailures == 0 {
		maxFailures = -1 // none may fail, as in the rollout taken back
	}
	back, err := r.start(ctx, RolloutSpec{To: to, MaxFailures: maxFailures, TakeTimeout: ro.TakeTimeout, By: by,
		targets: took}, b, id)
	if err != nil {
		return Rollout{}, err
	}
	_, err = r.change(ctx, id, func(ro *Rollout) (bool, error) {
		ro.State, ro.RolledBackBy = RolloutRolledBack, back.ID
		ro.Log = append(ro.Log, RolloutEvent{At: r.Now().UTC(), By: by, Action: RolloutRolledBack,
			Detail: fmt.Sprintf("%s sent to %s by rollout %s", b.Version, strings.Join(took, ", "), back.ID)})
		return true, nil
	})
	return back, err
}

func parseAddress(s string) (Address, bool) {
	if n, ok := strings.CutPrefix(s, "group:"); ok {
		return ToGroup(n), true
	}
	if n, ok := strings.CutPrefix(s, "kiosk:"); ok {
		return ToKiosk(n), true
	}
	return Address{}, false
}

// KioskUpdate is a target's state in a rollout.
type KioskUpdate struct {
	Kiosk  string
	Report *UpdateReport // its last report, nil if none
	// ReportedAt is when the server stored the report (the centre's
	// time, not the kiosk's).
	ReportedAt time.Time
	// Took: it took the update (installing, installed or failed).
	Took bool
	// Failed: it failed, or went out of service after taking it, or did
	// not say it installed it within the rollout's TakeTimeout.
	Failed bool
	Why    string // why Failed
}

// RolloutStatus is a rollout and its targets' states.
type RolloutStatus struct {
	Rollout
	Kiosks                                  []KioskUpdate
	Pending, Installing, Installed, Refused int
	Failed, OutOfService, Took              int
	StopReached                             bool           // failures went past the rollout's share
	Complete                                bool           // every target answered for good
	Versions                                map[string]int // the versions the targets that reported run
	stopDetail                              string
}

// Status reads a rollout and its targets' reports, and says whether the
// stop rule is reached; it changes nothing (Evaluate does).
func (r *Rollouts) Status(ctx context.Context, id string) (RolloutStatus, error) {
	ro, err := r.Get(ctx, id)
	if err != nil {
		return RolloutStatus{}, err
	}
	now := r.Now()
	st := RolloutStatus{Rollout: ro, Versions: map[string]int{}}
	complete := true
	for _, k := range ro.Targets {
		ku := KioskUpdate{Kiosk: k}
		m, _, err := directGet(ctx, r.js.Conn(), "KV_"+UpdateReports, "$KV."+UpdateReports+"."+ReportKey(k, ro.ID))
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
		case err != nil:
			return RolloutStatus{}, fmt.Errorf("report of %s: %w", k, err)
		default:
			var rep UpdateReport
			if err := json.Unmarshal(m.Data, &rep); err != nil || rep.Kiosk != k || rep.Rollout != ro.ID {
				// The kiosk's own key says something else: its credentials
				// wrote it, so it is counted against it.
				rep = UpdateReport{Kiosk: k, Rollout: ro.ID, Outcome: UpdateFailed, Detail: fmt.Sprintf("unreadable report (%v)", err)}
			}
			ku.Report = &rep
			if ts, err := time.Parse(time.RFC3339Nano, m.Header.Get(jetstream.TimeStampHeaer)); err == nil {
				ku.ReportedAt = ts
			}
			st.Versions[rep.Version]++
		}
		switch rep := ku.Report; {
		case rep == nil:
			st.Pending++
			complete = false
		case rep.Outcome == UpdateRefused:
			st.Refused++
		case rep.Outcome == UpdateFailed:
			ku.Took, ku.Failed, ku.Why = true, true, "failed: "+rep.Detail
			st.Failed++
		case rep.Outcome == UpdateInstalling || rep.Outcome == UpdateInstalled:
			ku.Took = true
			switch {
			case !rep.InService:
				ku.Failed, ku.Why = true, "out of service after taking it"
				st.OutOfService++
			case rep.Outcome == UpdateInstalling && !ku.ReportedAt.IsZero() && now.Sub(ku.ReportedAt) > ro.TakeTimeout:
				ku.Failed, ku.Why = true, fmt.Sprintf("took it %s ago and has not said it runs it", now.Sub(ku.ReportedAt).Round(time.Second))
				st.OutOfService++
			case rep.Outcome == UpdateInstalling:
				st.Installing++
				complete = false
			default:
				st.Installed++
			}
		default:
			ku.Took, ku.Failed, ku.Why = true, true, "unknown outcome "+strconv.Quote(rep.Outcome)
			st.Failed++
		}
		if ku.Took {
			st.Took++
		}
		st.Kiosks = append(st.Kiosks, ku)
	}
	bad := st.Failed + st.OutOfService
	st.StopReached = bad > 0 && bad*100 > ro.MaxFailures*st.Took
	st.Complete = complete
	st.stopDetail = fmt.Sprintf("%d of the %d kiosks that took it failed or went out of service (%d%%), more than %d%%",
		bad, st.Took, bad*100/max(st.Took, 1), ro.MaxFailures)
	return st, nil
}

// Evaluate reads a rollout's status and, if it runs and its stop rule is
// reached, stops it by itself (RolloutHalted, by "centre", its offers not
// taken withdrawn).
func (r *Rollouts) Evaluate(ctx context.Context, id string) (RolloutStatus, error) {
	st, err := r.Status(ctx, id)
	if err != nil || st.State != RolloutRunning || !st.StopReached {
		return st, err
	}
	ro, err := r.stop(ctx, id, RolloutHalted, "centre", st.stopDetail)
	if errors.Is(err, ErrRolloutOver) {
		// Stopped by another meanwhile.
		ro, err = r.Get(ctx, id)
	}
	st.Rollout = ro
	return st, err
}

// EvaluateAll evaluates every running rollout.
func (r *Rollouts) EvaluateAll(ctx context.Context) error {
	all, err := r.List(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, ro := range all {
		if ro.State == RolloutRunning {
			if _, err := r.Evaluate(ctx, ro.ID); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Watch evaluates the running rollouts as the kiosks' reports come in, and
// every tick (the take timeout needs no report to pass), until ctx ends:
// the centre's service (pharaon-central updates watch). Each failure goes
// to onErr.
func (r *Rollouts) Watch(ctx context.Context, tick time.Duration, onErr func(error)) error {
	if tick <= 0 {
		tick = time.Minute
	}
	kv, err := r.js.KeyValue(ctx, UpdateReports)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", UpdateReports, err)
	}
	w, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return err
	}
	defer w.Stop() //nolint:errcheck // the watch ends with ctx
	t := time.NewTicker(tick)
	defer t.Stop()
	eval := func() {
		if err := r.EvaluateAll(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
	}
	eval()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("the watch of the reports ended")
			}
			if e == nil {
				continue
			}
			_, rollout, _ := strings.Cut(e.Key(), ".")
			if _, err := r.Evaluate(ctx, rollout); err != nil && !errors.Is(err, ErrNoRollout) && ctx.Err() == nil && onErr != nil {
				onErr(err)
			}
		case <-t.C:
			eval()
		}
	}
}
