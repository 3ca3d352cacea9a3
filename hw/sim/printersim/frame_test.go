package printersim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFrameLengths(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"text run stops at a control byte", []byte("abc\ndef"), 3},
		{"high bytes are text", []byte{0x82, 0xD5, 0xFF, 0x0A}, 3},
		{"LF", []byte{lf, 'a'}, 1},
		{"unknown control byte", []byte{0x01, 'a'}, 1},
		{"ESC @", []byte{esc, '@', 'x'}, 2},
		{"ESC !", []byte{esc, '!', 0x38, 'x'}, 3},
		{"ESC p drawer pulse", []byte{esc, 'p', 0, 25, 250, 'x'}, 5},
		{"ESC c 5", []byte{esc, 'c', '5', 0, 'x'}, 4},
		{"ESC W page area", []byte{esc, 'W', 1, 2, 3, 4, 5, 6, 7, 8, 'x'}, 10},
		{"ESC D tabs", []byte{esc, 'D', 8, 16, 24, 0, 'x'}, 6},
		{"ESC * 8-dot image", []byte{esc, '*', 0, 3, 0, 1, 2, 3, 'x'}, 8},
		{"ESC * 24-dot image", []byte{esc, '*', 33, 2, 0, 1, 2, 3, 4, 5, 6, 'x'}, 11},
		{"ESC & user characters", []byte{esc, '&', 3, 'A', 'B', 1, 1, 2, 3, 2, 1, 2, 3, 4, 5, 6, 'x'}, 16},
		{"unknown ESC", []byte{esc, 'z', 'x'}, 2},
		{"GS !", []byte{gs, '!', 0x11, 'x'}, 3},
		{"GS V 0", []byte{gs, 'V', 0, 'x'}, 3},
		{"GS V 65 n", []byte{gs, 'V', 65, 3, 'x'}, 4},
		{"GS k m=4 NUL-terminated", []byte{gs, 'k', 4, 'A', 'B', 0, 'x'}, 6},
		{"GS k m=73 counted", []byte{gs, 'k', 73, 4, '{', 'B', 0, 1, 'x'}, 8},
		{"GS ( k store", []byte{gs, '(', 'k', 5, 0, 49, 80, 48, '1', '2', 'x'}, 10},
		{"GS ( k 256+ bytes", append([]byte{gs, '(', 'k', 0, 1}, make([]byte, 257)...), 5 + 256},
		{"GS v 0 raster", []byte{gs, 'v', '0', 0, 2, 0, 2, 0, dle, eot, 1, 2, 'x'}, 12},
		{"GS 8 L", []byte{gs, '8', 'L', 2, 0, 0, 0, 0xAA, 0xBB, 'x'}, 9},
		{"GS * image", []byte{gs, '*', 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 'x'}, 12},
		{"unknown GS", []byte{gs, 0x01, 'x'}, 2},
		{"FS p NV image", []byte{fs, 'p', 1, 0, 'x'}, 4},
		{"FS ( A", []byte{fs, '(', 'A', 2, 0, 48, 0, 'x'}, 7},
		{"DLE EOT n", []byte{dle, eot, 4, 'x'}, 3},
		{"DLE EOT 7 a", []byte{dle, eot, 7, 1, 'x'}, 4},
		{"DLE ENQ", []byte{dle, enq, 1, 'x'}, 3},
		{"DLE DC4 pulse", []byte{dle, dc4, 1, 0, 1, 'x'}, 5},
		{"DLE DC4 clear", []byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 8, 'x'}, 10},
		{"lone DLE", []byte{dle, 'x'}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := frame(tt.in)
			assert.True(t, ok)
			assert.Equal(t, tt.want, n)
			// Every strict prefix of a command is incomplete (text runs excepted: they are
			// complete at any length).
			if tt.in[0] < 0x20 {
				for i := 1; i < tt.want; i++ {
					_, ok := frame(tt.in[:i])
					assert.False(t, ok, "prefix of %d bytes", i)
				}
			}
		})
	}
}
