package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
)

// The boot check of the data, through the real binary: an edited unit, a
// dropped trigger and a cut tail each put the kiosk out of service with
// its fault on the screen (no credit shown), the reason on stderr (the
// journal), and a critical event in its log where the store still takes
// one; a database behind its anchor takes no write at all, so the reason
// is in the journal only, and the data are left as they were. The next
// start is no cleaner: only a technician clears it.
func TestBinarySelfTestOfTheStore(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	r := runBinary(t, dir, "-dev", "-db", filepath.Join(base, "pharaon.db"))
	require.Equal(t, exitOK, r.status, r.stderr)
	require.Equal(t, "SCREEN home  credit=0\n", r.stdout, r.stderr)

	for _, c := range []struct {
		name, sql, fault, says string
		event                  bool
	}{
		{"an edited unit", `DROP TRIGGER units_no_update;
			UPDATE units SET sealed = (SELECT sealed FROM units WHERE block_id = (SELECT min(id) FROM blocks) AND idx = 1)
			WHERE block_id = (SELECT min(id) FROM blocks) AND idx = 0`, kiosk.FaultIntegrity, "units", true},
		{"a dropped trigger", `DROP TRIGGER plays_no_delete`, kiosk.FaultIntegrity, "plays_no_delete", true},
		{"a cut tail", `DROP TRIGGER events_rotation_only; DELETE FROM events WHERE id = (SELECT max(id) FROM events)`,
			kiosk.FaultAnchor, "events", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			require.NoError(t, os.MkdirAll(data, 0o700))
			for _, name := range []string{"pharaon.db", "pharaon.anchor", "trust.secret", "trust.counter"} {
				b, err := os.ReadFile(filepath.Join(base, name))
				require.NoError(t, err, name)
				require.NoError(t, os.WriteFile(filepath.Join(data, name), b, 0o600))
			}
			db := filepath.Join(data, "pharaon.db")
			raw, err := sql.Open("sqlite3", db)
			require.NoError(t, err)
			_, err = raw.Exec(c.sql)
			require.NoError(t, err)
			require.NoError(t, raw.Close())
			before := countEvents(t, db)

			for start := 1; start <= 2; start++ {
				r := runBinary(t, dir, "-dev", "-db", db)
				assertOutOfService(t, r, c.fault, c.says, fmt.Sprintf("start %d", start))
			}
			if !c.event {
				assert.Equal(t, before, countEvents(t, db), "a database behind its anchor takes no write")
				return
			}
			assertFaultLogged(t, db, c.fault, c.says)
		})
	}
}

func countEvents(t *testing.T, db string) int {
	t.Helper()
	raw, err := sql.Open("sqlite3", db)
	require.NoError(t, err)
	defer raw.Close()
	var n int
	require.NoError(t, raw.QueryRow(`SELECT count(*) FROM events`).Scan(&n))
	return n
}
