package fleet

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/store"
)

// KioskStatus is a kiosk as the centre sees it from its records.
type KioskStatus struct {
	Kiosk    string
	Records  int64     // records received
	LastSeq  int64     // the last sequence received
	LastSeen time.Time // when the server stored its last record
	LastAt   time.Time // the kiosk's time of its last record
	Credit   int64     // the balance after its last ledger row, cents
	Ledger   int64     // the sum of its ledger movements, cents (equals Credit when whole)
	Plays    int64
	Sales    int64 // stakes debited, cents
	Wins     int64 // wins credited, cents
	BillsIn  int64 // notes credited, cents
	Vouchers int64 // vouchers printed, cents
	Faults   int64 // events of level error or critical
	// RealityChecks, LimitsSet and LimitsReached count the player's
	// protection facts the kiosk recorded (their events, source player:
	// store.EventRealityCheck, EventLimitSet, EventLimitReached).
	RealityChecks, LimitsSet, LimitsReached int64
	// Meters are the kiosk's latest meter snapshot (MetersID, written at
	// MetersAt), nil before the first.
	Meters   store.Meters
	MetersID int64
	MetersAt time.Time
	// Anchors is the number of anchor records received; AnchorMAC the seal
	// of the last (hexadecimal), as the kiosk's reports print its start.
	Anchors   int64
	AnchorMAC string
	// Counter is the highest trust-root counter the kiosk's anchor
	// records carried (0: none carried one). RolledBack says that the
	// kiosk went back: an anchor record whose counter is below one
	// received before, or chains' heads that went back.
	Counter    uint64
	RolledBack bool
	// Problems are what the centre found wrong: a hole in the sequence, a
	// row whose content does not give its hash, a chain whose prev_hash is
	// not the hash before it, a ledger whose sum is not its balance, a meter
	// snapshot that is not what the records give, chains' heads anchored by
	// the kiosk that are not the rows received (a history cut or
	// rewritten), a kiosk rolled back (RolledBack), a record whose content
	// names another kiosk than the subject it was published on, a sealed
	// validation number that does not open; a voucher the kiosk reported
	// paid twice, and its vouchers' entries that are not what its records
	// say (Fleet.CheckVouchers).
	Problems []string
	// Blocks are the blocks the kiosk sells or sold, by their id at the
	// kiosk (the play records' block_id): what its store's block events
	// (store.EventBlockImported, …) and its plays say of each. Id 0 holds
	// the stakes and wins of plays whose record was not received (a
	// history that predates the outbox).
	Blocks map[int64]*BlockReport

	heads    map[string]chainHead // kind → its last row received
	plays    map[int64]playDraw   // play id → its stake and block
	meters   *store.MeterFold     // the meters the records give
	anchored map[string]int64     // kind → its head's id in the last anchor record
	// partial: the records of a chain the meters count began after its
	// first row (a kiosk whose history predates its outbox); its first
	// meter snapshot is then the base the records are counted from.
	partial, based bool
	cut            map[string]bool // kinds whose cut was reported: once per chain, not at every anchor after
	metersOff      bool            // the last snapshot was not what the records give (reported once until one is)
	counterSeq     int64           // the record that carried Counter
	unsealed       bool            // sealed numbers were met without the fleet's voucher key (reported once)
	inClear        bool            // a number in clear was met (reported once)
	vouchers       map[string]voucherSeen
	// voucherIDs are the keys of the vouchers the records hold, by their
	// id at the kiosk; its ids run from firstVoucher to lastVoucher.
	voucherIDs                map[int64]string
	firstVoucher, lastVoucher int64
}

// voucherSeen is what a kiosk's records say of one of its vouchers, by its
// entry's key.
type voucherSeen struct {
	id, amount, expires int64
	state               string
	record              int64 // the sequence of its row's record
}

// chainHead is the last row of a chain received.
type chainHead struct {
	id   int64
	hash string
}

// StakeReport is the fleet's sales and wins at one stake.
type StakeReport struct {
	Stake int64
	Plays int64
	Sales int64
	Wins  int64
}

