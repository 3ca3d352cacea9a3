package fleet

import "slices"

// The fleet's permissions (DESIGN.md §11, docs/fleet.md "Fleet
// permissions"). The centre provisions every stream, bucket and consumer
// (provision.go) and holds every right; a kiosk's user, which
// pharaon-central issues with KioskPermissions, may publish on the
// subjects below with its own id in them and nothing else. What it may
// not do, the server refuses: publish another kiosk's records, write
// another kiosk's vouchers or results, read another's deliveries or block
// files, list a stream or a bucket, create, change or delete any stream,
// bucket or consumer, read another's replies. Where the subject alone
// cannot say whose an operation is (the body of a JetStream API request
// can name anything), the kiosk is given no such API at all: its reads
// are direct gets whose subject names the message (kv.go).

// Permissions are the subjects a NATS user may publish to and subscribe
// to: the allow lists of its JWT (kiosk/fleet/authority).
type Permissions struct {
	Publish, Subscribe []string
}

// InboxPrefix is the prefix of a kiosk's reply subjects: the server sends
// its answers (acknowledgements, gets, fetched deliveries, file chunks)
// there, and the kiosk may subscribe there only, so it never reads the
// answers meant for another.
func InboxPrefix(kiosk string) string { return "_INBOX." + kiosk }

// BlocksConsumer is the name of a kiosk's durable consumer of the
// deliveries (made by the centre: ProvisionKiosk).
func BlocksConsumer(kiosk string) string { return "blocks-" + kiosk }

// KioskPermissions are kiosk's permissions as a member of groups:
//   - its records: publish on pharaon.records.<kiosk> (the stream
//     acknowledges to its inbox) and read its own last record there;
//   - its vouchers: read and write the keys <kiosk>.* of the bucket
//     vouchers, and no other key (a key is the kiosk and the keyed hash
//     of the number, vouchers.go);
//   - the block claims: ask the centre's claim service on
//     pharaon.claims.<kiosk> (claimservice.go), which writes the bucket
//     pharaon-block-claims for that kiosk only; no right on the bucket;
//   - its results: write the keys <kiosk>.* of pharaon-block-results;
//   - its deliveries: read its consumer's state, fetch from it and
//     acknowledge its messages (the consumer's filter, set by the centre,
//     is its id and its groups), and read the block files of its own
//     object store and its groups' (BlockObjectsFor);
//   - its updates (rollout.go): read its own offer in
//     pharaon-update-offers, read the bundles of its own update store
//     and its groups' (UpdateObjectsFor), write and read its own reports
//     (keys <kiosk>.*) of pharaon-update-reports; nothing of the rollouts
//     or of the centre's catalogue of bundles.
func KioskPermissions(kiosk string, groups []string) Permissions {
	cons := BlocksConsumer(kiosk)
	pub := []string{
		RecordsSubject + kiosk,
		directGetSubject(RecordsStream, RecordsSubject+kiosk),
		kvSubject(VoucherBucket, kiosk+".>"),
		directGetSubject("KV_"+VoucherBucket, kvSubject(VoucherBucket, kiosk+".>")),
		ClaimsSubject + kiosk,
		kvSubject(BlockResults, kiosk+".>"),
		"$JS.API.CONSUMER.INFO." + BlocksStream + "." + cons,
		"$JS.API.CONSUMER.MSG.NEXT." + BlocksStream + "." + cons,
		"$JS.ACK." + BlocksStream + "." + cons + ".>",
		directGetSubject("KV_"+UpdateOffers, kvSubject(UpdateOffers, kiosk)),
		kvSubject(UpdateReports, kiosk+".>"),
		directGetSubject("KV_"+UpdateReports, kvSubject(UpdateReports, kiosk+".>")),
	}
	addresses := []Address{ToKiosk(kiosk)}
	for _, g := range groups {
		addresses = append(addresses, ToGroup(g))
	}
	for _, a := range addresses {
		// An object is read by an ordered consumer the client makes on
		// the object store's own stream, which holds only the files sent
		// to that address: its info, its direct gets (an object's
		// description), its consumers (made and deleted by the client)
		// and their flow control.
		// The same for the update bundles sent to it.
		for _, s := range []string{"OBJ_" + BlockObjectsFor(a), "OBJ_" + UpdateObjectsFor(a)} {
			pub = append(pub,
				"$JS.API.STREAM.INFO."+s,
				"$JS.API.DIRECT.GET."+s+".>",
				"$JS.API.CONSUMER.CREATE."+s+".>",
				"$JS.API.CONSUMER.DELETE."+s+".>",
				"$JS.FC."+s+".>",
			)
		}
	}
	return Permissions{Publish: slices.Clip(pub), Subscribe: []string{InboxPrefix(kiosk) + ".>"}}
}

func kvSubject(bucket, key string) string { return "$KV." + bucket + "." + key }

func directGetSubject(stream, subject string) string {
	return "$JS.API.DIRECT.GET." + stream + "." + subject
}
