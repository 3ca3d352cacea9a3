package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The centre's claim service (DESIGN.md §11, One kiosk per block): the one
// writer of the bucket ClaimsBucket. A kiosk asks it on its own subject,
// ClaimsSubject+<kiosk>, the only one of them its credentials may publish
// on (KioskPermissions), so the service knows the kiosk from the subject
// and never from what the request says; the reply comes to the kiosk's
// inbox. It claims a block for that kiosk, adds that kiosk to a block's
// Also, or gives back that kiosk's own claim, nothing else: no kiosk's
// credentials can write another kiosk's claim over, delete it, or read
// the bucket. pharaon-central claims runs it beside the operator's
// nats-server (several may run: each request is answered by one of them,
// and the bucket's compare-and-set keeps them in agreement);
// pharaon-central serve runs it in its own process.

// ClaimsSubject prefixes the subject a kiosk asks the claim service on:
// pharaon.claims.<kiosk>.
const ClaimsSubject = "pharaon.claims."

// claimsQueue is the claim services' queue group.
const claimsQueue = "pharaon-claims"

// The operations a kiosk asks for.
const (
	opClaim   = "claim"   // claim a block before importing it
	opLate    = "late"    // claim a block imported while the centre did not answer
	opRelease = "release" // give back the claim named by its token
)

// claimRequest is a kiosk's request. Its kiosk is the subject's.
type claimRequest struct {
	Op       string    `json:"op"`
	Emission uint32    `json:"emission"`
	Number   uint32    `json:"number"`
	SHA256   string    `json:"sha256,omitempty"`
	At       time.Time `json:"at"`
	Via      string    `json:"via,omitempty"`
	Token    string    `json:"token,omitempty"` // release: the claim given back
}

// claimReply is the service's answer.
type claimReply struct {
	// Holder is the claim that holds the block after the request (claim,
	// late): the asking kiosk's, or another kiosk's, whose Token is not
	// told.
	Holder   *BlockClaim `json:"holder,omitempty"`
	Created  bool        `json:"created,omitempty"`
	Added    bool        `json:"added,omitempty"` // late: the kiosk added to the holder's Also
	Released bool        `json:"released,omitempty"`
	// Refused says why a request was not taken as it stands; Error, that
	// the service failed (the bucket did not answer): to be asked again.
	Refused string `json:"refused,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ClaimRefusal is a request the claim service refused as it stands.
type ClaimRefusal struct{ Reason string }

func (e *ClaimRefusal) Error() string { return "the claim service refused the request: " + e.Reason }

// ServeClaims answers the kiosks' claims on nc, a connection as the
// centre (whose user writes the bucket), until stop is called. onError,
// when set, is told of each request the service failed to answer.
func ServeClaims(nc *nats.Conn, onError func(error)) (stop func(), err error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	kv := NewBucket(js, ClaimsBucket)
	sub, err := nc.QueueSubscribe(ClaimsSubject+"*", claimsQueue, func(m *nats.Msg) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kiosk := strings.TrimPrefix(m.Subject, ClaimsSubject)
		r := answerClaim(ctx, kv, kiosk, m.Data)
		if r.Error != "" && onError != nil {
			onError(fmt.Errorf("claim of kiosk %s: %s", kiosk, r.Error))
		}
		data, _ := json.Marshal(r)
		if err := m.Respond(data); err != nil && onError != nil {
			onError(fmt.Errorf("claim of kiosk %s: reply: %w", kiosk, err))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("claim service: %w", err)
	}
	// The subscription is the server's before a kiosk is told to ask.
	if err := nc.Flush(); err != nil {
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("claim service: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// viaPattern is what a claim's Via may be: a few words of how it came.
var viaPattern = regexp.MustCompile(`^[a-z]+( [0-9]{1,20})?$`)

// shaPattern is a file's SHA-256 in hexadecimal.
var shaPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// answerClaim takes kiosk's request data.
func answerClaim(ctx context.Context, kv Bucket, kiosk string, data []byte) claimReply {
	var req claimRequest
	switch err := json.Unmarshal(data, &req); {
	case !ValidKioskID(kiosk):
		return claimReply{Refused: fmt.Sprintf("kiosk %q", kiosk)}
	case err != nil:
		return claimReply{Refused: err.Error()}
	case req.Emission == 0:
		return claimReply{Refused: fmt.Sprintf("block %d/%d: no emission 0", req.Emission, req.Number)}
	case req.Op != opRelease && (!viaPattern.MatchString(req.Via) || req.SHA256 != "" && !shaPattern.MatchString(req.SHA256)):
		return claimReply{Refused: fmt.Sprintf("block %d/%d: via %.40q, file %.70q", req.Emission, req.Number, req.Via, req.SHA256)}
	}
	c := BlockClaim{Kiosk: kiosk, Emission: req.Emission, Number: req.Number, SHA256: req.SHA256, At: req.At, Via: req.Via}
	var r claimReply
	var holder BlockClaim
	var err error
	switch req.Op {
	case opClaim:
		holder, r.Created, err = ClaimBlock(ctx, kv, c)
	case opLate:
		holder, r.Created, r.Added, err = claimLate(ctx, kv, c)
	case opRelease:
		r.Released, err = ReleaseClaim(ctx, kv, kiosk, req.Emission, req.Number, req.Token)
	default:
		return claimReply{Refused: fmt.Sprintf("operation %.20q", req.Op)}
	}
	if err != nil {
		return claimReply{Error: err.Error()}
	}
	if req.Op != opRelease {
		if holder.Kiosk != kiosk {
			holder.Token = "" // another kiosk's: only it gives its claim back
		}
		r.Holder = &holder
	}
	return r
}

// claimsClient is a kiosk's side of the claim service, on its connection.
type claimsClient struct {
	nc    *nats.Conn
	kiosk string
}

// errNoClaimService: the server answers and no claim service does.
var errNoClaimService = errors.New("the centre's claim service does not answer (pharaon-central claims)")

// ask sends req and waits for the service's reply (5 s when ctx has no
// deadline).
func (c claimsClient) ask(ctx context.Context, req claimRequest) (claimReply, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	req.At = req.At.UTC()
	data, err := json.Marshal(req)
	if err != nil {
		return claimReply{}, err
	}
	m, err := c.nc.RequestWithContext(ctx, ClaimsSubject+c.kiosk, data)
	if errors.Is(err, nats.ErrNoResponders) {
		err = errNoClaimService
	}
	if err != nil {
		return claimReply{}, fmt.Errorf("%s block %d/%d: %w", req.Op, req.Emission, req.Number, err)
	}
	var r claimReply
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return claimReply{}, fmt.Errorf("%s block %d/%d: the claim service's reply: %w", req.Op, req.Emission, req.Number, err)
	}
	switch {
	case r.Refused != "":
		return r, &ClaimRefusal{Reason: r.Refused}
	case r.Error != "":
		return r, fmt.Errorf("%s block %d/%d: the claim service failed: %s", req.Op, req.Emission, req.Number, r.Error)
	case req.Op != opRelease && r.Holder == nil:
		return r, fmt.Errorf("%s block %d/%d: the claim service named no holder", req.Op, req.Emission, req.Number)
	}
	return r, nil
}
