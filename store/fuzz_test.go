package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzImportBlock feeds outside bytes to ImportBlock: none carries a valid
// signature, so every one must be refused as a bad block and leave the
// store untouched but for the event saying so. The committed corpus (testdata/fuzz/FuzzImportBlock)
// starts from pieces of a real block: its header, a few units, a flipped
// byte.
func FuzzImportBlock(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("PHARAONB"))
	s := openTest(f)
	ctx := context.Background()
	before := counts(f, s)
	delete(before, "events") // the rotation keeps their number bounded under a long fuzzing run
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := s.ImportBlock(ctx, bytes.NewReader(data), trusted())
		require.ErrorIs(t, err, ErrBadBlock)
		after := counts(t, s)
		delete(after, "events")
		require.Equal(t, before, after, "nothing written")
		evs, err2 := s.Events(ctx, 1, 0)
		require.NoError(t, err2)
		require.Len(t, evs, 1)
		require.Equal(t, EventBlockRefused, evs[0].Code)
		require.Equal(t, err.Error(), evs[0].Detail)
	})
}

// FuzzProbe feeds outside bytes to the check Open runs on a file before
// SQLite sees it: it must never panic, must refuse what does not start as
// an SQLite file, and let through only this application's or an empty
// database's header of a schema it knows.
func FuzzProbe(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("SQLite format 3\x00"))
	f.Add(append([]byte("SQLite format 3\x00"), make([]byte, 84)...))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "probe.db")
		require.NoError(t, os.WriteFile(path, data, 0o600))
		err := probe(path, len(migrations))
		switch {
		case len(data) == 0:
			assert.NoError(t, err, "an empty file is a new database")
		case len(data) < 100 || !bytes.HasPrefix(data, []byte(sqliteMagic)):
			assert.ErrorIs(t, err, ErrNotSQLite)
		case err == nil:
			version := int32(binary.BigEndian.Uint32(data[60:64]))
			appID := int32(binary.BigEndian.Uint32(data[68:72]))
			assert.True(t, appID == 0 || appID == applicationID, "application id %#x", appID)
			assert.LessOrEqual(t, int(version), len(migrations))
			assert.True(t, version <= 0 || int(version) >= firstRelease, "a development version's schema %d", version)
		default:
			assert.True(t, errors.Is(err, ErrNotPharaon) || errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrOldSchema), "%v", err)
		}
	})
}
