// Package fleet joins a kiosk to a central NATS JetStream (DESIGN.md §11).
//
// The kiosk's SQLite file stays the truth. Every fact the store writes has
// an outbox record in the same transaction (store/outbox_schema.go); the
// Publisher sends those records in order to the stream RecordsStream, one
// subject per kiosk, each with the de-duplication id "<kiosk>-<seq>", and
// moves the store's published mark to what the server acknowledged. It
// runs on its own goroutine and backs off while the server cannot be
// reached: play never waits for it.
//
// Vouchers are also kept in the key-value bucket VoucherBucket, one entry
// per voucher keyed by its kiosk and a keyed hash of its number
// (voucherkey.go): no number leaves a kiosk in clear. Paying one anywhere
// in the fleet is a compare-and-set on the entry's revision, so two
// counters cannot both pay it. A kiosk's counter goes through Registry
// (kiosk.VoucherRegistry): it claims its payout in the bucket before its
// store pays, and the publisher reports a voucher it paid while the centre
// did not answer and that was paid at the centre too (VoucherConflict);
// the centre's counter goes through Vouchers, which pays a voucher only
// once its kiosk's own published records hold it.
//
// Blocks come down from the centre (BlockFetcher, blocks.go), and a block
// is on sale at one kiosk only: a kiosk claims it before importing it
// through the centre's claim service (claimservice.go), the one writer of
// the claims, which acts for the kiosk whose subject the request came on.
//
// A kiosk connects with its own credentials, whose permissions
// (permissions.go) let it touch its own records, vouchers, results and
// deliveries only, and ask the claim service as itself; it creates no stream, bucket or consumer: the centre
// provisions them (provision.go). What this package must never do: trust
// what a record or an entry says of its kiosk over the subject it came on
// or the key it is under.
//
// Central (central.go) folds the records back into each kiosk's status and
// the fleet's report, for cmd/pharaon-central.
package fleet
