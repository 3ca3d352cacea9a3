package esspsim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/essp"
)

func TestControlChannel(t *testing.T) {
	h, _ := newUnit(t, Config{})
	h.poll()
	enable(h)
	in := strings.Join([]string{
		`{"op":"insert","cents":1000}`,
		`{"op":"insert","cents":1000}`,
		`not json`,
		`{"op":"fault","fault":"smoke"}`,
		`{"op":"power-cut"}`,
		`{"op":"power-on"}`,
		`{"op":"status"}`,
	}, "\n")
	var out bytes.Buffer
	require.NoError(t, h.s.ServeControl(strings.NewReader(in), &out))
	var reps []Reply
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Reply
		require.NoError(t, dec.Decode(&r))
		reps = append(reps, r)
	}
	require.Len(t, reps, 7)
	assert.True(t, reps[0].OK)
	assert.Equal(t, "reading", reps[0].State)
	assert.Contains(t, reps[1].Error, "busy")
	assert.Contains(t, reps[2].Error, "bad command")
	assert.Contains(t, reps[3].Error, "unknown fault")
	assert.Equal(t, "off", reps[4].State)
	assert.Equal(t, "idle", reps[6].State)
	assert.Equal(t, 1, reps[6].Counts.Returned, "the note in the path was given back at power-up")
	h.send(essp.CmdSync)
	assert.Contains(t, h.poll(), ev(essp.EvClearedFromFront, 0))
}