// BlockReport is one block at one kiosk, from the kiosk's records: its
// sales and wins, and the units drawn from it.
type BlockReport struct {
	Kiosk string
	ID    int64 // the block's id at the kiosk; 0 for plays whose record was not received
	// Emission and Number name the block, from its events; Named is false
	// when none was received (its import predates the kiosk's outbox).
	Emission, Number uint32
	Named            bool
	Stake            int64
	State            string // queued, open, exhausted, withdrawn (store.BlockState); "" unknown
	Plays            int64  // plays received drawn from it
	Sales            int64  // their stakes, cents
	Wins             int64  // their wins, cents
	Sold             int64  // units drawn: the last unit index drawn + 1 (units are drawn in order)
}

// Left is the number of units the block has left to sell: none once
// exhausted or withdrawn.
func (b BlockReport) Left() int64 {
	switch store.BlockState(b.State) {
	case store.BlockQueued, store.BlockOpen:
		return max(game.UnitsPerBlock-b.Sold, 0)
	}
	return 0
}

// Name is "E/N", or the block's id at the kiosk when no event named it.
func (b BlockReport) Name() string {
	switch {
	case b.Named:
		return fmt.Sprintf("%d/%d", b.Emission, b.Number)
	case b.ID == 0:
		return "?"
	}
	return fmt.Sprintf("id %d", b.ID)
}

// StakeStock is a kiosk's stock of units at one stake: the units left in
// its blocks open or queued.
type StakeStock struct {
	Stake  int64
	Left   int64
	Open   []BlockReport // the open block (one, unless the records are odd)
	Queued []BlockReport // in their order of opening
}

// Stock returns the kiosk's stock at each stake of the game, smallest
// first, from its records. Blocks imported before the kiosk's outbox
// began and not drawn from since are not seen.
func (k *KioskStatus) Stock() []StakeStock {
	out := make([]StakeStock, 0, len(game.Stakes))
	for _, st := range game.Stakes {
		s := StakeStock{Stake: int64(st)}
		for _, b := range k.sortedBlocks() {
			if b.Stake != s.Stake {
				continue
			}
			switch store.BlockState(b.State) {
			case store.BlockOpen:
				s.Open = append(s.Open, *b)
			case store.BlockQueued:
				s.Queued = append(s.Queued, *b)
			default:
				continue
			}
			s.Left += b.Left()
		}
		out = append(out, s)
	}
	return out
}

