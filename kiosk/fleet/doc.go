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
// per validation number; paying one anywhere in the fleet is a
// compare-and-set on the entry's revision (PayVoucher), so two counters
// cannot both pay it. A kiosk's counter goes through Registry
// (kiosk.VoucherRegistry): it records its payout in the bucket before its
// store does, and the publisher reports a voucher it paid while the centre
// did not answer and that was paid elsewhere too (VoucherConflict).
//
// Central (central.go) folds the records back into each kiosk's status and
// the fleet's report, for cmd/pharaon-central.
package fleet
