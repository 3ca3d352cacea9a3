package kiosk

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/store"
)

// stallingLog is a store whose disk stalls: Log blocks until released, and
// keeps what it wrote, in order.
type stallingLog struct {
	mu      sync.Mutex
	written []store.Event
	entered chan struct{} // a Log call started
	release chan struct{} // closed when the disk is back
}

func (l *stallingLog) Log(_ context.Context, e store.Event) (store.Event, error) {
	select {
	case l.entered <- struct{}{}:
	default:
	}
	<-l.release
	l.mu.Lock()
	l.written = append(l.written, e)
	l.mu.Unlock()
	return e, nil
}

// The disk stalls while a burst of device events fills the queue: the
// ordinary events beyond it are dropped and counted, the critical ones are
// all written, in order.
func TestEventLogNeverDropsACriticalEvent(t *testing.T) {
	st := &stallingLog{entered: make(chan struct{}, 1), release: make(chan struct{})}
	l := newEventLog(st)
	l.add(store.Event{Level: store.LevelInfo, Source: "validator", Code: "first"})
	<-st.entered // the writer is stuck on the disk with the first event
	const burst = 600
	for i := 0; i < burst; i++ {
		l.add(store.Event{Level: store.LevelInfo, Source: "validator", Code: "state", Detail: fmt.Sprint(i)})
		if i%100 == 50 {
			l.add(store.Event{Level: store.LevelCritical, Source: "validator", Code: "power_up_credit", Detail: fmt.Sprint(i)})
		}
	}
	close(st.release)
	l.close()

	var critical []string
	dropped := ""
	infos := 0
	for _, e := range st.written {
		switch {
		case e.Level == store.LevelCritical:
			critical = append(critical, e.Detail)
		case e.Code == "events_dropped":
			dropped = e.Detail
		case e.Code == "state":
			infos++
		}
	}
	assert.Equal(t, []string{"50", "150", "250", "350", "450", "550"}, critical, "every critical event, in order")
	require.NotEmpty(t, dropped, "the drops are counted")
	assert.Contains(t, dropped, fmt.Sprintf("%d device events not logged", burst-infos))
	assert.Equal(t, "first", st.written[0].Code)
}
