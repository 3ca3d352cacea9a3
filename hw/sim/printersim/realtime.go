package printersim

// A real printer acts on a real-time command (DLE EOT, DLE ENQ, DLE DC4) the moment its last byte
// arrives, wherever those bytes stand in the stream. Epson's reference says the status "is
// transmitted whenever the data sequence 10h 04h n (1 ≤ n ≤ 4) is received", its example being the
// data of a bit image (ESC *), and warns against sending a real-time command inside another
// command's parameters. The bytes still reach the command interpreter as they would have: inside
// another command's parameters or data they stay that data, and at the top level the interpreter
// skips them (dispatch). The one exception documented, and modelled here, is FS q (define NV bit
// image): while it runs, real-time commands are not processed.

// rtMatch says how far bytes starting with DLE go toward a real-time command.
type rtMatch int

const (
	rtNo   rtMatch = iota // not a real-time command
	rtMore                // may still become one
	rtDone                // a whole real-time command
)

// What follows DLE DC4 8 (clear the buffers) and DLE DC4 2 (power off): fixed parameters.
var (
	clearTail    = []byte{1, 3, 20, 1, 6, 2, 8}
	powerOffTail = []byte{1, 8}
)

// matchRealTime classifies b, which starts with DLE, by the real-time commands of a TM-series
// printer and their parameter ranges; a sequence out of range is no command (the bytes are data).
func matchRealTime(b []byte) rtMatch {
	if len(b) < 3 {
		if len(b) == 2 && b[1] != eot && b[1] != enq && b[1] != dc4 {
			return rtNo
		}
		return rtMore
	}
	switch b[1] {
	case eot: // DLE EOT n (1-4), DLE EOT n a (n = 7, 8, 18)
		switch n := b[2]; {
		case n >= 1 && n <= 4:
			return rtDone
		case n == 7 || n == 8 || n == 18:
			if len(b) < 4 {
				return rtMore
			}
			return rtDone
		}
		return rtNo
	case enq: // DLE ENQ n (1-2)
		if b[2] == 1 || b[2] == 2 {
			return rtDone
		}
		return rtNo
	}
	// DLE DC4 fn ...
	var want []byte
	switch b[2] {
	case 1: // generate a pulse: m (0-1), t (1-8)
		if len(b) > 3 && b[3] > 1 || len(b) > 4 && (b[4] < 1 || b[4] > 8) {
			return rtNo
		}
		if len(b) < 5 {
			return rtMore
		}
		return rtDone
	case 2: // power off: a = 1, b = 8
		want = powerOffTail
	case 7: // transmit a specified status: m (1, 2, 4, 5)
		if len(b) < 4 {
			return rtMore
		}
		if m := b[3]; m == 1 || m == 2 || m == 4 || m == 5 {
			return rtDone
		}
		return rtNo
	case 8:
		want = clearTail
	default:
		return rtNo
	}
	for i := 3; i < len(b); i++ {
		if b[i] != want[i-3] {
			return rtNo
		}
	}
	if len(b) < 3+len(want) {
		return rtMore
	}
	return rtDone
}

// scan follows the received bytes one at a time and returns a real-time command when c ends one.
// The returned slice is valid until the next call.
func (in *Interpreter) scan(c byte) ([]byte, bool) {
	if len(in.rt) == 0 {
		if c == dle {
			in.rt = append(in.rt, c)
		}
		return nil, false
	}
	in.rt = append(in.rt, c)
	for {
		switch matchRealTime(in.rt) {
		case rtMore:
			return nil, false
		case rtDone:
			cmd := in.rt
			in.rt = in.rt[:0]
			return cmd, true
		}
		// Not a real-time command: one may still start at a later DLE of these bytes.
		next := -1
		for i := 1; i < len(in.rt); i++ {
			if in.rt[i] == dle {
				next = i
				break
			}
		}
		if next < 0 {
			in.rt = in.rt[:0]
			return nil, false
		}
		in.rt = append(in.rt[:0], in.rt[next:]...)
	}
}

// realTimeSwitch is GS ( D function 20: pairs of (a, b) where a is 1 for DLE DC4 1 and 2 for
// DLE DC4 2, b is 0 to disable and 1 to enable. A host disables them before sending data that
// holds those bytes (Epson's own advice for graphics data); DLE EOT, DLE ENQ and DLE DC4 8 stay on.
func (in *Interpreter) realTimeSwitch(pairs []byte) {
	for i := 0; i+1 < len(pairs); i += 2 {
		off := pairs[i+1]%48 == 0
		switch pairs[i] % 48 {
		case 1:
			in.pulseOff = off
		case 2:
			in.powerOffOff = off
		}
	}
}

// receivingNVImage is true while the interpreter holds an unfinished FS q (define NV bit image).
func (in *Interpreter) receivingNVImage() bool {
	return len(in.in) >= 2 && in.in[0] == fs && in.in[1] == 'q'
}

// realTime acts on a whole real-time command. It returns true when the command cleared the receive
// buffer (DLE DC4 8, DLE ENQ 2), its own bytes included.
func (in *Interpreter) realTime(cmd []byte) bool {
	switch cmd[1] {
	case eot:
		n := cmd[2]
		if n < 1 || n > 4 {
			in.logf("DLE EOT %d not supported", n)
			return false
		}
		in.answer(cmd, []byte{in.state.realTime(n)})
	case enq:
		// DLE ENQ 1: recover from a recoverable error and go on; 2: recover and clear the buffers.
		// With no recoverable error the command is ignored.
		if !in.state.CutterError {
			return false
		}
		in.state.CutterError = false
		cleared := cmd[2] == 2
		if cleared {
			in.clear()
		}
		in.changed()
		return cleared
	case dc4:
		switch cmd[2] {
		case 1, 2:
			if cmd[2] == 1 && in.pulseOff || cmd[2] == 2 && in.powerOffOff {
				return false // disabled by GS ( D: the bytes are data
			}
		}
		switch cmd[2] {
		case 8:
			in.clear()
			in.answer(cmd, []byte{0x37, 0x25, 0x00})
			return true
		case 1:
			in.logf("drawer pulse ignored: no drawer")
		case 2:
			in.logf("power off ignored")
		default:
			in.logf("DLE DC4 %d not supported", cmd[2])
		}
	}
	return false
}

// clear drops what the printer holds and has not printed, in its receive buffer and its print
// buffer; a receipt under way ends there.
func (in *Interpreter) clear() {
	in.in = in.in[:0]
	in.queue = nil
	in.dropLine()
	if len(in.lines) > 0 {
		in.finish(false, BufferCleared)
	}
}
