package console

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The audit log: every action of an operator (a login, refused or not, a
// payment, a block sent, an alarm acknowledged, an export), one message
// each on AuditSubject of the stream AuditStream, on the fleet's server
// and not on the console's disk. It is written before the action's
// answer: an action whose event could not be written is not done.
const (
	AuditStream  = "PHARAON_CONSOLE_AUDIT"
	AuditSubject = "pharaon.console.audit"
)

// AuditEvent is one operator's action.
type AuditEvent struct {
	At       time.Time `json:"at"`
	Operator string    `json:"operator"` // "" before a login succeeded
	Role     string    `json:"role,omitempty"`
	Action   string    `json:"action"` // login, login_refused, logout, pay, pay_refused, voucher_lookup, send_block, send_refused, ack, export, denied
	Object   string    `json:"object,omitempty"`
	Outcome  string    `json:"outcome,omitempty"`
	Remote   string    `json:"remote,omitempty"` // the client's address
	Seq      uint64    `json:"seq,omitempty"`    // its stream sequence, when read
}

// Audit writes and reads the audit log.
type Audit struct {
	js     jetstream.JetStream
	stream jetstream.Stream
}

// OpenAudit opens (or makes) the audit stream. Its messages are kept as
// long as the server keeps them (no limit of age or number): the
// operator's regulator may ask for them.
func OpenAudit(ctx context.Context, js jetstream.JetStream) (*Audit, error) {
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: AuditStream, Subjects: []string{AuditSubject},
		Description: "the operator's console's audit log", DenyDelete: true, DenyPurge: true})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", AuditStream, err)
	}
	return &Audit{js: js, stream: s}, nil
}

// Write appends e and waits for the server to store it.
func (a *Audit) Write(ctx context.Context, e AuditEvent) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := a.js.Publish(ctx, AuditSubject, b); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Last returns up to n events, the newest first.
func (a *Audit) Last(ctx context.Context, n int) ([]AuditEvent, error) {
	info, err := a.stream.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []AuditEvent
	for seq := info.State.LastSeq; seq >= info.State.FirstSeq && seq > 0 && len(out) < n; seq-- {
		m, err := a.stream.GetMsg(ctx, seq)
		if err != nil {
			continue // a message deleted: the stream denies it, so only a server's loss
		}
		var e AuditEvent
		if json.Unmarshal(m.Data, &e) == nil {
			e.Seq = seq
			out = append(out, e)
		}
	}
	return out, nil
}
