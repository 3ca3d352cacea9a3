package game

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// regulation is game/testdata/reglement-pharaon.txt, a copy of the official
// text. These tests read the tables from it, so the data of table.go and
// combination.go are checked against the regulation itself, not against
// numbers retyped in a test.
func regulation(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/reglement-pharaon.txt")
	require.NoError(t, err)
	return string(b)
}

func parseEuros(t *testing.T, s string) Money {
	t.Helper()
	m, err := ParseMoney(s)
	require.NoError(t, err, s)
	return m
}

type printedRow struct {
	lots          int
	amount, total Money
}

type printedTable struct {
	rows        []printedRow
	closingLots int
	closingSum  Money
}

var (
	sectionRe = regexp.MustCompile(`3\.(\d)\. Pour chaque bloc d'unités de jeu à ([\d,]+) €`)
	rowRe     = regexp.MustCompile(`\|\s*([\d ]+?)\s*\|\s*([\d ,]+?) €\s*\|\s*([\d ]+?) €\s*\|`)
	closingRe = regexp.MustCompile(`Soit ([\d ]+?) lots formant un total de[ .]*([\d ]+?) €`)
)

// art3Printed reads the three prize tables of Art. 3 from the regulation.
func art3Printed(t *testing.T) map[Stake]printedTable {
	t.Helper()
	text := regulation(t)
	out := map[Stake]printedTable{}
	locs := sectionRe.FindAllStringSubmatchIndex(text, -1)
	require.Len(t, locs, 3, "three prize tables in Art. 3")
	for i, loc := range locs {
		end := strings.Index(text, "Article 4")
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := text[loc[1]:end]
		stake, err := ParseStake(text[loc[4]:loc[5]])
		require.NoError(t, err)
		var pt printedTable
		for _, m := range rowRe.FindAllStringSubmatch(body, -1) {
			lots, err := strconv.Atoi(strings.ReplaceAll(m[1], " ", ""))
			require.NoError(t, err)
			pt.rows = append(pt.rows, printedRow{lots, parseEuros(t, m[2]), parseEuros(t, m[3])})
		}
		c := closingRe.FindStringSubmatch(body)
		require.NotNil(t, c, "closing line of table %d", i+1)
		pt.closingLots, err = strconv.Atoi(strings.ReplaceAll(c[1], " ", ""))
		require.NoError(t, err)
		pt.closingSum = parseEuros(t, c[2])
		out[stake] = pt
	}
	return out
}

func TestPrizeTablesMatchArticle3(t *testing.T) {
	printed := art3Printed(t)
	for _, s := range Stakes {
		p := printed[s]
		tab := Table(s)
		require.Len(t, p.rows, NumTiers, "rows of the table at %s", s)
		for i, r := range p.rows {
			got := tab.Prizes[i]
			assert.Equal(t, Tier(i+1), got.Tier)
			assert.Equal(t, r.lots, got.Lots, "lots of tier %d at %s", i+1, s)
			assert.Equal(t, r.amount, got.Amount, "amount of tier %d at %s", i+1, s)
			// The printed TOTAL column agrees with lots × amount on every row.
			assert.Equal(t, r.total, Money(got.Lots)*got.Amount, "row total of tier %d at %s", i+1, s)
		}
		assert.Equal(t, p.closingLots, tab.Lots(), "lots per block at %s", s)
	}
}

func TestPrizeTableTotals(t *testing.T) {
	printed := art3Printed(t)
	// 1 € and 2 €: the printed closing total is the sum of the rows.
	assert.Equal(t, printed[Stake100].closingSum, Table(Stake100).Total())
	assert.Equal(t, printed[Stake200].closingSum, Table(Stake200).Total())

	// 0,50 €: the regulation prints 122 550 €, but its own rows (whose row
	// totals are all right, see above) sum to 122 250 €, exactly half of the
	// 1 € table, as every amount is. The printed line is a typing error; the
	// kiosk uses the rows.
	half := Table(Stake050)
	var sumOfPrintedRowTotals Money
	for _, r := range printed[Stake050].rows {
		sumOfPrintedRowTotals += r.total
	}
	assert.Equal(t, sumOfPrintedRowTotals, half.Total())
	assert.Equal(t, Table(Stake100).Total()/2, half.Total())
	assert.Equal(t, Money(122_250*Euro), half.Total())
	assert.Equal(t, Money(122_550*Euro), printed[Stake050].closingSum, "the erratum is where we expect it")

	for _, s := range Stakes {
		tab := Table(s)
		mult := Money(s / Stake050)
		assert.Equal(t, 101_338, tab.Lots())
		assert.Equal(t, UnitsPerBlock-101_338, tab.Losers())
		assert.Equal(t, tab.Lots()+tab.Losers(), UnitsPerBlock)
		assert.Equal(t, Money(UnitsPerBlock)*Money(s), tab.Sales())
		// Every table is the 0,50 € table scaled by the stake.
		for i := range tab.Prizes {
			assert.Equal(t, half.Prizes[i].Amount*mult, tab.Prizes[i].Amount)
		}
		// 122 250 / 175 000 = 0.698571…
		assert.InDelta(t, float64(half.Total())/float64(half.Sales()), tab.PayoutRatio(), 1e-12)
		assert.InDelta(t, 0.6985714, tab.PayoutRatio(), 1e-7)
		assert.InDelta(t, 3.453788, tab.WinOdds(), 1e-6)
		assert.InDelta(t, 70_000.0, tab.Odds(1), 1e-9)
		assert.InDelta(t, 350_000.0/60_000, tab.Odds(8), 1e-9)
	}
	assert.NotEqual(t, Table(Stake050).Digest(), Table(Stake100).Digest())
}

