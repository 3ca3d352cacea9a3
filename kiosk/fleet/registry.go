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
	cfg  Config
	keys voucherKeys
	// Timeout bounds each operation, connection included (default 5 s):
	// staff at the counter wait at most that long for the centre.
	Timeout time.Duration

	mu sync.Mutex
	nc *nats.Conn
	kv Bucket
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
	keys, err := cfg.voucherKeys()
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	return &Registry{cfg: cfg, keys: keys, Timeout: 5 * time.Second}, nil
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
func (r *Registry) bucket(ctx context.Context) (Bucket, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nc != nil && r.nc.IsConnected() {
		return r.kv, nil
	}
	if r.nc != nil {
		r.nc.Close()
		r.nc = nil
	}
	nc, js, err := connectWithin(ctx, r.cfg)
	if err != nil {
		return Bucket{}, offline(err)
	}
	r.nc, r.kv = nc, NewBucket(js, VoucherBucket)
	return r.kv, nil
}

// connectWithin connects as cfg's kiosk within ctx's deadline.
func connectWithin(ctx context.Context, cfg Config) (*nats.Conn, jetstream.JetStream, error) {
	var extra []nats.Option
	if d, ok := ctx.Deadline(); ok {
		extra = append(extra, nats.Timeout(time.Until(d)))
	}
	nc, err := cfg.connect(extra...)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
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

// Lookup reads what the fleet holds of this kiosk's voucher numbered
// validation. A kiosk computes the keys of its own vouchers only, and may
// read no other kiosk's entries (its permissions): another kiosk's
// voucher is unknown here, as to the kiosk's store, and is paid at its
// kiosk or at the centre. An entry found is one of this kiosk's the store
// does not hold (a store put back to an older copy).
func (r *Registry) Lookup(ctx context.Context, validation string) (kiosk.FleetVoucher, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	kv, err := r.bucket(ctx)
	if err != nil {
		return kiosk.FleetVoucher{}, err
	}
	e, err := LookupVoucher(ctx, kv, r.keys.entryKey(validation))
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
// kiosk did not record) is claimed again; one paid elsewhere (at the
// centre) is refused with kiosk.ErrPaidElsewhere; one void, expired, or
// whose number at the kiosk is not c's with kiosk.ErrFleetRefused. The
// release puts the entry back as it was, if no one wrote it since.
func (r *Registry) Claim(ctx context.Context, c kiosk.VoucherClaim) (func(context.Context) error, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	kv, err := r.bucket(ctx)
	if err != nil {
		return nil, err
	}
	me, key := r.cfg.KioskID, r.keys.entryKey(c.Validation)
	for {
		cur, err := LookupVoucher(ctx, kv, key)
		var before VoucherEntry
		create := errors.Is(err, ErrVoucherUnknown)
		switch {
		case create:
			before = VoucherEntry{Kiosk: me, ID: c.ID, Amount: int64(c.Amount),
				ExpiresAt: c.Expires.UnixNano(), State: string(store.VoucherPrinted), Key: key}
		case errors.Is(err, ErrVoucherForged):
			return nil, &kiosk.FleetRefusal{Err: fmt.Errorf("voucher %d: %v: %w", c.ID, err, kiosk.ErrFleetRefused)}
		case err != nil:
			return nil, r.failed(err)
		case cur.ID != c.ID:
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
		case cur.State == stateClaimed:
			// A claim of this kiosk whose payment its records have not
			// told yet (a crash, a refusal whose give-back was lost):
			// claimed again, given back to printed.
			before = cur
			before.State, before.PaidKiosk, before.PaidBy, before.PaidAt = string(store.VoucherPrinted), "", "", 0
		default:
			before = cur
		}
		// Claimed, not paid: the entry becomes paid when the kiosk's
		// record of the payment is published (applyVoucherRecord). A
		// claim goes back to printed when the store refuses the payment;
		// a paid entry never goes back (the centre refuses one that did).
		claimed := before
		claimed.State, claimed.PaidKiosk, claimed.PaidBy, claimed.PaidAt = stateClaimed, me, c.By, c.At.UnixNano()
		data, _ := json.Marshal(claimed)
		var rev uint64
		if create {
			rev, err = kv.create(ctx, key, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // its record arrived meanwhile: decide again
			}
		} else {
			rev, err = kv.update(ctx, key, data, cur.Revision)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				continue // written meanwhile: decide again
			}
		}
		if err != nil {
			return nil, r.failed(err)
		}
		return func(ctx context.Context) error {
			kv, err := r.bucket(ctx)
			if err != nil {
				return err
			}
			back, at := before, rev
			for {
				data, _ := json.Marshal(back)
				_, err := kv.update(ctx, key, data, at)
				if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
					if err != nil {
						return fmt.Errorf("voucher %d: give back the claim: %w", c.ID, err)
					}
					return nil
				}
				// Written since: given back if it is still this claim,
				// which the kiosk's records only told where they are.
				cur, lerr := LookupVoucher(ctx, kv, key)
				if lerr != nil || cur.State != stateClaimed || cur.PaidKiosk != me || cur.PaidBy != claimed.PaidBy ||
					cur.PaidAt != claimed.PaidAt {
					return fmt.Errorf("voucher %d: give back the claim: %w", c.ID, err)
				}
				back.Record, back.StateRecord, back.RecordAt, back.StateAt = cur.Record, cur.StateRecord, cur.RecordAt, cur.StateAt
				at = cur.Revision
			}
		}, nil
	}
}
