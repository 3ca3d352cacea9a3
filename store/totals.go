package store

import (
	"context"
	"fmt"
	"time"

	"pharaon/game"
)

// Totals are the ledger's movements of one period (the daily report): per
// kind, how many and how much (amounts as absolute values, in cents), and
// the games by stake. Unlike the meters they are read from the ledger rows
// dated in [From, To).
type Totals struct {
	From, To time.Time
	Count    map[Kind]int64
	Amount   map[Kind]game.Money
	// Plays and Staked, Wins and Won by stake.
	Plays, Wins   map[game.Stake]int64
	Staked, Won   map[game.Stake]game.Money
	Notes         map[game.Money]int64 // bank notes accepted, by denomination
	Collections   int64                // cash box collections in the period
	CollectedCash game.Money
	// VouchersPaid and VouchersPaidAmount are the vouchers staff paid at
	// the counter in the period, read from the vouchers' "paid" steps as
	// the paid meters count them (a payment moves no credit: it has no
	// ledger row). The hand-pays paid at the counter are the ledger's
	// KindHandPay.
	VouchersPaid       int64
	VouchersPaidAmount game.Money
	// PlayerFacts count the player-protection facts of the period by key
	// (FactLimitSet, FactRealityCheck, FactLimitReached).
	PlayerFacts map[string]int64
}

// TotalsBetween adds up the ledger rows dated from from (included) to to
// (excluded).
func (s *Store) TotalsBetween(ctx context.Context, from, to time.Time) (Totals, error) {
	if !from.Before(to) {
		return Totals{}, fmt.Errorf("totals from %v to %v: %w", from, to, ErrBadRequest)
	}
	t := Totals{From: from, To: to, Count: map[Kind]int64{}, Amount: map[Kind]game.Money{},
		Plays: map[game.Stake]int64{}, Wins: map[game.Stake]int64{},
		Staked: map[game.Stake]game.Money{}, Won: map[game.Stake]game.Money{}, Notes: map[game.Money]int64{}}
	a, b := from.UnixNano(), to.UnixNano()
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT kind, count(*), coalesce(sum(abs(amount)), 0) FROM ledger
			WHERE at >= ? AND at < ? GROUP BY kind`, a, b)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			var n, sum int64
			if err := rows.Scan(&k, &n, &sum); err != nil {
				rows.Close()
				return err
			}
			t.Count[Kind(k)], t.Amount[Kind(k)] = n, game.Money(sum)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		rows, err = tx.query(`SELECT l.kind, p.stake, count(*), coalesce(sum(abs(l.amount)), 0) FROM ledger l
			JOIN plays p ON p.id = l.play_id WHERE l.at >= ? AND l.at < ? AND l.kind IN ('stake', 'win')
			GROUP BY l.kind, p.stake`, a, b)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			var st, n, sum int64
			if err := rows.Scan(&k, &st, &n, &sum); err != nil {
				rows.Close()
				return err
			}
			if Kind(k) == KindStake {
				t.Plays[game.Stake(st)], t.Staked[game.Stake(st)] = n, game.Money(sum)
			} else {
				t.Wins[game.Stake(st)], t.Won[game.Stake(st)] = n, game.Money(sum)
			}
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		rows, err = tx.query(`SELECT amount, count(*) FROM ledger WHERE kind = 'bill_in' AND at >= ? AND at < ?
			GROUP BY amount`, a, b)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d, n int64
			if err := rows.Scan(&d, &n); err != nil {
				rows.Close()
				return err
			}
			t.Notes[game.Money(d)] = n
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		var cash, paid int64
		err = tx.queryRow(`SELECT count(*), coalesce(sum(amount), 0) FROM collections WHERE at >= ? AND at < ?`, a, b).
			Scan(&t.Collections, &cash)
		if err != nil {
			return err
		}
		t.CollectedCash = game.Money(cash)
		err = tx.queryRow(`SELECT count(*), coalesce(sum(v.amount), 0) FROM voucher_steps s JOIN vouchers v ON v.id = s.voucher_id
			WHERE s.state = 'paid' AND s.at >= ? AND s.at < ?`, a, b).Scan(&t.VouchersPaid, &paid)
		t.VouchersPaidAmount = game.Money(paid)
		return err
	})
	if err != nil {
		return Totals{}, fmt.Errorf("totals: %w", err)
	}
	if t.PlayerFacts, err = s.PlayerFactCounts(ctx, from, to); err != nil {
		return Totals{}, fmt.Errorf("totals: %w", err)
	}
	return t, nil
}