// A block's header names its prize table by Digest, so the digest's
// encoding is part of the block format: SHA-256 of the regulation's
// reference, then the stake and each row's lots and amount as 64-bit
// big-endian integers. Computed here from the rows printed in the
// regulation, independently of table.go.
func TestDigestEncoding(t *testing.T) {
	printed := art3Printed(t)
	for _, s := range Stakes {
		b := []byte("pharaon/reglement-2008-12-17/art3\x00")
		b = binary.BigEndian.AppendUint64(b, uint64(s))
		for _, r := range printed[s].rows {
			b = binary.BigEndian.AppendUint64(b, uint64(r.lots))
			b = binary.BigEndian.AppendUint64(b, uint64(r.amount))
		}
		assert.Equal(t, sha256.Sum256(b), Table(s).Digest(), "digest of the table at %s", s)
	}
}

var comboRe = regexp.MustCompile(`\|\s*(\d) symboles (\S+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|`)

var frenchSymbol = map[string]Symbol{
	"oiseau": Bird, "scarabée": Scarab, "croix": Cross, "tête": Head, "œil": Eye, "serpent": Snake,
}

func TestCombinationsMatchArticle43(t *testing.T) {
	text := regulation(t)
	start := strings.Index(text, "4.3.")
	end := strings.Index(text, "4.4.")
	require.True(t, start > 0 && end > start)
	rows := comboRe.FindAllStringSubmatch(text[start:end], -1)
	require.Len(t, rows, len(combinations))
	for i, r := range rows {
		n, _ := strconv.Atoi(r[1])
		sym, ok := frenchSymbol[r[2]]
		require.True(t, ok, r[2])
		c := combinations[i]
		assert.Equal(t, sym, c.Symbol, "row %d", i)
		assert.Equal(t, n, c.Count, "row %d", i)
		for j, s := range Stakes {
			cell := r[3+j]
			if cell == "Jeu Bonus" {
				assert.True(t, c.Bonus, "row %d", i)
				assert.Equal(t, Money(0), c.Amount(s))
				continue
			}
			assert.False(t, c.Bonus)
			assert.Equal(t, parseEuros(t, cell), c.Amount(s), "%s at %s", c, s)
		}
	}
}

// Every lot of Art. 3 is paid by exactly one combination of Art. 4.3 and
// every paying combination pays a lot of the table (Art. 4.8: the total won
// is always one of the table's amounts).
func TestTiersAndCombinationsCorrespond(t *testing.T) {
	for _, s := range Stakes {
		tab := Table(s)
		seen := map[Combination]bool{}
		for _, p := range tab.Prizes {
			assert.False(t, p.Combination.Bonus)
			assert.Equal(t, p.Amount, p.Combination.Amount(s))
			assert.False(t, seen[p.Combination], "combination %s used twice", p.Combination)
			seen[p.Combination] = true
		}
		for _, c := range Combinations() {
			if c.Bonus {
				continue
			}
			_, ok := tab.TierOf(c.Amount(s))
			assert.True(t, ok, "%s at %s", c, s)
		}
	}
	// The mapping the kiosk relies on, in words.
	tab := Table(Stake050)
	want := []string{"3×bird", "3×scarab", "3×cross", "3×head", "3×eye", "2×bird", "2×scarab", "2×cross"}
	for i, p := range tab.Prizes {
		assert.Equal(t, want[i], p.Combination.String())
	}
}
