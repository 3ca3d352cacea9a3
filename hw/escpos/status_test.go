package escpos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
)

func TestParseStatus(t *testing.T) {
	ok := []byte{0x12, 0x12, 0x12, 0x12}
	with := func(i int, bits byte) []byte {
		b := append([]byte(nil), ok...)
		b[i] |= bits
		return b
	}
	tests := []struct {
		name  string
		raw   []byte
		check func(Status) bool
		err   error
	}{
		{"ready", ok, func(s Status) bool { return s == Status{Raw: [4]byte{0x12, 0x12, 0x12, 0x12}} }, nil},
		{"offline", with(0, 0x08), func(s Status) bool { return s.Offline }, ErrOffline},
		{"waiting recovery", with(0, 0x20), func(s Status) bool { return s.WaitingRecovery }, ErrOffline},
		{"feed button", with(0, 0x40), func(s Status) bool { return s.FeedButton }, ErrOffline},
		{"drawer pin is not a fault", with(0, 0x04), func(s Status) bool { return s.Ready() }, nil},
		{"cover open", with(1, 0x04), func(s Status) bool { return s.CoverOpen }, ErrCoverOpen},
		{"feeding by button", with(1, 0x08), func(s Status) bool { return s.FeedingByButton }, ErrOffline},
		{"stopped at paper end", with(1, 0x20), func(s Status) bool { return s.StoppedPaperEnd && s.PaperOut }, ErrPaperOut},
		{"error occurred", with(1, 0x40), func(s Status) bool { return s.ErrorOccurred }, ErrOffline},
		{"cutter", with(2, 0x08), func(s Status) bool { return s.CutterError }, ErrCutter},
		{"unrecoverable", with(2, 0x20), func(s Status) bool { return s.Unrecoverable }, ErrUnrecoverable},
		{"auto-recoverable", with(2, 0x40), func(s Status) bool { return s.AutoRecoverable }, ErrPaused},
		{"near end is a warning", with(3, 0x0C), func(s Status) bool { return s.PaperNearEnd && !s.PaperOut }, nil},
		{"near end, one sensor bit", with(3, 0x04), func(s Status) bool { return s.PaperNearEnd }, nil},
		{"paper out", with(3, 0x60), func(s Status) bool { return s.PaperOut }, ErrPaperOut},
		{"paper out, one sensor bit", with(3, 0x20), func(s Status) bool { return s.PaperOut }, ErrPaperOut},
		{"cover beats paper", []byte{0x1A, 0x36, 0x12, 0x7E}, func(s Status) bool { return s.CoverOpen && s.PaperOut }, ErrCoverOpen},
		{"cutter beats cover", []byte{0x1A, 0x56, 0x1A, 0x12}, func(s Status) bool { return s.CutterError && s.CoverOpen }, ErrCutter},
		{"unrecoverable beats all", []byte{0x1A, 0x76, 0x3A, 0x7E}, func(s Status) bool { return s.Unrecoverable }, ErrUnrecoverable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseStatus(tt.raw)
			require.NoError(t, err)
			assert.True(t, tt.check(s), "%v", s)
			assert.Equal(t, tt.raw, s.Raw[:])
			if tt.err == nil {
				assert.NoError(t, s.Err())
				assert.True(t, s.Ready())
			} else {
				assert.ErrorIs(t, s.Err(), tt.err)
				assert.False(t, s.Ready())
			}
		})
	}
}

func TestParseStatusRejectsBytesWithoutTheFixedBits(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
	}{
		{"empty", nil},
		{"three bytes", []byte{0x12, 0x12, 0x12}},
		{"five bytes", []byte{0x12, 0x12, 0x12, 0x12, 0x12}},
		{"zero (a GS r answer)", []byte{0x12, 0x00, 0x12, 0x12}},
		{"bit 0 set", []byte{0x13, 0x12, 0x12, 0x12}},
		{"bit 1 clear", []byte{0x12, 0x12, 0x10, 0x12}},
		{"bit 4 clear", []byte{0x12, 0x12, 0x12, 0x02}},
		{"bit 7 set", []byte{0x92, 0x12, 0x12, 0x12}},
		{"all ones", []byte{0xFF, 0xFF, 0xFF, 0xFF}},
		{"buffer clear answer", []byte{0x37, 0x25, 0x00, 0x12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseStatus(tt.raw)
			require.ErrorIs(t, err, hw.ErrProtocol)
			assert.Equal(t, Status{}, s)
		})
	}
}

// Every one of the 256 values is classified: a DLE EOT answer (0xx1xx10), a GS r answer
// (0xx0xxxx), an ASB header (0xx1xx00), XON or XOFF, or neither, and never two at once.
func TestAnswerClassesAreDisjoint(t *testing.T) {
	rt, sync, asb := 0, 0, 0
	for v := range 256 {
		b := byte(v)
		classes := 0
		for _, in := range []bool{isRealTimeAnswer(b), isSyncAnswer(b), isASBHeader(b), b == xon || b == xoff} {
			if in {
				classes++
			}
		}
		assert.LessOrEqual(t, classes, 1, "%#02x", b)
		if isRealTimeAnswer(b) {
			rt++
		}
		if isSyncAnswer(b) {
			sync++
		}
		if isASBHeader(b) {
			asb++
		}
	}
	assert.Equal(t, 16, rt, "4 fixed bits leave 16 status values")
	assert.Equal(t, 64, sync, "2 fixed bits leave 64")
	assert.Equal(t, 16, asb)
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte{0x12, 0x12, 0x12, 0x12})
	f.Add([]byte{0x1A, 0x36, 0x12, 0x7E})
	f.Add([]byte{0x12, 0x00})
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseStatus(raw)
		if err != nil {
			if !errors.Is(err, hw.ErrProtocol) {
				t.Fatalf("error %v does not wrap hw.ErrProtocol", err)
			}
			if s != (Status{}) {
				t.Fatalf("a rejected status must be empty, got %v", s)
			}
			return
		}
		if len(raw) != 4 {
			t.Fatalf("accepted %d bytes", len(raw))
		}
		for i, b := range raw {
			if b&0x93 != 0x12 {
				t.Fatalf("accepted byte %d = %#02x without the fixed bits", i, b)
			}
			if s.Raw[i] != b {
				t.Fatalf("raw byte %d not kept", i)
			}
		}
		// A status with any stopping condition must not read as ready.
		stopping := s.Offline || s.CoverOpen || s.PaperOut || s.CutterError || s.Unrecoverable ||
			s.AutoRecoverable || s.ErrorOccurred || s.StoppedPaperEnd
		if stopping && s.Ready() {
			t.Fatalf("%v reads as ready", s)
		}
		if s.Ready() != (s.Err() == nil) {
			t.Fatal("Ready and Err disagree")
		}
		_ = s.String()
	})
}
