package kiosk

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The kiosk's core drives a bill validator without knowing its family
// (DESIGN.md §9): no package of it, built for the kiosk, imports a
// family's driver nor the table that names them. Only the wiring does
// (cmd/pharaon, the simulated devices of the development run and the
// fault harness), which hands the core a validator.Opener.
func TestCoreDoesNotKnowTheValidatorFamily(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the imports")
	}
	wiring := map[string]bool{"pharaon/kiosk/devsim": true, "pharaon/kiosk/harness": true}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "pharaon/kiosk/...").Output()
	require.NoError(t, err)
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		deps := strings.Fields(line)
		p := deps[0]
		if wiring[p] {
			continue
		}
		seen++
		if p == "pharaon/kiosk" {
			require.Contains(t, deps, "pharaon/hw/validator", "the core drives the validator through hw/validator")
		}
		for _, d := range deps[1:] {
			if d == "pharaon/hw/validator/drivers" || strings.HasPrefix(d, "pharaon/hw/id003") ||
				strings.HasPrefix(d, "pharaon/hw/essp") || strings.HasPrefix(d, "pharaon/hw/sim/") {
				t.Errorf("%s imports %s: the core must learn no family", p, d)
			}
		}
	}
	require.Greater(t, seen, 3, "the core's packages listed")
}
