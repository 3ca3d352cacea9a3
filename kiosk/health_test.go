package kiosk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHealthStopsWhenTheWriterHangs: a write that never ends (a store
// blocked in a commit) makes Health wait until its context ends; once the
// write ends, Health answers again.
func TestHealthStopsWhenTheWriterHangs(t *testing.T) {
	f := newFixture(t)
	f.boot()
	require.NoError(t, f.m.Health(ctx), "a healthy kiosk answers")

	release := make(chan struct{})
	inWrite := make(chan struct{})
	f.m.w.submit(func(context.Context, playStore, int) error {
		close(inWrite)
		<-release // the store hangs in this write
		return nil
	}, func(error) {})
	<-inWrite
	hctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err := f.m.Health(hctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a hung writer: no answer")

	close(release)
	require.NoError(t, f.m.Health(ctx), "the write over, the kiosk answers again")
}
