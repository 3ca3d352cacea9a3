package kiosk

import (
	"errors"
	"sync"
	"time"
)

// Session is one person at the maintenance screen, opened by Access only:
// by a right PIN (Access.Login), or for the first start's setup
// (Access.SetupSession). Its fields are the core's: a Session made
// anywhere else is no session, and the back office refuses it
// (ErrSessionEnded), as it refuses one that ended.
type Session struct {
	role  Role
	since time.Time
	// diagnosis: opened while the kiosk's data failed their checks (or
	// the login could not be recorded); only the diagnosis views' reads
	// are allowed (Office.begin).
	diagnosis bool
	// mu guards last and ended: the screen touches the session on its
	// goroutine while an action runs on another.
	mu    sync.Mutex
	last  time.Time
	ended bool
}

// Role is the role the session's PIN named.
func (s *Session) Role() Role { return s.role }

// Since is when the session was opened.
func (s *Session) Since() time.Time { return s.since }

// Diagnosis reports whether the session only reads the diagnosis (the
// fault, the event log, the software identity, the devices): it was
// opened while the kiosk's data failed their checks, or while the store
// refused to record the login.
func (s *Session) Diagnosis() bool { return s.diagnosis }

// isEnded reports whether s was opened and has ended since.
func (s *Session) isEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// ErrSessionEnded: the session logged out, timed out, or was never opened
// by this kiosk's Access; log in again.
var ErrSessionEnded = errors.New("maintenance session ended")

// sessions is the registry of the sessions Access opened and that have
// not ended.
type sessions struct {
	mu   sync.Mutex
	live map[*Session]struct{}
}

// issue opens a session of role.
func (r *sessions) issue(role Role, now time.Time, diagnosis bool) *Session {
	s := &Session{role: role, since: now, last: now, diagnosis: diagnosis}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live == nil {
		r.live = map[*Session]struct{}{}
	}
	r.live[s] = struct{}{}
	return s
}

// alive reports whether s was opened here and has not ended.
func (r *sessions) alive(s *Session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.live[s]
	return ok
}

// end ends s; it reports whether s was alive.
func (r *sessions) end(s *Session) bool {
	r.mu.Lock()
	_, ok := r.live[s]
	delete(r.live, s)
	r.mu.Unlock()
	if ok {
		s.mu.Lock()
		s.ended = true
		s.mu.Unlock()
	}
	return ok
}

// endRole ends every session of role but keep.
func (r *sessions) endRole(role Role, keep *Session) {
	r.mu.Lock()
	var ending []*Session
	for s := range r.live {
		if s.role == role && s != keep {
			ending = append(ending, s)
		}
	}
	r.mu.Unlock()
	for _, s := range ending {
		r.end(s)
	}
}
