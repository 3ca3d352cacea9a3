package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/store"
)

// Registry is a kiosk's side of the fleet's voucher check
// (kiosk.VoucherRegistry): its counter pays a voucher only once the
// bucket VoucherBucket records it paid by a compare-and-set, so the centre
// and the other kiosks then refuse it. It keeps one connection of its own,
// made when first needed and again after it failed; an operation that
// cannot reach the server within Timeout is kiosk.ErrFleetOffline.
type Registry struct {
	cfg Config
	// Timeout bounds each operation, connection included (default 5 s):
	// staff at the counter wait at most that long for the centre.
	Timeout time.Duration

	mu sync.Mutex
	nc *nats.Conn
	kv jetstream.KeyValue
}

var _ kiosk.VoucherRegistry = (*Registry)(nil)

// NewRegistry returns the voucher registry of the kiosk cfg names.
func NewRegistry(cfg Config) (*Registry, error) {
	if cfg.URL == "" {
		return nil, errors.New("fleet: no NATS URL")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &Registry{cfg: cfg, Timeout: 5 * time.Second}, nil
}

// Close closes the registry's connection.
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nc != nil {
		r.nc.Close()
		r.nc = nil
	}
}

func offline(err error) error { return fmt.Errorf("%w: %v", kiosk.ErrFleetOffline, err) }

// bucket returns the bucket on a live connection, connecting if need be.
func (r *Registry) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nc != nil && r.nc.IsConnected() {
		return r.kv, nil
	}
	if r.nc != nil {
		r.nc.Close()
		r.nc = nil
	}
	opts, err := r.cfg.Options()
	if err != nil {
		return nil, err
	}
	if d, ok := ctx.Deadline(); ok {
		opts = append(opts, nats.Timeout(time.Until(d)))
	}
	nc, err := nats.Connect(r.cfg.URL, opts...)
	if err != nil {
		return nil, offline(fmt.Errorf("connect %s: %w", r.cfg.URL, err))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, offline(err)
	}
	_, kv, err := Ensure(ctx, js, r.cfg.Replicas)
	if err != nil {
		nc.Close()
		return nil, offline(err)
	}
	r.nc, r.kv = nc, kv
	return kv, nil
}

// failed drops the connection after an operation failed: the next one
// connects again.
func (r *Registry) failed(err error) error {
	r.mu.Lock()
	if r.nc != nil {
		r.nc.Close()
		r.nc = nil
	}
	r.mu.Unlock()
	return offline(err)
}

func (r *Registry) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 5 * time.Second
}

func (v VoucherEntry) fleetVoucher() kiosk.FleetVoucher {
	f := kiosk.FleetVoucher{Kiosk: v.Kiosk, ID: v.ID, Amount: game.Money(v.Amount), Expires: v.Expires().UTC(), State: v.State,
		PaidKiosk: v.PaidKiosk, PaidBy: v.PaidBy}
	if v.PaidAt != 0 {
		f.PaidAt = time.Unix(0, v.PaidAt).UTC()
	}
	return f
}

// Lookup reads a voucher of any kiosk of the fleet.
func (r *Registry) Lookup(ctx context.Context, validation string) (kiosk.FleetVoucher, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	kv, err := r.bucket(ctx)
	if err != nil {
		return kiosk.FleetVoucher{}, err
	}
	e, err := LookupVoucher(ctx, kv, validation)
	if errors.Is(err, ErrVoucherUnknown) {
		return kiosk.FleetVoucher{}, fmt.Errorf("%w: %w", store.ErrNotFound, ErrVoucherUnknown)
	}
	if err != nil {
		return kiosk.FleetVoucher{}, r.failed(err)
	}
	return e.fleetVoucher(), nil
}

// Claim records that this kiosk's counter pays its voucher c: the entry
// becomes paid by this kiosk if it is issued or printed (the kiosk's own
// store said it is printed and payable: its records may not have reached
// the centre yet) or absent (created paid), by a compare-and-set on its
// revision. An entry paid by this kiosk already (a claim whose payment the
// kiosk did not record) is claimed again; one paid elsewhere is refused
// with kiosk.ErrPaidElsewhere; one void, expired, or of another kiosk with
// kiosk.ErrFleetRefused. The release puts the entry back as it was, if no
// one wrote it since.
func (r *Registry) Claim(ctx context.Context, c kiosk.VoucherClaim) (func(context.Context) error, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	kv, err := r.bucket(ctx)
	if err != nil {
		return nil, err
	}
	me := r.cfg.KioskID
	for {
		cur, err := LookupVoucher(ctx, kv, c.Validation)
		var before VoucherEntry
		create := errors.Is(err, ErrVoucherUnknown)
		switch {
		case create:
			before = VoucherEntry{Validation: c.Validation, Kiosk: me, ID: c.ID, Amount: int64(c.Amount),
				ExpiresAt: c.Expires.UnixNano(), State: string(store.VoucherPrinted)}
		case err != nil:
			return nil, r.failed(err)
		case cur.Kiosk != me || cur.ID != c.ID:
			return nil, &kiosk.FleetRefusal{Voucher: cur.fleetVoucher(),
				Err: fmt.Errorf("the centre gives this number to voucher %d of kiosk %s: %w", cur.ID, cur.Kiosk, kiosk.ErrFleetRefused)}
		case cur.State == string(store.VoucherPaid) && cur.PaidKiosk == me:
			return func(context.Context) error { return nil }, nil
		case cur.State == string(store.VoucherPaid):
			return nil, &kiosk.FleetRefusal{Voucher: cur.fleetVoucher(),
				Err: fmt.Errorf("voucher %d: %w", c.ID, kiosk.ErrPaidElsewhere)}
		case rank(cur.State) == rank(string(store.VoucherPaid)):
			return nil, &kiosk.FleetRefusal{Voucher: cur.fleetVoucher(),
				Err: fmt.Errorf("voucher %d is %s for the centre: %w", c.ID, cur.State, kiosk.ErrFleetRefused)}
		default:
			before = cur
		}
		paid := before
		paid.State, paid.PaidKiosk, paid.PaidBy, paid.PaidAt = string(store.VoucherPaid), me, c.By, c.At.UnixNano()
		data, _ := json.Marshal(paid)
		var rev uint64
		if create {
			rev, err = kv.Create(ctx, c.Validation, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // its record arrived meanwhile: decide again
			}
		} else {
			rev, err = kv.Update(ctx, c.Validation, data, cur.Revision)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				continue // written meanwhile: decide again
			}
		}
		if err != nil {
			return nil, r.failed(err)
		}
		back, _ := json.Marshal(before)
		return func(ctx context.Context) error {
			kv, err := r.bucket(ctx)
			if err != nil {
				return err
			}
			if _, err := kv.Update(ctx, c.Validation, back, rev); err != nil {
				return fmt.Errorf("voucher %d: give back the claim: %w", c.ID, err)
			}
			return nil
		}, nil
	}
}
