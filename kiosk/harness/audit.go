package harness

import (
	"context"
	"fmt"
	"sort"

	"pharaon/game"
	"pharaon/store"
)

// Figures are what a kiosk's store says of its money and its units, read
// by Audit after each restart and compared with the devices' own counts.
type Figures struct {
	Credit game.Money // the last ledger row's balance
	// Ledger sums by kind (store.Kind), read row by row from the ledger.
	Ledger map[store.Kind]game.Money
	// LedgerCounts counts the rows by kind.
	LedgerCounts map[store.Kind]int
	// Meters are the store's counters (bills_in, staked, won, …).
	Meters store.Meters
	// Expected is notes in − stakes + wins − vouchers − hand-pays (+
	// adjustments and test movements, which the harness never makes).
	Expected game.Money
	// VerifyErr is Store.Verify's error, "" when the store verifies.
	VerifyErr string
	// Plays sold; UnitProblems lists each block whose sold units are not
	// exactly 0…Sold−1 once each, with the block's own Sold count.
	Plays        int
	Unfinished   int
	UnitProblems []string
	// WinProblems lists each finished play whose win row is not its
	// unit's prize, once.
	WinProblems []string
	// Held are the notes the kiosk holds for staff; Open the intents not
	// settled (a note in escrow or on its way).
	Held, Open int
	HeldSum    game.Money
	// OpenSum is the value of the notes whose STACK was sent and that no
	// report of the validator settled yet: the kiosk holds such a note for
	// staff when the next note comes to escrow (kiosk.settleOpenIntent).
	OpenSum game.Money
	// HeldNotes are the held notes' values by intent id.
	HeldNotes map[int64]game.Money
	// Vouchers by state, and the validation numbers of the printed and
	// paid ones (which paper must exist for).
	Vouchers      map[store.VoucherState]int
	VoucherPaper  map[string]game.Money // validation → amount, for printed, paid and expired vouchers
	VoucherIssued int                   // issued and not yet printed nor void: must be none after a start
	// The rows the harness checks its acknowledged operations against: every
	// play by id (its block, unit and whether it finished), every voucher's
	// state by id, and every validation number the store knows.
	PlayRows      map[int64]PlayRow
	VoucherStates map[int64]store.VoucherState
	Validations   map[string]bool
	// AnchorErr is why the database does not match its anchor (the store
	// refuses every write), "" when it does.
	AnchorErr string
}

// PlayRow is a play as the store holds it.
type PlayRow struct {
	BlockID  int64
	Unit     uint32
	Finished bool
}

// Audit reads the figures of st; with verify, Store.Verify's answer too
// (which reads the whole database: the kiosk's boot check runs it at each
// start).
func Audit(ctx context.Context, st *store.Store, verify bool) (Figures, error) {
	f := Figures{Ledger: map[store.Kind]game.Money{}, LedgerCounts: map[store.Kind]int{},
		Vouchers: map[store.VoucherState]int{}, VoucherPaper: map[string]game.Money{},
		PlayRows: map[int64]PlayRow{}, VoucherStates: map[int64]store.VoucherState{}, Validations: map[string]bool{}}
	if err := st.AnchorErr(); err != nil {
		f.AnchorErr = err.Error()
	}
	var err error
	if f.Credit, err = st.Credit(ctx); err != nil {
		return f, err
	}
	if verify {
		if err := st.Verify(ctx); err != nil {
			f.VerifyErr = err.Error()
		}
	}
	// The ledger, row by row, newest first.
	winsByPlay := map[int64]game.Money{}
	for before := int64(0); ; {
		es, err := st.Entries(ctx, 1000, before)
		if err != nil {
			return f, err
		}
		for _, e := range es {
			f.Ledger[e.Kind] += e.Amount
			f.LedgerCounts[e.Kind]++
			if e.Kind == store.KindWin {
				winsByPlay[e.PlayID] += e.Amount
			}
			before = e.ID
		}
		if len(es) < 1000 {
			break
		}
	}
	l := f.Ledger
	f.Expected = l[store.KindBillIn] + l[store.KindStake] + l[store.KindWin] + l[store.KindVoucherOut] +
		l[store.KindHandPay] + l[store.KindAdjustment] + l[store.KindTest]
	if f.Meters, err = st.Meters(ctx); err != nil {
		return f, err
	}
	// The plays: each block's units sold once each, in order.
	units := map[int64][]uint32{}
	for before := int64(0); ; {
		ps, err := st.LastPlays(ctx, 1000, before)
		if err != nil {
			return f, err
		}
		for _, p := range ps {
			f.Plays++
			units[p.BlockID] = append(units[p.BlockID], p.Unit)
			f.PlayRows[p.ID] = PlayRow{BlockID: p.BlockID, Unit: p.Unit, Finished: p.State == store.PlayFinished}
			if p.State != store.PlayFinished {
				f.Unfinished++
			} else if won := winsByPlay[p.ID]; won != p.Prize {
				f.WinProblems = append(f.WinProblems, fmt.Sprintf("play %d: credited %s, unit prize %s", p.ID, won, p.Prize))
			}
			before = p.ID
		}
		if len(ps) < 1000 {
			break
		}
	}
	blocks, err := st.Blocks(ctx)
	if err != nil {
		return f, err
	}
	for _, b := range blocks {
		u := units[b.ID]
		sort.Slice(u, func(i, j int) bool { return u[i] < u[j] })
		ok := len(u) == b.Sold
		for i, n := range u {
			ok = ok && n == uint32(i)
		}
		if !ok {
			f.UnitProblems = append(f.UnitProblems, fmt.Sprintf("block %d/%d: %d units sold for %d plays", b.Emission, b.Number, b.Sold, len(u)))
		}
	}
	held, err := st.HeldIntents(ctx)
	if err != nil {
		return f, err
	}
	f.HeldNotes = map[int64]game.Money{}
	for _, in := range held {
		f.HeldNotes[in.ID] = in.Denom
		f.Held++
		f.HeldSum += in.Denom
	}
	ins, err := st.BillIntents(ctx, 1_000_000, 0)
	if err != nil {
		return f, err
	}
	for _, in := range ins {
		if in.State.Open() {
			f.Open++
		}
		if in.State == store.IntentStacking {
			f.OpenSum += in.Denom
		}
	}
	vs, err := st.Vouchers(ctx, 1_000_000, 0)
	if err != nil {
		return f, err
	}
	for _, v := range vs {
		f.Vouchers[v.State]++
		f.VoucherStates[v.ID] = v.State
		f.Validations[v.Validation] = true
		switch v.State {
		case store.VoucherPrinted, store.VoucherPaid, store.VoucherExpired:
			f.VoucherPaper[v.Validation] = v.Amount
		case store.VoucherIssued:
			f.VoucherIssued++
		}
	}
	return f, nil
}
