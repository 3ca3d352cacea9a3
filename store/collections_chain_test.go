package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// TestCollectionEditedOnTheDiskIsAFault is a clerk's attack on the cash
// box: 20 € taken from the box, then the last collection's note meters
// raised with SQL (the trigger dropped and put back as it was) so that the
// box now expects 20 € less. The collections are a chain anchored like the
// ledger: the edit is a fault of the next start, and a collection removed
// (to make the box expect everything since the one before) is too.
func TestCollectionEditedOnTheDiskIsAFault(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	anchoredHistory(t, dir)
	src := copyAnchored(t, dir)
	s, err := Open(src, WithAnchor(DefaultAnchor(src)))
	require.NoError(t, err)
	creditNote(t, s, 20*game.Euro)
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	creditNote(t, s, 20*game.Euro)
	creditNote(t, s, 10*game.Euro)
	box, err := s.CashBox(ctx)
	require.NoError(t, err)
	require.Equal(t, 30*game.Euro, box.Amount)
	require.NoError(t, s.Close())

	for _, c := range []struct{ name, trigger, sql string }{
		{"the meters raised", "collections_fixed",
			`UPDATE collections SET meters = ?1 WHERE id = (SELECT max(id) FROM collections)`},
		{"the last collection removed", "collections_no_delete",
			`DELETE FROM collections WHERE id = (SELECT max(id) FROM collections)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchoredTo(t, filepath.Dir(src), t.TempDir())
			// The trigger in the way dropped and put back with its own text:
			// the schema check sees nothing.
			var trigger, meters string
			db, err := sql.Open("sqlite3", path)
			require.NoError(t, err)
			defer db.Close()
			require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_schema WHERE name = ?`, c.trigger).Scan(&trigger))
			require.NoError(t, db.QueryRow(`SELECT meters FROM collections ORDER BY id DESC LIMIT 1`).Scan(&meters))
			notes, err := decodeNotes(meters)
			require.NoError(t, err)
			notes[20*game.Euro]++ // one 20 € note more "before" the collection
			for _, q := range []string{"DROP TRIGGER " + c.trigger, c.sql, trigger} {
				_, err := db.Exec(q, encodeNotes(notes))
				require.NoError(t, err, q)
			}
			require.NoError(t, db.Close())
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err)
			defer s.Close()
			if c.trigger == "collections_fixed" {
				box, err := s.CashBox(ctx)
				require.NoError(t, err)
				require.Equal(t, 10*game.Euro, box.Amount, "the edit makes the box expect 20 € less")
			}
			err = s.Verify(ctx)
			require.Error(t, err, "the box made to expect less than it held")
			assert.Contains(t, err.Error(), "collections")
			_, err = s.VerifyBoot(ctx)
			require.Error(t, err, "the boot check sees it too")
		})
	}
}
