package update

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// The centre reads a bundle's manifest without a key: what it says, and
// nothing from a file that is not a bundle.
func TestPeekManifest(t *testing.T) {
	f := newFixture(t)
	b, err := os.ReadFile(f.bundle("0.2.0", fakeDeb("0.2.0"), f.priv))
	if err != nil {
		t.Fatal(err)
	}
	m, err := PeekManifest(bytes.NewReader(b))
	if err != nil || m.Version != "0.2.0" || m.Kind != KindDeb || m.Rollback {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	for _, bad := range [][]byte{nil, []byte("not a tar"), b[:100]} {
		if _, err := PeekManifest(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%d bytes: %v, want ErrFormat", len(bad), err)
		}
	}
}
