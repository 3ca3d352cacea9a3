package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// The bill intents' chains (schemaV6Anchors): the intents on what never
// changes, their state changes in bill_intent_steps.

const (
	domainIntent     = "pharaon/bill_intent/v1"
	domainIntentStep = "pharaon/bill_intent_step/v1"
)

type intentRow struct {
	id, at, denom  int64
	prevHash, hash []byte
}

type intentStepRow struct {
	id, intentID, at int64
	state            string
	entryID          int64
	reason           string
	prevHash, hash   []byte
}

func intentHash(prev []byte, r *intentRow) []byte {
	return newRowHash(domainIntent, prev).int(r.id).int(r.at).int(r.denom).sum()
}

func intentStepHash(prev []byte, s *intentStepRow) []byte {
	return newRowHash(domainIntentStep, prev).int(s.id).int(s.intentID).int(s.at).str(s.state).
		int(s.entryID).str(s.reason).sum()
}

// insertIntent writes the next intent, pending, chained.
func (t *wtx) insertIntent(id int64, denom int64) error {
	r := intentRow{id: id, at: t.now, denom: denom, prevHash: genesis}
	var last int64
	if err := t.rowQ(`SELECT id, hash FROM bill_intents ORDER BY id DESC LIMIT 1`).Scan(&last, &r.prevHash); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	r.hash = intentHash(r.prevHash, &r)
	if _, err := t.execQ(`INSERT INTO bill_intents(id, at, denom, prev_hash, hash) VALUES (?, ?, ?, ?, ?)`,
		r.id, r.at, r.denom, r.prevHash, r.hash); err != nil {
		return fmt.Errorf("insert intent: %w", err)
	}
	t.heads.set(chIntents, r.id, r.hash)
	return nil
}

