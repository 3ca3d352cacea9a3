package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	pkiosk "pharaon/kiosk"
)

// What the centre provisions (DESIGN.md §11): kiosks create, change or
// delete no stream, bucket or consumer; their permissions do not allow it
// (permissions.go). pharaon-central provision (and serve, at its start)
// runs Provision; pharaon-central kiosk add runs ProvisionKiosk; the
// centre makes an address's object store when it first sends it a block.

// VoucherHistory is how many revisions of a voucher's entry the bucket
// keeps: a voucher's entry is written a handful of times (issued,
// printed, paid, a conflict noted, a claim given back), so the centre
// sees its whole history (PayVoucher refuses an entry that went back).
const VoucherHistory = 16

// Provision creates the fleet's streams and buckets, or brings those
// there up to this configuration: the records (one subject per kiosk, a
// day of de-duplication, every record kept: limits by age or size are the
// operator's to set on the server), the deliveries, and the buckets of the
// vouchers, the block claims, the block results, and the updates' rollouts,
// offers and reports (rollout.go). The buckets a kiosk
// writes take no roll-up (a message with Nats-Rollup: all would purge
// every key, every kiosk's) and no purge or delete through the API.
//
// Each stream and bucket gets replicas copies, one a node of a cluster
// (docs/fleet.md, The centre as a cluster); replicas 0 leaves each as it
// is (one for what is made), so that provisioning again a clustered fleet
// without saying its replicas never takes its copies away.
func Provision(ctx context.Context, js jetstream.JetStream, replicas int) error {
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: RecordsStream, Subjects: []string{RecordsSubject + ">"}, Storage: jetstream.FileStorage,
		Duplicates: 24 * time.Hour, Replicas: replicasOf(ctx, js, RecordsStream, replicas), AllowDirect: true, DenyDelete: true,
	}); err != nil {
		return fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: BlocksStream, Subjects: []string{BlocksSubject + ">"}, Storage: jetstream.FileStorage,
		Duplicates: time.Hour, Replicas: replicasOf(ctx, js, BlocksStream, replicas), DenyDelete: true,
	}); err != nil {
		return fmt.Errorf("stream %s: %w", BlocksStream, err)
	}
	for _, b := range []struct {
		name    string
		history uint8
	}{{VoucherBucket, VoucherHistory}, {ClaimsBucket, 8}, {BlockResults, 4},
		{RolloutsBucket, RolloutHistory}, {UpdateOffers, 4}, {UpdateReports, 8}} {
		if err := provisionBucket(ctx, js, b.name, b.history, replicasOf(ctx, js, "KV_"+b.name, replicas)); err != nil {
			return err
		}
	}
	return nil
}

// replicasOf is want, or when want is 0 the replicas stream has (1 when
// it does not exist, or cannot be read: its creation then says why).
func replicasOf(ctx context.Context, js jetstream.JetStream, stream string, want int) int {
	if want > 0 {
		return want
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return 1
	}
	return max(s.CachedInfo().Config.Replicas, 1)
}

func provisionBucket(ctx context.Context, js jetstream.JetStream, name string, history uint8, replicas int) error {
	if _, err := js.KeyValue(ctx, name); errors.Is(err, jetstream.ErrBucketNotFound) {
		if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, History: history,
			Storage: jetstream.FileStorage, Replicas: replicas}); err != nil {
			return fmt.Errorf("bucket %s: %w", name, err)
		}
	} else if err != nil {
		return fmt.Errorf("bucket %s: %w", name, err)
	}
	s, err := js.Stream(ctx, "KV_"+name)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", name, err)
	}
	// A bucket made before (a fleet provisioned on one server, then
	// clustered) is brought to the replicas as the streams are.
	cfg := s.CachedInfo().Config
	if !cfg.AllowRollup && cfg.DenyPurge && cfg.DenyDelete && cfg.Replicas == replicas {
		return nil
	}
	cfg.AllowRollup, cfg.DenyPurge, cfg.DenyDelete, cfg.Replicas = false, true, true, replicas
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("bucket %s: %w", name, err)
	}
	return nil
}

// ProvisionKiosk makes kiosk's durable consumer of the deliveries, or
// sets its filter again: the deliveries to its id and to groups. The
// server keeps the consumer's position across restarts; the kiosk only
// reads it (its permissions), and learns its groups from its filter.
func ProvisionKiosk(ctx context.Context, js jetstream.JetStream, kiosk string, groups []string) error {
	if err := pkiosk.CheckKioskID(kiosk); err != nil {
		return err
	}
	subjects := []string{ToKiosk(kiosk).Subject()}
	for _, g := range groups {
		if !ValidKioskID(g) {
			return fmt.Errorf("group %q, named as a kiosk is: %w", g, pkiosk.ErrKioskID)
		}
		subjects = append(subjects, ToGroup(g).Subject())
	}
	// One delivery at a time: an import takes seconds.
	_, err := js.CreateOrUpdateConsumer(ctx, BlocksStream, jetstream.ConsumerConfig{
		Durable: BlocksConsumer(kiosk), FilterSubjects: subjects,
		AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait: 5 * time.Minute, MaxAckPending: 1,
	})
	if err != nil {
		return fmt.Errorf("consumer of kiosk %s: %w", kiosk, err)
	}
	return nil
}

// RemoveKiosk deletes kiosk's consumer of the deliveries (a kiosk
// revoked): nothing more is kept for it. Its records and vouchers stay.
func RemoveKiosk(ctx context.Context, js jetstream.JetStream, kiosk string) error {
	err := js.DeleteConsumer(ctx, BlocksStream, BlocksConsumer(kiosk))
	if err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("consumer of kiosk %s: %w", kiosk, err)
	}
	return nil
}

// addressesOf reads a kiosk's addresses from its consumer's filter: the
// centre's word on which groups it is in.
func addressesOf(info *jetstream.ConsumerInfo) ([]Address, error) {
	filters := info.Config.FilterSubjects
	if info.Config.FilterSubject != "" {
		filters = append(filters, info.Config.FilterSubject)
	}
	var out []Address
	for _, f := range filters {
		rest, ok := strings.CutPrefix(f, BlocksSubject)
		if !ok {
			return nil, fmt.Errorf("consumer %s: filter %q is not a delivery address", info.Name, f)
		}
		switch kind, name, _ := strings.Cut(rest, "."); {
		case kind == "kiosk" && ValidKioskID(name):
			out = append(out, ToKiosk(name))
		case kind == "group" && ValidKioskID(name):
			out = append(out, ToGroup(name))
		default:
			return nil, fmt.Errorf("consumer %s: filter %q is not a delivery address", info.Name, f)
		}
	}
	return out, nil
}
