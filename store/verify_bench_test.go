package store

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// BenchmarkBootCheck measures the kiosk's boot check (Verify, then
// VerifyBlocks: what kiosk.Machine.Start runs before selling) on a database
// holding three full blocks of 350 000 units, one per stake, all still to
// sell: the most units a kiosk with one open block per stake checks. Its
// baseline is the bare read SQLite cannot avoid, every unit's columns read
// through database/sql on the same file in the same loop; the ratio of the
// medians is boot/bare (boot-signed: every unit opened with the kiosk's
// key, units_seal.go, and the issuer's signature checked, Ed25519ph over
// SHA-512 of each block's 4,9 MB). The start-up budget is 3 s for the
// check.
func BenchmarkBootCheck(b *testing.B) {
	ctx := context.Background()
	s := openWith(b, blockID{1, 1, game.Stake050}, blockID{1, 2, game.Stake100}, blockID{1, 3, game.Stake200})
	bare, err := sql.Open("sqlite3", s.Path()+"?mode=ro")
	require.NoError(b, err)
	defer bare.Close()
	var bootTime, bareTime timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		var n, sum int64
		rows, err := bare.QueryContext(ctx, `SELECT idx, sealed FROM units ORDER BY block_id, idx`)
		require.NoError(b, err)
		for rows.Next() {
			var idx int64
			var sealed []byte
			require.NoError(b, rows.Scan(&idx, &sealed))
			n++
			sum += int64(sealed[0])
		}
		require.NoError(b, rows.Err())
		rows.Close()
		bareTime = append(bareTime, time.Since(t0))
		require.Equal(b, int64(3*game.UnitsPerBlock), n)

		t0 = time.Now()
		require.NoError(b, s.Verify(ctx))
		require.NoError(b, s.VerifyBlocks(ctx, trusted()))
		bootTime = append(bootTime, time.Since(t0))
	}
	report(b, "boot-signed", bootTime, bareTime)
}