func (k *KioskStatus) sortedBlocks() []*BlockReport {
	out := make([]*BlockReport, 0, len(k.Blocks))
	for _, b := range k.Blocks {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (k *KioskStatus) block(id int64) *BlockReport {
	b := k.Blocks[id]
	if b == nil {
		b = &BlockReport{Kiosk: k.Kiosk, ID: id}
		k.Blocks[id] = b
	}
	return b
}

// blockEvent reads the store's event of a block (imported, opened,
// exhausted, withdrawn): "block E/N at STAKE: id ID…".
func (k *KioskStatus) blockEvent(code, detail string) {
	var state store.BlockState
	switch code {
	case store.EventBlockImported:
		state = store.BlockQueued // opened by the event after it, if it opens at once
	case store.EventBlockOpened:
		state = store.BlockOpen
	case store.EventBlockExhausted:
		state = store.BlockExhausted
	case store.EventBlockWithdrawn:
		state = store.BlockWithdrawn
	default:
		return
	}
	var em, num uint32
	if _, err := fmt.Sscanf(detail, "block %d/%d at ", &em, &num); err != nil {
		return
	}
	_, rest, ok := strings.Cut(detail, " at ")
	if !ok {
		return
	}
	stakeText, rest, ok := strings.Cut(rest, ": id ")
	if !ok {
		return
	}
	var id int64
	if _, err := fmt.Sscanf(rest, "%d", &id); err != nil || id <= 0 {
		return
	}
	b := k.block(id)
	b.Emission, b.Number, b.Named, b.State = em, num, true, string(state)
	for _, st := range game.Stakes {
		if st.String() == stakeText {
			b.Stake = int64(st)
		}
	}
	if state == store.BlockExhausted {
		b.Sold = game.UnitsPerBlock
	}
}

// Fleet folds the records of every kiosk.
type Fleet struct {
	Kiosks  map[string]*KioskStatus
	ByStake map[int64]*StakeReport
	// Keys are the kiosks' anchor secrets (kiosk id → the 32 bytes of its
	// anchor.key), when the operator keeps them: an anchor record whose
	// seal does not hold under its kiosk's secret is reported. Without a
	// kiosk's key its seals are shown, not checked.
	Keys map[string][]byte
	// VoucherMaster is the fleet's voucher key (pharaon-central's
	// voucher-master.key): the centre opens the validation numbers the
	// records carry sealed (voucherkey.go) to recompute their rows'
	// hashes. Without it those rows are not checked, and that is a
	// problem of each kiosk that has some.
	VoucherMaster []byte
}

// NewFleet returns an empty fold.
func NewFleet() *Fleet {
	return &Fleet{Kiosks: map[string]*KioskStatus{}, ByStake: map[int64]*StakeReport{}}
}

// chained are the kinds of records whose rows are hash-chained.
var chained = map[string]bool{"play": true, "play_step": true, "ledger": true, "event": true, "voucher": true, "voucher_step": true,
	"bill_intent": true, "bill_intent_step": true, "meters": true, "credential": true, "pin_lock": true,
	"setting": true, "collection": true}

func (f *Fleet) kiosk(kiosk string) *KioskStatus {
	k := f.Kiosks[kiosk]
	if k == nil {
		k = &KioskStatus{Kiosk: kiosk, heads: map[string]chainHead{}, plays: map[int64]playDraw{},
			Blocks: map[int64]*BlockReport{}, vouchers: map[string]voucherSeen{},
			meters: store.NewMeterFold(), anchored: map[string]int64{}, cut: map[string]bool{}}
		f.Kiosks[kiosk] = k
	}
	return k
}

// Add folds a record read from the stream (ReadRecords): it is credited to
// the kiosk whose subject it came on, the only kiosk allowed to publish
// there; what its content says of its kiosk otherwise is a problem of
// that kiosk, never a record of the kiosk named.
func (f *Fleet) Add(rec Record) {
	k := f.kiosk(rec.Kiosk)
	for _, c := range rec.Claims {
		k.Problems = append(k.Problems, fmt.Sprintf("record %d (stream %d) %s: credited to %s, whose subject it came on",
			rec.Seq, rec.StreamSeq, c, rec.Kiosk))
	}
	f.Apply(rec.Kiosk, rec.OutboxRecord, rec.Stored)
}

// Apply folds one record of kiosk, stored by the server at stored.
func (f *Fleet) Apply(kiosk string, r store.OutboxRecord, stored time.Time) {
	k := f.kiosk(kiosk)
	if r.Seq != k.LastSeq+1 {
		k.Problems = append(k.Problems, fmt.Sprintf("sequence %d after %d", r.Seq, k.LastSeq))
	}
	k.Records++
	k.LastSeq, k.LastSeen, k.LastAt = r.Seq, stored, r.At
	var p struct {
		ID           int64  `json:"id"`
		Stake        int64  `json:"stake"`
		Kind         string `json:"kind"`
		Amount       int64  `json:"amount"`
		BalanceAfter int64  `json:"balance_after"`
		PlayID       int64  `json:"play_id"`
		Level        string `json:"level"`
		Source       string `json:"source"`
		BlockID      int64  `json:"block_id"`
		UnitIdx      int64  `json:"unit_idx"`
		Code         string `json:"code"`
		Detail       string `json:"detail"`
		PrevHash     string `json:"prev_hash"`
		Hash         string `json:"hash"`
	}
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		k.Problems = append(k.Problems, fmt.Sprintf("record %d: %v", r.Seq, err))
		return
	}
	r, opened := f.open(k, r)
	firstOfKind := false
	if chained[r.Kind] {
		head, seen := k.heads[r.Kind]
		firstOfKind = !seen
		// The row's content against its hash, with the store's own
		// function, then its link to the row before it.
		carried, computed, err := store.RecordHash(r.Kind, r.Payload)
		switch {
		case !opened:
			// Its number sealed and no key to open it: not checked
			// (reported once by open).
		case err != nil:
			k.Problems = append(k.Problems, fmt.Sprintf("record %d: %v", r.Seq, err))
		case !bytes.Equal(carried, computed):
			k.Problems = append(k.Problems, fmt.Sprintf("%s %d: content does not match its hash (record %d)", r.Kind, p.ID, r.Seq))
		}
		if seen && !strings.EqualFold(head.hash, p.PrevHash) {
			k.Problems = append(k.Problems, fmt.Sprintf("%s %d: chain broken (record %d)", r.Kind, p.ID, r.Seq))
		} else if !seen && p.ID != 1 && (r.Kind == "ledger" || r.Kind == "play" || r.Kind == "voucher" || r.Kind == "voucher_step") {
			k.partial = true
		}
		k.heads[r.Kind] = chainHead{id: p.ID, hash: p.Hash}
	}
	if err := k.meters.Apply(r); err != nil {
		k.Problems = append(k.Problems, err.Error())
	}
	switch r.Kind {
	case "voucher", "voucher_state":
		k.voucher(r, opened)
	case "meters":
		k.snapshot(r)
	case "anchor":
		k.anchor(r, f.Keys[kiosk])
	case "play":
		k.Plays++
		k.plays[p.ID] = playDraw{stake: p.Stake, block: p.BlockID}
		f.stake(p.Stake).Plays++
		b := k.block(p.BlockID)
		b.Plays++
		b.Stake = p.Stake
		b.Sold = max(b.Sold, p.UnitIdx+1)
		if b.State == "" || b.State == string(store.BlockQueued) {
			// Drawn from: open (its opening predates the records, or
			// its event is to come).
			b.State = string(store.BlockOpen)
		}
	case "ledger":
		if firstOfKind && p.ID != 1 {
			// The history before the outbox: its movements sum to the
			// balance before this row.
			k.Ledger = p.BalanceAfter - p.Amount
		}
		k.Ledger += p.Amount
		k.Credit = p.BalanceAfter
		if k.Ledger != k.Credit {
			k.Problems = append(k.Problems, fmt.Sprintf("ledger %d: balance %d, movements sum to %d", p.ID, p.BalanceAfter, k.Ledger))
			k.Ledger = k.Credit // report once, not at every row after
		}
		switch p.Kind {
		case "stake":
			k.Sales -= p.Amount
			f.stake(k.plays[p.PlayID].stake).Sales -= p.Amount
			k.block(k.plays[p.PlayID].block).Sales -= p.Amount
		case "win":
			k.Wins += p.Amount
			f.stake(k.plays[p.PlayID].stake).Wins += p.Amount
			k.block(k.plays[p.PlayID].block).Wins += p.Amount
		case "bill_in":
			k.BillsIn += p.Amount
		case "voucher_out":
			k.Vouchers -= p.Amount
		}
	case "event":
		if p.Level == "error" || p.Level == "critical" {
			k.Faults++
		}
		if p.Source == "store" {
			k.blockEvent(p.Code, p.Detail)
		}
		if p.Code == EventVoucherPaidTwice {
			k.Problems = append(k.Problems, p.Detail)
		}
		if p.Source == "player" {
			switch p.Code {
			case store.EventRealityCheck:
				k.RealityChecks++
			case store.EventLimitSet:
				k.LimitsSet++
			case store.EventLimitReached:
				k.LimitsReached++
			}
		}
	}
}

// open gives back the validation numbers a kiosk's record carries sealed,
// under the kiosk's key from the fleet's; it reports whether the record
// is whole (nothing sealed, or opened). A seal that does not open is a
// problem: the record was not sealed by its kiosk, or was changed.
func (f *Fleet) open(k *KioskStatus, r store.OutboxRecord) (store.OutboxRecord, bool) {
	if !hasSealed(r) {
		if !k.inClear && hasClearNumber(r) {
			// A bearer number in the stream: a kiosk that does not seal
			// (an older publisher), or its credentials used by hand.
			k.inClear = true
			k.Problems = append(k.Problems, fmt.Sprintf("record %d carries a validation number in clear", r.Seq))
		}
		return r, true
	}
	if f.VoucherMaster == nil {
		if !k.unsealed {
			k.unsealed = true
			k.Problems = append(k.Problems, "voucher rows not checked: their numbers are sealed and the fleet's voucher key was not given")
		}
		return r, false
	}
	keys, err := newVoucherKeys(k.Kiosk, KioskVoucherKey(f.VoucherMaster, k.Kiosk))
	if err == nil {
		r, err = keys.openRecord(r)
	}
	if err != nil {
		k.Problems = append(k.Problems, fmt.Sprintf("record %d: %v", r.Seq, err))
		return r, false
	}
	return r, true
}

// voucher keeps what a voucher's record says of it, by its entry's key,
// for Fleet.CheckVouchers.
func (k *KioskStatus) voucher(r store.OutboxRecord, opened bool) {
	var p struct {
		ID        int64  `json:"id"`
		Key       string `json:"voucher_key"`
		Amount    int64  `json:"amount"`
		ExpiresAt int64  `json:"expires_at"`
		State     string `json:"state"`
	}
	if !opened || json.Unmarshal(r.Payload, &p) != nil || p.Key == "" {
		return
	}
	if k.voucherIDs == nil {
		k.voucherIDs = map[int64]string{}
	}
	if _, ok := k.voucherIDs[p.ID]; !ok {
		k.voucherIDs[p.ID] = p.Key
	}
	if k.firstVoucher == 0 || p.ID < k.firstVoucher {
		k.firstVoucher = p.ID
	}
	k.lastVoucher = max(k.lastVoucher, p.ID)
	seen, ok := k.vouchers[p.Key]
	if !ok || rank(p.State) >= rank(seen.state) {
		seen.state = p.State
	}
	seen.id, seen.amount, seen.expires = p.ID, p.Amount, p.ExpiresAt
	if r.Kind == "voucher" {
		seen.record = r.Seq
	}
	k.vouchers[p.Key] = seen
}

// snapshot takes a meter snapshot's record as the kiosk's meters, and
// compares it with what the records before it give.
func (k *KioskStatus) snapshot(r store.OutboxRecord) {
	var p struct {
		ID            int64  `json:"id"`
		At            int64  `json:"at"`
		LedgerID      int64  `json:"ledger_id"`
		VoucherStepID int64  `json:"voucher_step_id"`
		Meters        string `json:"meters"`
	}
	var m store.Meters
	err := json.Unmarshal(r.Payload, &p)
	if err == nil {
		err = json.Unmarshal([]byte(p.Meters), &m)
	}
	if err != nil || m == nil {
		k.Problems = append(k.Problems, fmt.Sprintf("meter snapshot (record %d): its meters do not decode", r.Seq))
		return
	}
	k.Meters, k.MetersID, k.MetersAt = m, p.ID, time.Unix(0, p.At).UTC()
	f := k.meters
	if (p.LedgerID > 0 && f.LedgerID == 0) || (p.VoucherStepID > 0 && f.VoucherStepID == 0) {
		k.partial = true // rows counted that no record brought
	}
	if k.partial && !k.based {
		// The records do not hold the kiosk's whole history: count from
		// this snapshot on.
		k.based = true
		f.Meters = maps.Clone(m)
		f.LedgerID, f.VoucherStepID = p.LedgerID, p.VoucherStepID
		return
	}
	var diffs []string
	if p.LedgerID != f.LedgerID || p.VoucherStepID != f.VoucherStepID {
		diffs = append(diffs, fmt.Sprintf("counts up to ledger row %d and voucher step %d, the records reached %d and %d",
			p.LedgerID, p.VoucherStepID, f.LedgerID, f.VoucherStepID))
	}
	diffs = append(diffs, store.DiffMeters(m, f.Meters)...)
	if len(diffs) > 0 && !k.metersOff {
		k.Problems = append(k.Problems, fmt.Sprintf("meter snapshot %d (record %d): %s", p.ID, r.Seq, strings.Join(diffs, "; ")))
	}
	k.metersOff = len(diffs) > 0
}

// anchor compares the chains' heads the kiosk anchored, as the record's
// transaction left them, with the last rows received: every row before
// the record in the kiosk's outbox, so they must be the same rows. A
// history cut shows as a chain the kiosk says ends before the rows
// received, or at a row whose hash is not the one received; a head that
// goes back from the previous anchor record is a cut too.
func (k *KioskStatus) anchor(r store.OutboxRecord, key []byte) {
	var a store.AnchorRecord
	if err := json.Unmarshal(r.Payload, &a); err != nil || len(a.Heads) == 0 {
		k.Problems = append(k.Problems, fmt.Sprintf("anchor record %d does not decode", r.Seq))
		return
	}
	k.counter(r)
	if key != nil {
		mac, err := store.AnchorRecordMAC(key, a)
		if err != nil || !strings.EqualFold(hex.EncodeToString(mac), a.MAC) {
			k.Problems = append(k.Problems, fmt.Sprintf("anchor record %d: its seal is not the kiosk's", r.Seq))
		}
	}
	k.Anchors++
	k.AnchorMAC = a.MAC
	for _, h := range a.Heads {
		held, received := k.heads[h.Kind]
		var problem string
		switch {
		case !received && h.ID != 0 && k.partial:
			// A chain whose rows predate the outbox and none since: its
			// head is checked against the next anchor records only.
		case h.ID != held.id:
			problem = fmt.Sprintf("anchor record %d: the kiosk's %s ends at row %d, the records received at row %d",
				r.Seq, h.Table, h.ID, held.id)
		case h.ID != 0 && !strings.EqualFold(h.Hash, held.hash):
			problem = fmt.Sprintf("anchor record %d: the kiosk's %s row %d is not the row received", r.Seq, h.Table, h.ID)
		}
		if prev, ok := k.anchored[h.Kind]; ok && h.ID < prev {
			if problem == "" {
				problem = fmt.Sprintf("anchor record %d: the kiosk's %s ends at row %d", r.Seq, h.Table, h.ID)
			}
			problem = "rolled back: " + problem + fmt.Sprintf(", back from row %d at the previous anchor record", prev)
			k.RolledBack = true
		}
		k.anchored[h.Kind] = h.ID
		if problem != "" && !k.cut[h.Kind] {
			k.cut[h.Kind] = true
			k.Problems = append(k.Problems, problem)
		}
	}
}

// counter reads the trust-root counter an anchor record carries (the
// kiosk's monotonic counter kept off its data disk, DESIGN.md §4): it only
// goes up, so one below a counter received before is a kiosk put back to
// an earlier copy (rolled back). Records written before the store carried
// it have none; once a kiosk's records carried one, a record without is
// reported too.
func (k *KioskStatus) counter(r store.OutboxRecord) {
	var c struct {
		Counter *uint64 `json:"counter"`
	}
	if json.Unmarshal(r.Payload, &c) != nil {
		return
	}
	switch {
	case c.Counter == nil && k.counterSeq != 0:
		k.Problems = append(k.Problems, fmt.Sprintf("anchor record %d carries no counter, anchor record %d carried %d",
			r.Seq, k.counterSeq, k.Counter))
	case c.Counter == nil:
	case *c.Counter < k.Counter:
		k.RolledBack = true
		k.Problems = append(k.Problems, fmt.Sprintf("rolled back: anchor record %d carries counter %d, anchor record %d carried %d",
			r.Seq, *c.Counter, k.counterSeq, k.Counter))
	default:
		k.Counter, k.counterSeq = *c.Counter, r.Seq
	}
}

// playDraw is what a play record says of the play: its stake and the
// block it drew from. A play whose record was not received has the zero
// playDraw: stake 0, block 0.
type playDraw struct {
	stake int64
	block int64 // its id at the kiosk
}

func (f *Fleet) stake(s int64) *StakeReport {
	r := f.ByStake[s]
	if r == nil {
		r = &StakeReport{Stake: s}
		f.ByStake[s] = r
	}
	return r
}

// Sorted returns the kiosks by id.
func (f *Fleet) Sorted() []*KioskStatus {
	out := make([]*KioskStatus, 0, len(f.Kiosks))
	for _, k := range f.Kiosks {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kiosk < out[j].Kiosk })
	return out
}

