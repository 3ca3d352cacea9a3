package main

import (
	"bytes"
	"context"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/helper"
)

// A development run's USB stick is a directory the real helper serves: the
// maintenance screen's view lists it, exports to it and ejects it; it
// installs nothing.
func TestDevelopmentSticks(t *testing.T) {
	data := t.TempDir()
	var logs bytes.Buffer
	sock, stop, err := startDevSticks(data, log.New(&logs, "", 0))
	require.NoError(t, err)
	defer stop()
	c := &helper.Client{Socket: sock}
	ctx := context.Background()
	require.NoError(t, os.WriteFile(filepath.Join(data, devUSBDir, "sda1", "pharaon_9.9.9_amd64.update"), []byte("x"), 0o644))

	sticks, err := c.Sticks(ctx)
	require.NoError(t, err)
	require.Len(t, sticks, 1)
	assert.Equal(t, "sda1", sticks[0].Name)
	assert.Equal(t, []string{"pharaon_9.9.9_amd64.update"}, sticks[0].Updates)

	_, err = c.Check(ctx, "sda1", "pharaon_9.9.9_amd64.update")
	assert.Equal(t, "nokeys", helper.CodeOf(err))

	ex, err := c.Export(ctx, "sda1", "PH-DEV", []helper.File{{Name: "events.csv", Data: []byte("id\n")}}, nil)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(data, devUSBDir, "sda1", ex.Folder, helper.JournalFile))

	require.NoError(t, c.Eject(ctx, "sda1"))
	sticks, err = c.Sticks(ctx)
	require.NoError(t, err)
	assert.Empty(t, sticks, "ejected")
	assert.Contains(t, logs.String(), "eject sda1: done")
}