// intentStep appends a state change of an intent to its chain.
func (t *wtx) intentStep(intentID int64, state IntentState, entryID int64, reason string) error {
	s := intentStepRow{intentID: intentID, at: t.now, state: string(state), entryID: entryID, reason: reason, prevHash: genesis}
	var last int64
	if err := t.rowQ(`SELECT id, hash FROM bill_intent_steps ORDER BY id DESC LIMIT 1`).Scan(&last, &s.prevHash); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	s.id = last + 1
	s.hash = intentStepHash(s.prevHash, &s)
	if _, err := t.execQ(`INSERT INTO bill_intent_steps(id, intent_id, at, state, entry_id, reason, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.id, s.intentID, s.at, s.state, nullID(entryID), s.reason, s.prevHash, s.hash); err != nil {
		return fmt.Errorf("insert intent step: %w", err)
	}
	t.heads.set(chIntentSteps, s.id, s.hash)
	return nil
}

// intentFollows is the intents' state machine, as bill_intents_forward.
func intentFollows(from, to string) bool {
	switch IntentState(from) {
	case IntentPending:
		return to == string(IntentStacking) || to == string(IntentHeld) || to == string(IntentCredited) || to == string(IntentVoid)
	case IntentStacking:
		return to == string(IntentHeld) || to == string(IntentCredited) || to == string(IntentVoid)
	case IntentHeld:
		return to == string(IntentCredited) || to == string(IntentVoid)
	}
	return false
}

// verifiedIntent is what an intent's steps must agree with.
type verifiedIntent struct {
	state, reason     string
	entry, resolved   int64
	replayed          string
	stepEntry, stepAt int64
	stepReason        string
}

// verifyIntentChains walks the intents' chain from the row after fromID
// (whose hash is prev), then their steps' from the step after fromStep,
// replaying the state of every intent they touch from all its steps.
func verifyIntentChains(tx *rtx, from, fromStep head) error {
	rows, err := tx.query(`SELECT id, at, denom, prev_hash, hash, state, coalesce(entry_id, 0), coalesce(resolved_at, 0), reason
		FROM bill_intents WHERE id > ? ORDER BY id`, from.id)
	if err != nil {
		return fmt.Errorf("verify intents chain: %w", err)
	}
	defer rows.Close()
	if from.id != 0 {
		var r intentRow
		if err := tx.queryRow(`SELECT id, at, denom, prev_hash, hash FROM bill_intents WHERE id = ?`, from.id).
			Scan(&r.id, &r.at, &r.denom, &r.prevHash, &r.hash); err != nil {
			return integrity("chain", "bill_intents", from.id, "the intent checkpointed is missing")
		}
		if err := checkpointRow("bill_intents", from, r.id, r.hash, intentHash(r.prevHash, &r)); err != nil {
			return err
		}
	}
	if fromStep.id != 0 {
		var s intentStepRow
		if err := tx.queryRow(`SELECT id, intent_id, at, state, coalesce(entry_id, 0), reason, prev_hash, hash
			FROM bill_intent_steps WHERE id = ?`, fromStep.id).
			Scan(&s.id, &s.intentID, &s.at, &s.state, &s.entryID, &s.reason, &s.prevHash, &s.hash); err != nil {
			return integrity("chain", "bill_intent_steps", fromStep.id, "the step checkpointed is missing")
		}
		if err := checkpointRow("bill_intent_steps", fromStep, s.id, s.hash, intentStepHash(s.prevHash, &s)); err != nil {
			return err
		}
	}
	touched := map[int64]*verifiedIntent{}
	id, prev := from.id, hashOrGenesis(from)
	for rows.Next() {
		var r intentRow
		w := &verifiedIntent{replayed: string(IntentPending)}
		if err := rows.Scan(&r.id, &r.at, &r.denom, &r.prevHash, &r.hash, &w.state, &w.entry, &w.resolved, &w.reason); err != nil {
			return fmt.Errorf("verify intents chain: %w", err)
		}
		switch {
		case r.id != id+1:
			return integrity("chain", "bill_intents", r.id, "follows intent %d", id)
		case string(r.prevHash) != string(prev):
			return integrity("chain", "bill_intents", r.id, "previous hash does not match intent %d", id)
		case string(intentHash(prev, &r)) != string(r.hash):
			return integrity("chain", "bill_intents", r.id, "content does not match its hash")
		}
		id, prev = r.id, r.hash
		touched[r.id] = w
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify intents chain: %w", err)
	}
	steps, err := tx.query(`SELECT id, intent_id, at, state, coalesce(entry_id, 0), reason, prev_hash, hash
		FROM bill_intent_steps WHERE id > ? ORDER BY id`, fromStep.id)
	if err != nil {
		return fmt.Errorf("verify intent steps chain: %w", err)
	}
	defer steps.Close()
	id, prev = fromStep.id, hashOrGenesis(fromStep)
	var older []int64
	for steps.Next() {
		var s intentStepRow
		if err := steps.Scan(&s.id, &s.intentID, &s.at, &s.state, &s.entryID, &s.reason, &s.prevHash, &s.hash); err != nil {
			return fmt.Errorf("verify intent steps chain: %w", err)
		}
		switch {
		case s.id != id+1:
			return integrity("chain", "bill_intent_steps", s.id, "follows step %d", id)
		case string(s.prevHash) != string(prev):
			return integrity("chain", "bill_intent_steps", s.id, "previous hash does not match step %d", id)
		case string(intentStepHash(prev, &s)) != string(s.hash):
			return integrity("chain", "bill_intent_steps", s.id, "content does not match its hash")
		}
		id, prev = s.id, s.hash
		if _, ok := touched[s.intentID]; !ok {
			touched[s.intentID] = nil
			older = append(older, s.intentID)
		}
	}
	if err := steps.Err(); err != nil {
		return fmt.Errorf("verify intent steps chain: %w", err)
	}
	steps.Close()
	// The intents written before the range whose state moved in it: read
	// as they are now.
	for _, iid := range older {
		w := &verifiedIntent{replayed: string(IntentPending)}
		err := tx.queryRow(`SELECT state, coalesce(entry_id, 0), coalesce(resolved_at, 0), reason FROM bill_intents WHERE id = ?`, iid).
			Scan(&w.state, &w.entry, &w.resolved, &w.reason)
		if errors.Is(err, sql.ErrNoRows) {
			return integrity("chain", "bill_intent_steps", 0, "step of intent %d, which does not exist", iid)
		}
		if err != nil {
			return fmt.Errorf("verify intent steps chain: %w", err)
		}
		touched[iid] = w
	}
	// Replay every touched intent from all its steps.
	for iid, w := range touched {
		st, err := tx.query(`SELECT id, at, state, coalesce(entry_id, 0), reason FROM bill_intent_steps WHERE intent_id = ? ORDER BY id`, iid)
		if err != nil {
			return fmt.Errorf("verify intent steps: %w", err)
		}
		for st.Next() {
			var sid, at, entry int64
			var state, reason string
			if err := st.Scan(&sid, &at, &state, &entry, &reason); err != nil {
				st.Close()
				return fmt.Errorf("verify intent steps: %w", err)
			}
			if !intentFollows(w.replayed, state) || (state == string(IntentCredited)) != (entry != 0) {
				st.Close()
				return integrity("chain", "bill_intent_steps", sid, "intent %d cannot go from %s to %s", iid, w.replayed, state)
			}
			w.replayed, w.stepEntry, w.stepReason = state, entry, reason
			if state == string(IntentVoid) || state == string(IntentCredited) {
				w.stepAt = at
			}
		}
		if err := st.Err(); err != nil {
			return fmt.Errorf("verify intent steps: %w", err)
		}
		switch {
		case w.state != w.replayed:
			return integrity("chain", "bill_intents", iid, "state %s, its steps say %s", w.state, w.replayed)
		case w.entry != w.stepEntry:
			return integrity("chain", "bill_intents", iid, "credit row %d, its steps say %d", w.entry, w.stepEntry)
		case w.state != string(IntentPending) && w.reason != w.stepReason:
			return integrity("chain", "bill_intents", iid, "reason %q, its steps say %q", w.reason, w.stepReason)
		case w.resolved != w.stepAt:
			return integrity("chain", "bill_intents", iid, "resolved at %d, its steps say %d", w.resolved, w.stepAt)
		}
	}
	return nil
}

func hashOrGenesis(h head) []byte {
	if h.id == 0 {
		return genesis
	}
	return h.hash[:]
}
