package block

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// FuzzReader feeds arbitrary bytes to the reader: with the small test
// spec, so that mutations of whole files reach the unit loop, the
// signature and the counts, and with the official spec. It never panics,
// every refusal wraps a sentinel, and whatever it accepts is exactly right.
// The seed corpus is testdata/fuzz/FuzzReader (see TestFuzzCorpus).
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Streaming, with the trusted key.
		units := 0
		r, err := open(bytes.NewReader(data), testKeys, smallSpecs)
		if err == nil {
			for {
				var u Unit
				u, err = r.Next()
				if err != nil {
					break
				}
				if u.Index != uint32(units) || u.Tier > game.NumTiers || (u.ViaBonus && u.Tier == game.TierLose) {
					t.Fatalf("unit %d returned as %+v", units, u)
				}
				units++
			}
			if _, again := r.Next(); again != err {
				t.Fatalf("error not sticky: %v then %v", err, again)
			}
		}
		if units > smallUnits {
			t.Fatalf("%d units returned", units)
		}
		if err == io.EOF {
			if len(data) != prefixSize+smallUnits*unitSize+sigSize || units != smallUnits {
				t.Fatalf("accepted %d bytes, %d units", len(data), units)
			}
			if r.FileDigest() != sha256.Sum256(data) {
				t.Fatal("file digest")
			}
		} else {
			mustWrapSentinel(t, err)
		}

		// The same through scan, with and without keys: what a signed
		// check accepts, an unsigned one accepts with the same summary.
		s, serr := scan(bytes.NewReader(data), testKeys, smallSpecs)
		if (serr == nil) != (err == io.EOF) {
			t.Fatalf("scan %v, stream %v", serr, err)
		}
		u, uerr := scan(bytes.NewReader(data), nil, smallSpecs)
		if serr == nil {
			if uerr != nil || u != s {
				t.Fatalf("unsigned scan %v", uerr)
			}
			sp, _ := smallSpecs(s.Header.Stake)
			for tier := game.Tier(0); tier <= game.NumTiers; tier++ {
				if s.TierCounts[tier] != int(sp.count(tier)) {
					t.Fatalf("accepted %d units of tier %d", s.TierCounts[tier], tier)
				}
			}
		} else if uerr != nil {
			mustWrapSentinel(t, uerr)
		}

		// The official spec: the header paths, and the unit loop of a
		// (necessarily truncated) 350 000-unit file.
		if _, err := Verify(bytes.NewReader(data), testKeys); err != nil {
			mustWrapSentinel(t, err)
		}
		if _, err := Inspect(bytes.NewReader(data), nil); err != nil {
			mustWrapSentinel(t, err)
		}
	})
}

func mustWrapSentinel(t *testing.T, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("%v wraps no sentinel", err)
}

// corpus is the seed corpus of FuzzReader, by file name. Names starting
// with "valid" are accepted blocks of the small spec; the others are
// refused with the error in their name.
func corpus(t *testing.T) map[string][]byte {
	valid := smallFile(t, 1)
	var buf bytes.Buffer
	p := smallParams(2)
	p.Stake, p.BonusShare = game.Stake200, [8]uint16{1000, 0, 500, 0, 1, 0, 0, 999}
	_, err := generate(&buf, p, testPriv, smallSpecs)
	require.NoError(t, err)
	valid2 := buf.Bytes()

	v2 := clone(valid)
	binary.BigEndian.PutUint16(v2[magicSize:], 2)
	badIndex := clone(valid)
	binary.BigEndian.PutUint32(unitAt(badIndex, 7), 8)
	badCounts := clone(valid)
	for i := range smallUnits {
		if u := unitAt(badCounts, i); u[4] == 8 {
			u[4], u[5] = 0, 0
			break
		}
	}
	flags := clone(valid)
	unitAt(flags, 3)[5] = 0x81
	foreign := clone(valid)
	id := KeyIDOf(otherPub)
	copy(foreign[magicSize+90:], id[:])
	official := validHeader().marshalPrefix()
	officialUnits := append(official[:], valid[prefixSize:prefixSize+5*unitSize]...)

	return map[string][]byte{
		"valid-1":         valid,
		"valid-2":         valid2,
		"truncated-units": valid[:prefixSize+40*unitSize+5],
		"truncated-sig":   valid[:len(valid)-10],
		"trailing":        append(clone(valid), 0),
		"signature":       append(clone(valid[:len(valid)-1]), valid[len(valid)-1]^1),
		"version":         v2,
		"format-magic":    append([]byte("PHARAONC"), valid[8:]...),
		"format-index":    resign(badIndex, testPriv),
		"format-flags":    resign(flags, testPriv),
		"counts":          resign(badCounts, testPriv),
		"unknownkey":      resign(foreign, otherPriv),
		"header-official": officialUnits, // a truncated 350 000-unit file
		"truncated-empty": {},
	}
}

// The committed seed corpus is the one corpus() builds, and means what its
// names say. PHARAON_UPDATE_FUZZ_CORPUS=1 rewrites it (after a format
// change).
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	want := corpus(t)
	if os.Getenv("PHARAON_UPDATE_FUZZ_CORPUS") != "" {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, b := range want {
			content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, len(want))
	byName := map[string]error{
		"truncated": ErrTruncated, "trailing": ErrTrailing, "signature": ErrSignature, "version": ErrVersion,
		"format": ErrFormat, "counts": ErrCounts, "unknownkey": ErrUnknownKey, "header": ErrHeader,
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		require.Len(t, lines, 2, e.Name())
		require.Equal(t, "go test fuzz v1", lines[0])
		q, ok := strings.CutPrefix(lines[1], "[]byte(")
		require.True(t, ok, e.Name())
		b, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
		require.NoError(t, err, e.Name())
		require.Equal(t, want[e.Name()], []byte(b), "%s is out of date: run with PHARAON_UPDATE_FUZZ_CORPUS=1", e.Name())

		_, err = scanSmall([]byte(b))
		if strings.HasPrefix(e.Name(), "valid") {
			assert.NoError(t, err, e.Name())
			continue
		}
		kind, _, _ := strings.Cut(e.Name(), "-")
		assert.ErrorIs(t, err, byName[kind], e.Name())
		if e.Name() == "header-official" {
			_, err := Verify(bytes.NewReader([]byte(b)), testKeys)
			assert.ErrorIs(t, err, ErrTruncated, "the official reader reaches its unit loop")
		}
	}
}
