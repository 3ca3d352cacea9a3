package update

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
)

// PeekManifest reads a bundle's manifest without checking its signature:
// what the fleet's centre shows of a bundle it keeps and sends
// (kiosk/fleet/rollout.go), which holds no update key. Nothing it returns
// is trusted: the kiosk verifies the bundle itself (Open, Updater.Apply)
// before it installs anything.
func PeekManifest(r io.Reader) (Manifest, error) {
	tr := tar.NewReader(r)
	h, err := tr.Next()
	if err != nil || h.Name != entryManifest || h.Size > maxManifest {
		return Manifest{}, fmt.Errorf("no %s entry first: %w", entryManifest, ErrFormat)
	}
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(tr, maxManifest)).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("manifest: %w: %w", err, ErrFormat)
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}