// Stakes returns the report by stake, smallest first.
func (f *Fleet) Stakes() []StakeReport {
	var out []StakeReport
	for _, r := range f.ByStake {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Stake < out[j].Stake })
	return out
}

// Blocks returns the report by block, every kiosk's: by emission and
// number, then kiosk; the blocks no event named after them, by kiosk and
// id. Its sums equal the report by stake's.
func (f *Fleet) Blocks() []BlockReport {
	var out []BlockReport
	for _, k := range f.Kiosks {
		for _, b := range k.Blocks {
			out = append(out, *b)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Named != b.Named {
			return a.Named
		}
		if a.Emission != b.Emission || a.Number != b.Number {
			return a.Emission < b.Emission || a.Emission == b.Emission && a.Number < b.Number
		}
		if a.Kiosk != b.Kiosk {
			return a.Kiosk < b.Kiosk
		}
		return a.ID < b.ID
	})
	return out
}

// Record is a kiosk's record as the centre reads it from the stream.
type Record struct {
	// Kiosk is the kiosk of the subject it was published on
	// (pharaon.records.<kiosk>), which only that kiosk's credentials may
	// publish on: the record's kiosk, whatever its content says.
	Kiosk string
	store.OutboxRecord
	Stored    time.Time // when the server stored it
	StreamSeq uint64
	// Claims are what the message says of its kiosk or its sequence
	// where that is not its subject's kiosk or its own sequence: a
	// header, its de-duplication id, a field of its content. Each is a
	// problem of Kiosk (Fleet.Add).
	Claims []string
}

