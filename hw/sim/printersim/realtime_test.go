package printersim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A real-time command is acted on wherever its bytes stand, as Epson documents: inside another
// command's parameters or data it is answered, and the bytes still count as that data.
func TestRealTimeCommandsActAnywhere(t *testing.T) {
	code128 := func(values ...byte) []byte {
		b := []byte{gs, 'H', 2, gs, 'k', 73, byte(2 + len(values)), '{', 'C'}
		return append(b, values...)
	}
	tests := []struct {
		name    string
		data    []byte
		answers []byte
		plain   string
	}{
		{"code 128 set C pairs 16 04 01", code128(4, 29, 16, 4, 1, 18), []byte{0x12}, "042916040118\n"},
		{"code 128 set C pairs 16 04 04, paper low", code128(16, 4, 4), []byte{0x1E}, "160404\n"},
		{"QR data", []byte{gs, '(', 'k', 6, 0, 49, 80, 48, dle, eot, 3, gs, '(', 'k', 3, 0, 49, 81, 48}, []byte{0x12}, "\x10\x04\x03\n"},
		{"a parameter", []byte{esc, '3', dle, eot, 2, 'x', lf}, []byte{0x12}, "x\n"},
		{"bit image data", []byte{esc, '*', 0, 3, 0, dle, eot, 1, 'x', lf}, []byte{0x12}, "x\n"},
		{"out of range is data", []byte{esc, '*', 0, 3, 0, dle, eot, 9, 'x', lf}, nil, "x\n"},
		{"a DLE before the DLE", []byte{esc, '*', 0, 4, 0, dle, dle, eot, 1, 'x', lf}, []byte{0x12}, "x\n"},
		{"NV bit image (FS q) is the exception", []byte{fs, 'q', 1, 1, 0, 1, 0, dle, eot, 1, 0, 0, 0, 0, 0, 'x', lf}, nil, "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, split := range []int{0, 1, 6, 7, 8} {
				in, a := newInterp(Config{})
				if strings.Contains(tt.name, "paper low") {
					in.SetPaper(PaperLow)
				}
				data := append(append([]byte{}, tt.data...), gs, 'V', 0)
				at := min(split, len(data))
				in.Write(data[:at])
				in.Write(data[at:])
				assert.Equal(t, tt.answers, a.got, "split at %d", at)
				rs := in.Receipts()
				require.Len(t, rs, 1, "split at %d", at)
				assert.Equal(t, tt.plain, rs[0].Plain(), "the bytes are still the command's data")
			}
		})
	}
}

// DLE DC4 8 inside image data clears the buffers there: the rest of the image is read as commands,
// as on a real printer (which is why a host must never let it appear in data).
func TestClearInsideDataClearsThere(t *testing.T) {
	in, a := newInterp(Config{})
	data := []byte{'k', 'e', 'p', 't', lf, 'l', 'o', 's', 't', esc, '*', 0, 20, 0}
	data = append(data, dle, dc4, 8, 1, 3, 20, 1, 6, 2, 8)
	data = append(data, 'a', 'f', 't', 'e', 'r', lf, gs, 'V', 0)
	in.Write(data)
	assert.Equal(t, []byte{0x37, 0x25, 0x00}, a.got)
	rs := in.Receipts()
	require.Len(t, rs, 2)
	assert.Equal(t, BufferCleared, rs[0].Fault)
	assert.Equal(t, "kept\n", rs[0].Plain())
	assert.Equal(t, "after\n", rs[1].Plain())
	assert.Zero(t, in.Held())
}

func TestMatchRealTime(t *testing.T) {
	tests := []struct {
		in   []byte
		want rtMatch
	}{
		{[]byte{dle}, rtMore},
		{[]byte{dle, 'x'}, rtNo},
		{[]byte{dle, eot}, rtMore},
		{[]byte{dle, eot, 0}, rtNo},
		{[]byte{dle, eot, 4}, rtDone},
		{[]byte{dle, eot, 5}, rtNo},
		{[]byte{dle, eot, 7}, rtMore},
		{[]byte{dle, eot, 7, 1}, rtDone},
		{[]byte{dle, enq, 2}, rtDone},
		{[]byte{dle, enq, 3}, rtNo},
		{[]byte{dle, dc4, 1, 0}, rtMore},
		{[]byte{dle, dc4, 1, 2}, rtNo},
		{[]byte{dle, dc4, 1, 1, 8}, rtDone},
		{[]byte{dle, dc4, 1, 1, 9}, rtNo},
		{[]byte{dle, dc4, 2, 1, 8}, rtDone},
		{[]byte{dle, dc4, 2, 1, 7}, rtNo},
		{[]byte{dle, dc4, 7, 3}, rtNo},
		{[]byte{dle, dc4, 7, 4}, rtDone},
		{[]byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2}, rtMore},
		{[]byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 8}, rtDone},
		{[]byte{dle, dc4, 8, 1, 3, 20, 1, 6, 2, 9}, rtNo},
		{[]byte{dle, dc4, 9}, rtNo},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, matchRealTime(tt.in), "% x", tt.in)
	}
}

