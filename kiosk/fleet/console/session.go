package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// A session is an operator logged in: its token is the cookie's value,
// its CSRF token what every form of its pages carries back. Sessions live
// in the console's memory: a console started again asks everyone to log
// in again.
type session struct {
	token, csrf string
	name        string
	role        Role
	started     time.Time
	seen        time.Time
}

// How long a session lasts: idle, then at most.
const (
	sessionIdle = 30 * time.Minute
	sessionMax  = 12 * time.Hour
	cookieName  = "pharaon_console"
)

type sessions struct {
	mu    sync.Mutex
	m     map[string]*session
	fails map[string][]time.Time // name → its refused logins in the last loginWindow
}

// A name refused loginTries times within loginWindow is refused for the
// rest of the window, its right password too: guessing costs 15 minutes
// per five tries, on top of argon2id.
const (
	loginTries  = 5
	loginWindow = 15 * time.Minute
)

func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *sessions) start(name string, role Role, now time.Time) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ses := &session{token: newToken(), csrf: newToken(), name: name, role: role, started: now, seen: now}
	s.m[ses.token] = ses
	delete(s.fails, name)
	return ses
}

// get is the session of the request's cookie, alive at now.
func (s *sessions) get(r *http.Request, now time.Time) *session {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ses := s.m[c.Value]
	if ses == nil {
		return nil
	}
	if now.Sub(ses.seen) > sessionIdle || now.Sub(ses.started) > sessionMax {
		delete(s.m, c.Value)
		return nil
	}
	ses.seen = now
	return ses
}

func (s *sessions) end(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, token)
}

// locked says whether name is refused for its failed logins.
func (s *sessions) locked(name string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var recent []time.Time
	for _, t := range s.fails[name] {
		if now.Sub(t) < loginWindow {
			recent = append(recent, t)
		}
	}
	s.fails[name] = recent
	return len(recent) >= loginTries
}

func (s *sessions) failed(name string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[name] = append(s.fails[name], now)
}

// csrfOK compares the form's token with the session's in constant time.
func (ses *session) csrfOK(r *http.Request) bool {
	got := r.PostFormValue("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(ses.csrf)) == 1
}
