package console

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Webhooks send each new alarm to the addresses set for its kind (or for
// every kind, "*"), as JSON, signed with the operator's shared secret, so
// that the mail or the chat the operator already uses can take it:
//
//	POST URL
//	Content-Type: application/json
//	X-Pharaon-Timestamp: 1764840000
//	X-Pharaon-Signature: sha256=<hex HMAC-SHA256 of "1764840000." + body under the secret>
//
// The timestamp is signed with the body: a receiver refuses a message
// older than it accepts, and a message sent again by someone who read it
// on the way. A failure (no answer, an answer not 2xx) is tried again,
// waiting Backoff, then twice as long, up to Tries times.
type Webhooks struct {
	URLs    map[AlarmKind][]string
	Secret  []byte
	Client  *http.Client
	Tries   int
	Backoff time.Duration
	Now     func() time.Time
	Logf    func(format string, args ...any)

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex // guards closed and the wait group's Add against Close
	closed bool
	wg     sync.WaitGroup
}

// Hook is the JSON a webhook receives: the alarm.
type Hook struct {
	Alarm
}

// NewWebhooks is a sender for urls with secret; Close stops its tries.
func NewWebhooks(urls map[AlarmKind][]string, secret []byte, now func() time.Time) *Webhooks {
	ctx, cancel := context.WithCancel(context.Background())
	return &Webhooks{URLs: urls, Secret: secret, Client: &http.Client{Timeout: 10 * time.Second}, Tries: 6,
		Backoff: time.Second, Now: now, Logf: func(string, ...any) {}, ctx: ctx, cancel: cancel}
}

// Sign is the signature header's value for body sent at timestamp ts.
func Sign(secret []byte, ts int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	fmt.Fprintf(m, "%d.", ts)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Send sends al to its kind's addresses, each on its own goroutine.
func (w *Webhooks) Send(al Alarm) {
	urls := append(append([]string(nil), w.URLs[al.Kind]...), w.URLs["*"]...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	for _, u := range urls {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.deliver(u, al)
		}()
	}
}

func (w *Webhooks) deliver(url string, al Alarm) {
	body, _ := json.Marshal(Hook{Alarm: al})
	wait := w.Backoff
	for try := 1; try <= w.Tries; try++ {
		err := w.post(url, body)
		if err == nil {
			return
		}
		w.Logf("webhook %s, alarm %s, try %d of %d: %v", url, al.ID, try, w.Tries, err)
		if try == w.Tries {
			return
		}
		select {
		case <-w.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (w *Webhooks) post(url string, body []byte) error {
	ts := w.Now().Unix()
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Pharaon-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("X-Pharaon-Signature", Sign(w.Secret, ts, body))
	resp, err := w.Client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("answer %s", resp.Status)
	}
	return nil
}

// Close stops the tries and waits for them.
func (w *Webhooks) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}
