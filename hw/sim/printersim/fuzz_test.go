package printersim

import (
	"testing"
)

// FuzzInterpreter feeds the simulator arbitrary host bytes, whole and then split at a chosen
// point: it must never panic, and a split delivery must print and answer exactly what one write
// does (the framing does not depend on how the bytes arrive).
func FuzzInterpreter(f *testing.F) {
	f.Add([]byte("hello\n\x1dV\x00"), uint16(3))
	f.Add([]byte{0x1d, 'k', 73, 5, '{', 'C', 12, 34, 56, '\n', 0x1d, 'V', 65, 0}, uint16(5))
	f.Add([]byte{0x1d, '(', 'k', 5, 0, 49, 80, 48, '4', '2', 0x1d, '(', 'k', 3, 0, 49, 81, 48, 0x1d, 'V', 0}, uint16(9))
	f.Add([]byte{0x10, 4, 1, 0x10, 4, 4, 0x1d, 'r', 1, 0x1b, '@', 0x1b, 't', 19, 0xD5}, uint16(2))
	f.Add([]byte{0x1b, '*', 33, 2, 0, 0x10, 4, 1, 0x10, 4, 2, 'x', '\n', 0x1d, 'V', 1}, uint16(6))
	f.Add([]byte{0x10, 0x14, 8, 1, 3, 20, 1, 6, 2, 8}, uint16(4))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if len(data) > 4096 {
			return
		}
		whole, wa := newInterp(Config{})
		whole.Write(data)
		split, sa := newInterp(Config{})
		at := int(cut) % (len(data) + 1)
		split.Write(data[:at])
		split.Write(data[at:])
		if string(wa.got) != string(sa.got) {
			t.Fatalf("answers differ: whole % x, split % x", wa.got, sa.got)
		}
		rw, rs := whole.Receipts(), split.Receipts()
		if len(rw) != len(rs) {
			t.Fatalf("%d receipts whole, %d split", len(rw), len(rs))
		}
		for i := range rw {
			if rw[i].Text != rs[i].Text {
				t.Fatalf("receipt %d differs:\n%s\n---\n%s", i+1, rw[i].Text, rs[i].Text)
			}
			_ = rw[i].Image() // drawing never panics either
		}
		if whole.Held() != split.Held() {
			t.Fatalf("held %d whole, %d split", whole.Held(), split.Held())
		}
	})
}
