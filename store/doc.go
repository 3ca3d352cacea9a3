// Package store keeps every fact of the kiosk that must survive a crash in
// one local SQLite file (DESIGN.md §4): the ticket blocks and their units,
// the plays, the ledger of money movements, the meters, the event log and
// the settings.
//
// Every movement of money goes through it, each as one durable transaction
// (WAL, synchronous=FULL, BEGIN IMMEDIATE on the one writer connection)
// holding the fact, its ledger row with the balance after it, and the
// meters it moves. A play is started by one such transaction (stake debit,
// next unit of the open block, play record: Art. 4.1, "la mise est débitée"
// and the outcome is fixed at that moment) and finished by another that
// credits exactly the prize the unit carried (Art. 4.8), never an amount
// chosen by the caller.
//
// What it must never do: lose or invent a cent, sell a unit twice or skip
// one, credit a play twice, pay a prize other than its unit's, accept a
// block that is not verified end to end, or write anything when an
// operation fails. The schema backs the code: CHECK constraints on amounts
// and balances, unique indexes on units sold and on idempotency keys,
// triggers refusing to edit or delete ledger rows, units and plays, and
// SHA-256 hash chains over plays, their state changes, the ledger and the
// events, which Verify recomputes at boot.
package store