// GS a n enables Automatic Status Back: the status at once, then again whenever an enabled item
// changes, each time four bytes a host tells from the other answers by their fixed bits.
func TestAutomaticStatusBack(t *testing.T) {
	in, a := newInterp(Config{})
	in.SetCoverOpen(true)
	assert.Empty(t, a.got, "disabled at power-on")
	in.SetCoverOpen(false)

	in.Write([]byte{gs, 'a', 0x0A}) // online/offline and paper sensors
	assert.Equal(t, []byte{0x10, 0, 0, 0}, a.take(), "sent when enabled")
	in.SetCoverOpen(true)
	assert.Equal(t, []byte{0x38, 0, 0, 0}, a.take(), "offline, cover open")
	in.SetCoverOpen(false)
	assert.Equal(t, []byte{0x10, 0, 0, 0}, a.take())
	in.SetPaper(PaperLow)
	assert.Equal(t, []byte{0x10, 0, 0x03, 0}, a.take())
	in.SetUnrecoverable(true)
	assert.Equal(t, []byte{0x18, 0x20, 0x03, 0}, a.take(), "offline changed; the error item is disabled but its bits are current")
	in.SetUnrecoverable(false)
	a.take()

	in.Write([]byte{gs, 'a', 0x04}) // errors only
	assert.Equal(t, []byte{0x10, 0, 0x03, 0}, a.take())
	in.SetPaper(PaperOK)
	assert.Empty(t, a.got, "paper sensors not enabled")
	in.Inject(AtCut(), CutterJam)
	in.Write([]byte("x\n\x1dV\x00"))
	assert.Equal(t, []byte{0x18, 0x08, 0, 0}, a.take(), "the cutter jams")
	in.Write([]byte{dle, enq, 1})
	assert.Equal(t, []byte{0x10, 0, 0, 0}, a.take(), "recovered by DLE ENQ 1")

	in.Write([]byte{gs, 'a', 0})
	in.SetCoverOpen(true)
	assert.Empty(t, a.got, "disabled again")
	for _, b := range [][]byte{{0x10, 0, 0x03, 0}, {0x38, 0x6C, 0x0F, 0}} {
		assert.Equal(t, byte(0x10), b[0]&0x93, "header: 0xx1xx00")
		for _, c := range b[1:] {
			assert.Zero(t, c&0x90, "data: 0xx0xxxx")
		}
	}
}

func TestXonXoffFlowControl(t *testing.T) {
	in, a := newInterp(Config{XonXoff: true})
	in.Inject(AfterLines(2), PaperOut)
	in.Write(sampleBytes(t))
	assert.Equal(t, []byte{0x13}, a.take(), "XOFF when the paper runs out")
	in.SetCoverOpen(true)
	assert.Empty(t, a.got, "still busy")
	in.SetCoverOpen(false)
	in.SetPaper(PaperOK)
	assert.Equal(t, []byte{0x11}, a.take(), "XON when ready again")

	quiet, q := newInterp(Config{})
	quiet.SetPaper(PaperEmpty)
	quiet.SetPaper(PaperOK)
	assert.Empty(t, q.got, "no flow control bytes without XonXoff")
}

// GS ( D function 20 lets a host turn DLE DC4 1 and DLE DC4 2 into plain data, as Epson advises
// before graphics data that holds them; DLE EOT stays a real-time command.
func TestRealTimeSwitch(t *testing.T) {
	image := []byte{esc, '*', 0, 8, 0, dle, dc4, 1, 0, 1, dle, eot, 1, 'x', lf}
	pulses := func(in *Interpreter) (n int) {
		for _, l := range in.Log() {
			if strings.Contains(l, "drawer pulse") {
				n++
			}
		}
		return n
	}
	in, a := newInterp(Config{})
	in.Write(image)
	assert.Equal(t, 1, pulses(in), "enabled at power-on")
	assert.Equal(t, []byte{0x12}, a.take())

	in, a = newInterp(Config{})
	in.Write([]byte{gs, '(', 'D', 5, 0, 20, 1, 0, 2, 0})
	in.Write(image)
	assert.Zero(t, pulses(in), "the pulse is image data now")
	assert.Equal(t, []byte{0x12}, a.take(), "DLE EOT is still answered")
	in.Write([]byte{gs, '(', 'D', 3, 0, 20, 1, 1})
	in.Write(image)
	assert.Equal(t, 1, pulses(in), "enabled again")
}
