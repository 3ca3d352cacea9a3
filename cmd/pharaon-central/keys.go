package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pharaon/kiosk/fleet"
)

// readAnchorKeys reads the kiosks' anchor secrets kept by the operator:
// dir/<kiosk>.key, each the 32 bytes of that kiosk's anchor.key. A file
// that is not a secret's size is refused: a seal checked with a wrong key
// would report every kiosk.
func readAnchorKeys(dir string) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.key"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("anchor keys: no <kiosk>.key in %s", dir)
	}
	keys := map[string][]byte{}
	for _, n := range names {
		id := strings.TrimSuffix(filepath.Base(n), ".key")
		if !fleet.ValidKioskID(id) {
			return nil, fmt.Errorf("anchor keys: %s does not name a kiosk", n)
		}
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("anchor keys: %w", err)
		}
		if len(b) != 32 {
			return nil, fmt.Errorf("anchor keys: %s is %d bytes, an anchor secret 32", n, len(b))
		}
		keys[id] = b
	}
	return keys, nil
}
