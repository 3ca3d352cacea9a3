package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

const (
	prefixSize = 8 + 98 // magic and header of a block file
	unitSize   = 14
)

// A full block of each stake through the command line: generated, verified,
// inspected; the lot table inspect counts from the units is the
// regulation's, and its totals are the sums of its rows.
func TestGenerateVerifyInspectEachStake(t *testing.T) {
	for i, st := range []struct {
		arg   string
		stake game.Stake
		share string
		bonus [game.NumTiers]int
	}{
		{"0,50", game.Stake050, "", [8]int{1, 2, 15, 50, 300, 1500, 6400, 12000}},
		{"1", game.Stake100, "1000,0,0,0,1,0,0,500", [8]int{5, 0, 0, 0, 2, 0, 0, 30000}},
		{"2", game.Stake200, "200,200,200,200,200,200,200,200", [8]int{1, 2, 15, 50, 300, 1500, 6400, 12000}},
	} {
		t.Run(st.stake.Money().Plain(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			key, pub := keys(t, dir, "issuer")
			out := filepath.Join(dir, "block.pblk")
			args := []string{"generate", "-emission", "3", "-block", fmt.Sprint(10 + i), "-stake", st.arg, "-key", key, "-out", out}
			if st.share != "" {
				args = append(args, "-bonus-share", st.share)
			}
			code, stdout, stderr := cli(t, args...)
			require.Equal(t, 0, code, stderr)
			file, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Len(t, file, block.FileSize)
			digest := fmt.Sprintf("%x", sha256.Sum256(file))
			bonus := 0
			for _, b := range st.bonus {
				bonus += b
			}
			pubKey, err := readPublicKey(pub)
			require.NoError(t, err)
			want := fmt.Sprintf("bloc 3/%d écrit : %s — émission 3, bloc %d, mise %s, 350\u00a0000 unités, 101\u00a0338 lots dont %s par le bonus, clé %s, SHA-256 %s\n",
				10+i, out, 10+i, st.stake, group(fmt.Sprint(bonus), "\u00a0"), block.KeyIDOf(pubKey), digest)
			assert.Equal(t, want, stdout)
			assert.ElementsMatch(t, []string{"issuer.key", "issuer.pub", "block.pblk"}, names(t, dir), "no temporary file left")
			fi, err := os.Stat(out)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

			code, stdout, stderr = cli(t, "verify", "-key", pub, out)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			assert.Equal(t, 1, strings.Count(stdout, "\n"), "one line")
			assert.True(t, strings.HasPrefix(stdout, "ok "+out+" : bloc 3/"), stdout)
			assert.Contains(t, stdout, game.Table(st.stake).Total().String())
			assert.Contains(t, stdout, digest)

			code, stdout, stderr = cli(t, "inspect", out)
			require.Equal(t, 0, code, stderr)
			in := parseInspect(t, stdout)
			assert.Equal(t, "NON VÉRIFIÉE (aucune clé donnée : -key FICHIER.pub)", in.header["signature"])
			assert.Equal(t, st.stake.String(), in.header["mise"])
			assert.Equal(t, "350\u00a0000", in.header["unités"])
			assert.Equal(t, fmt.Sprint(10+i), in.header["bloc"])
			assert.Equal(t, digest, in.header["SHA-256 du fichier"])
			checkInspection(t, in, st.stake, st.bonus)

			code, stdout, stderr = cli(t, "inspect", "-key", pub, out)
			require.Equal(t, 0, code, stderr)
			in = parseInspect(t, stdout)
			assert.Equal(t, "vérifiée (clé de confiance)", in.header["signature"])
			checkInspection(t, in, st.stake, st.bonus)

			code, stdout, _ = cli(t, "-lang", "en", "inspect", out)
			require.Equal(t, 0, code)
			assert.Contains(t, stdout, "Lots counted from the units (Art. 3)")
			assert.Contains(t, stdout, "NOT CHECKED (no key given: -key FILE.pub)")
			assert.Contains(t, stdout, game.Table(st.stake).Prizes[0].Amount.English())
		})
	}
}