// claims lists what a message says against its subject's kiosk.
func claims(kiosk string, r store.OutboxRecord, h nats.Header, data []byte) []string {
	var out []string
	if k := h.Get(HeaderKiosk); k != "" && k != kiosk {
		out = append(out, fmt.Sprintf("names kiosk %q in its header %s", k, HeaderKiosk))
	}
	if id := h.Get(jetstream.MsgIDHeader); id != "" && id != MsgID(kiosk, r.Seq) {
		out = append(out, fmt.Sprintf("has the de-duplication id %q, not %q", id, MsgID(kiosk, r.Seq)))
	}
	if s := h.Get(HeaderSeq); s != "" && s != strconv.FormatInt(r.Seq, 10) {
		out = append(out, fmt.Sprintf("says sequence %q in its header %s", s, HeaderSeq))
	}
	for _, part := range []struct {
		what string
		data []byte
	}{{"message", data}, {"payload", r.Payload}} {
		var c struct {
			Kiosk *string `json:"kiosk"`
		}
		if json.Unmarshal(part.data, &c) == nil && c.Kiosk != nil && *c.Kiosk != kiosk {
			out = append(out, fmt.Sprintf("names kiosk %q in its %s", *c.Kiosk, part.what))
		}
	}
	return out
}

// ReadRecords reads every record of the stream (of one kiosk when kiosk is
// not "") in order and gives each to fn, until the stream's end as it was
// when the read began. A record's kiosk is its subject's (Record).
//
// On a cluster a read can fail while a node stops or the stream's leader
// moves (the stream's information not answered, the consumer gone with
// its node: no responders); it is tried again, up to readRetries times in
// a row, and the ordered consumer's next fetch makes it again from the
// record after the last one given: none given twice, none skipped.
func ReadRecords(ctx context.Context, js jetstream.JetStream, kiosk string, fn func(Record) error) error {
	filter := RecordsSubject + ">"
	if kiosk != "" {
		filter = RecordsSubject + kiosk
	}
	failures := 0
	again := func(err error) error {
		if failures++; failures > readRetries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(readRetryWait):
		}
		return nil
	}
	var stream jetstream.Stream
	var info *jetstream.StreamInfo
	for {
		var err error
		if stream, err = js.Stream(ctx, RecordsStream); err == nil {
			info, err = stream.Info(ctx, jetstream.WithSubjectFilter(filter))
		}
		if err == nil {
			break
		}
		if err := again(err); err != nil {
			return fmt.Errorf("stream %s: %w", RecordsStream, err)
		}
	}
	if info.State.Msgs == 0 {
		return nil
	}
	c, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		return err
	}
	for {
		batch, err := c.Fetch(1024, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			if err := again(err); err != nil {
				return err
			}
			continue
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, err := m.Metadata()
			if err != nil {
				return err
			}
			var r store.OutboxRecord
			if err := json.Unmarshal(m.Data(), &r); err != nil {
				return fmt.Errorf("message %d: %w", meta.Sequence.Stream, err)
			}
			k := strings.TrimPrefix(m.Subject(), RecordsSubject)
			rec := Record{Kiosk: k, OutboxRecord: r, Stored: meta.Timestamp, StreamSeq: meta.Sequence.Stream,
				Claims: claims(k, r, m.Headers(), m.Data())}
			if err := fn(rec); err != nil {
				return err
			}
			if meta.Sequence.Stream >= info.State.LastSeq || meta.NumPending == 0 {
				return nil
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			if err := again(err); err != nil {
				return err
			}
			continue
		}
		if n == 0 {
			return errors.New("the stream ended before its last record")
		}
		failures = 0
	}
}

// readRetries and readRetryWait bound how ReadRecords tries again: about
// 10 s, what the cluster takes to elect a stream's new leader.
const (
	readRetries   = 20
	readRetryWait = 500 * time.Millisecond
)
