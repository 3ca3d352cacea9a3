package packaging

import (
	"os"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// under says whether p is dir or inside it.
func under(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// TestUnitCachesOffTheLedger: the session's caches (Mesa's shader cache,
// fontconfig's and whatever follows XDG_CACHE_HOME) are in the runtime
// directory, a tmpfs, never on the ledger's partition: HOME is the kiosk
// user's home, /var/lib/pharaon (pharaon.sysusers), where they would land
// by default and fill the partition the ledger needs.
func TestUnitCachesOffTheLedger(t *testing.T) {
	keys, _ := unitKeys(t)
	env := map[string]string{}
	for _, e := range keys["Environment"] {
		for _, kv := range strings.Fields(e) {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	}
	home := env["HOME"]
	if home == "" {
		users, err := os.ReadFile("systemd/pharaon.sysusers")
		require.NoError(t, err)
		for _, l := range strings.Split(string(users), "\n") {
			if f := strings.Fields(l); len(f) >= 6 && f[0] == "u" && f[1] == "pharaon" {
				home = f[len(f)-2]
			}
		}
	}
	require.Equal(t, "/var/lib/pharaon", home, "the kiosk user's home, the data partition")
	cache := env["XDG_CACHE_HOME"]
	if cache == "" {
		cache = path.Join(home, ".cache")
	}
	mesa := env["MESA_SHADER_CACHE_DIR"]
	if mesa == "" {
		mesa = path.Join(cache, "mesa_shader_cache")
	}
	const runtime = "/run/pharaon"
	require.Equal(t, runtime, env["XDG_RUNTIME_DIR"])
	made := map[string]bool{}
	for _, d := range strings.Fields(strings.Join(keys["RuntimeDirectory"], " ")) {
		made[path.Join("/run", d)] = true
	}
	for what, dir := range map[string]string{"XDG_CACHE_HOME": cache, "fontconfig's cache": path.Join(cache, "fontconfig"),
		"Mesa's shader cache": mesa} {
		assert.False(t, under(dir, "/var/lib/pharaon"), "%s %s is on the ledger's partition", what, dir)
		assert.True(t, under(dir, runtime), "%s %s is in the runtime directory (tmpfs)", what, dir)
	}
	assert.True(t, made[cache], "systemd makes %s (RuntimeDirectory=), the kiosk's user's", cache)
}