// What the kiosk must refuse, the tool refuses too, naming the file and
// the problem.
func TestVerifyRefuses(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "issuer")
	_, otherPub := keys(t, dir, "other")
	good := filepath.Join(dir, "good.pblk")
	code, _, stderr := cli(t, "generate", "-emission", "1", "-block", "7", "-stake", "0,50", "-key", key, "-out", good)
	require.Equal(t, 0, code, stderr)
	file, err := os.ReadFile(good)
	require.NoError(t, err)

	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	// A unit of tier 8 turned into tier 7, not re-signed.
	retiered := append([]byte(nil), file...)
	for i := 0; ; i++ {
		if u := retiered[prefixSize+i*unitSize:]; u[4] == 8 {
			u[4] = 7
			break
		}
	}
	sigFlip := append([]byte(nil), file...)
	sigFlip[len(sigFlip)-5] ^= 0x20
	headerFlip := append([]byte(nil), file...)
	headerFlip[8+10+3] ^= 0x01 // stake 50 → 51 cents

	cases := []struct {
		name, path string
		keys       []string
		msg        string
	}{
		{"wrong key", good, []string{otherPub}, "good.pblk: block 1/7: signed by key"},
		{"altered unit", write("retiered.pblk", retiered), []string{pub}, "retiered.pblk: block 1/7: signature does not match the content"},
		{"altered signature", write("sig.pblk", sigFlip), []string{pub}, "sig.pblk: block 1/7: signature does not match the content"},
		{"altered header", write("header.pblk", headerFlip), []string{pub}, "header.pblk: block 1/7: stake of 51 cents is not a stake of the game: invalid block header"},
		{"truncated", write("cut.pblk", file[:len(file)-100]), []string{pub}, "cut.pblk: block 1/7: file ends in unit 349997 of 350000: truncated block file"},
		{"appended", write("long.pblk", append(append([]byte(nil), file...), '\n')), []string{pub}, "long.pblk: block 1/7: bytes follow the signature"},
		{"not a block", write("notes.txt", []byte("hello, world\n")), []string{pub}, `notes.txt: block file: starts with "hello, w", not "PHARAONB": malformed block file`},
		{"missing file", filepath.Join(dir, "nope.pblk"), []string{pub}, "open " + filepath.Join(dir, "nope.pblk") + ": no such file or directory"},
		{"private key given as trusted key", good, []string{key}, `issuer.key: PEM block "PRIVATE KEY", want "PUBLIC KEY"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"verify"}
			for _, k := range c.keys {
				args = append(args, "-key", k)
			}
			code, stdout, stderr := cli(t, append(append([]string{"-lang", "en"}, args...), c.path)...)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "pharaon-issuer: verify: ")
			assert.Contains(t, stderr, c.msg)
		})
	}

	t.Run("several keys and files", func(t *testing.T) {
		code, stdout, stderr := cli(t, "verify", "-key", otherPub, "-key", pub, good, filepath.Join(dir, "sig.pblk"), good)
		assert.Equal(t, 1, code, "one bad file fails the run")
		assert.Equal(t, 2, strings.Count(stdout, "ok "+good))
		assert.Contains(t, stderr, "sig.pblk: block 1/7: signature does not match")
	})

	t.Run("inspect shows the counts of an altered file", func(t *testing.T) {
		code, stdout, stderr := cli(t, "inspect", filepath.Join(dir, "retiered.pblk"))
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "retiered.pblk: block 1/7: tier 7 has 32001 units, the table has 32000: lot counts")
		in := parseInspect(t, stdout)
		require.Len(t, in.rows, 9)
		assert.Equal(t, 32_001, in.rows[6].lots, "tier 7 as counted")
		assert.Equal(t, 32_000, in.rows[6].table)
		assert.Equal(t, 59_999, in.rows[7].lots, "tier 8 as counted")

		code, stdout, stderr = cli(t, "inspect", "-key", pub, filepath.Join(dir, "retiered.pblk"))
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, "signature does not match the content")
		assert.Contains(t, stdout, "REFUSÉE : ne correspond pas au contenu")

		code, stdout, stderr = cli(t, "inspect", filepath.Join(dir, "cut.pblk"))
		assert.Equal(t, 1, code)
		assert.Contains(t, stdout, "Unités lues : 349\u00a0997 sur 350\u00a0000 ; pas de table des lots.")
		assert.Contains(t, stderr, "truncated block file")
	})

	t.Run("generate replaces a block at once", func(t *testing.T) {
		code, _, stderr := cli(t, "generate", "-emission", "1", "-block", "8", "-stake", "1", "-key", key, "-out", good)
		require.Equal(t, 0, code, stderr)
		again, err := os.ReadFile(good)
		require.NoError(t, err)
		assert.NotEqual(t, file, again)
		code, stdout, _ := cli(t, "verify", "-key", pub, good)
		assert.Equal(t, 0, code)
		assert.Contains(t, stdout, "bloc 1/8, mise 1\u00a0€")
		for _, n := range names(t, dir) {
			assert.False(t, strings.HasSuffix(n, ".tmp"), "temporary file %s left", n)
		}
	})
}

// Whatever stops generate, it leaves no block and no temporary file.
func TestGenerateLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	key, pub := keys(t, dir, "issuer")
	out := filepath.Join(dir, "b.pblk")
	args := func(key, out string) []string {
		return []string{"generate", "-emission", "1", "-block", "1", "-stake", "2", "-key", key, "-out", out}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := cliCtx(t, ctx, args(key, out)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "generate: "+out+": ")
	assert.Contains(t, stderr, "context canceled")

	code, _, stderr = cli(t, args(filepath.Join(dir, "missing.key"), out)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.key: no such file or directory")

	code, _, stderr = cli(t, args(pub, out)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `issuer.pub: PEM block "PUBLIC KEY", want "PRIVATE KEY": not an Ed25519 key file`)

	code, _, stderr = cli(t, args(key, filepath.Join(dir, "no-dir", "b.pblk"))...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no such file or directory")

	assert.ElementsMatch(t, []string{"issuer.key", "issuer.pub"}, names(t, dir))

	// A failed generate leaves a previous block of that name as it was.
	require.NoError(t, os.WriteFile(out, []byte("previous"), 0o644))
	code, _, _ = cliCtx(t, ctx, args(key, out)...)
	assert.Equal(t, 1, code)
	prev, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "previous", string(prev))
	assert.ElementsMatch(t, []string{"issuer.key", "issuer.pub", "b.pblk"}, names(t, dir))
}
