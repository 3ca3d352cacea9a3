// Package store keeps every fact of the kiosk that must survive a crash in
// one local SQLite file (DESIGN.md §4): the ticket blocks and their units,
// the plays, the ledger of money movements, the meters, the event log and
// the settings.
//
// Every movement of money goes through it, each as one durable transaction
// (WAL, synchronous=FULL, BEGIN IMMEDIATE on the one writer connection)
// holding the fact, its ledger row with the balance after it, and the
// meters it moves. A play is started by one such transaction (stake debit,
// next unit of the open block, play record: Art. 4.1, "la mise est débitée",
// and the outcome is fixed at that moment) and finished by another that
// credits exactly the prize its unit carried (Art. 4.8), never an amount
// chosen by the caller.
//
// What it must never do: lose or invent a cent, sell a unit twice or skip
// one, credit a play twice, pay a prize other than its unit's, accept a
// block that is not verified end to end, or leave anything behind when an
// operation fails. The schema backs the code: CHECK constraints on amounts
// and balances, unique indexes on the units sold and on idempotency keys,
// triggers refusing to edit or delete ledger rows, units and plays, and
// SHA-256 hash chains over plays, their state changes, the ledger and the
// events, which Verify recomputes.
//
// # How the kiosk uses it
//
// At boot: Open (it takes the database's lock first, and refuses with
// ErrLocked a database another process holds, lock.go; it refuses a file
// that is not a Pharaon database or is from a newer schema, and a file
// system where WAL or synchronous=FULL is not in force; WithAnchor compares
// the chains' heads with their anchor outside the file), VerifyBoot (the schema, the anchor, and the ledger,
// chains, units sold and meters since the last full verification's
// checkpoint) and VerifyBlocks (the units still to sell), then
// UnfinishedPlays: the play a crash interrupted is replayed from its
// recording and finished. VerifyFull (everything, integrity_check
// included, then a new checkpoint) runs in the background.
//
// A play: StartPlay (ErrInsufficientCredit, ErrNoOpenBlock: the stake is
// unavailable), then SaveRecording as the wall is played (a recording
// shorter than the one held is older: ErrStaleRecording), EnterBonus with
// the main wall's recording for a via-bonus unit (or SetPlayState), and
// FinishPlay with what the walls revealed and the amount shown, which must
// be the unit's prize. A write refused because another connection holds
// the database is Transient: nothing was written, it may be tried again.
// One play at a time: StartPlay, VoucherOut and HandPay refuse while the
// last play is unfinished (ErrPlayInProgress).
//
// Cash: BillIn, VoucherOut, HandPay, Adjust, TestModeMovement, each with a
// reference used at most once per kind (ErrDuplicateRef returns the first
// movement), which makes a credit exactly-once across crashes: the caller
// retries with the same reference.
//
// # Design notes
//
// Plays are hash-chained on their immutable part (unit, stake, prize, mode,
// layout version, time). Their state changes are rows of play_steps, a
// chain of its own; the finish step fixes the revealed symbols, the
// mismatch flag and the SHA-256 of the input recording, and Verify checks
// that each play's mutable columns are those of its last step. The ledger
// is chained and checked for continuity (each balance is the previous one
// plus the amount, enforced by a trigger too). The event log keeps the
// newest events; its chain is verified from the oldest kept, whose
// prev_hash anchors it. The vouchers and the bill intents are chained like
// the plays, with their steps. The heads of all the chains are anchored
// outside the file under a per-kiosk secret (anchor.go): a chain cut at
// its end, which leaves it whole, is seen there. A block's issuer signature is kept at import and
// verified at boot over the stored units (VerifyBlocks): unlike the hash
// chains, it cannot be recomputed by whoever holds the file.
//
// Writes run on the go-sqlite3 driver connection directly rather than
// through database/sql, and lists of allowed values in the schema are OR
// chains rather than IN (...): both cost more than SQLite's own work in a
// play (BenchmarkPlayVsBareInsert).
package store
