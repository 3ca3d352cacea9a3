package printersim

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/text/encoding/charmap"
	"rsc.io/qr"
)

// Config sets up a simulated printer. Zero fields take the defaults.
type Config struct {
	Layout Layout // default 42 columns on 576 dots (80 mm roll, 203 dpi, font A)
	// CodeTable and Charset are what the printer selects at power-on and on ESC @, as its memory
	// switches say: by default PC437 and USA, like a printer out of the box. A host that needs é or
	// € must select its code table itself.
	CodeTable byte
	Charset   byte
	// XonXoff is the flow control set by the printer's DIP switches: XOFF (0x13) is sent when the
	// printer goes busy (it is offline: stopped by a fault) and XON (0x11) when it is ready again.
	// A real printer also goes busy when its receive buffer fills; the simulator's never does.
	XonXoff bool
	// Logf receives the oddities of the stream: unknown commands, ignored ones, bad barcode data.
	Logf func(format string, args ...any)

	// Used by Start only.
	Link string // stable symlink the host opens; "" = the pty slave's own path
	Dir  string // where each receipt is written as NNNN.txt and NNNN.png; "" = nowhere
}

func (c Config) withDefaults() Config {
	if c.Layout.Columns <= 0 {
		c.Layout.Columns = 42
	}
	if c.Layout.Width <= 0 {
		c.Layout.Width = 576
	}
	return c
}

// codeTables are the ESC t n tables the simulator prints with.
var codeTables = map[byte]*charmap.Charmap{
	0: charmap.CodePage437, 2: charmap.CodePage850, 3: charmap.CodePage860,
	4: charmap.CodePage863, 5: charmap.CodePage865, 16: charmap.Windows1252,
	17: charmap.CodePage866, 18: charmap.CodePage852, 19: charmap.CodePage858,
}

// franceSet is ESC R 1: the ASCII positions the French international character set replaces.
var franceSet = map[byte]rune{
	0x40: 'à', 0x5B: '°', 0x5C: 'ç', 0x5D: '§', 0x7B: 'é', 0x7C: 'ù', 0x7D: 'è', 0x7E: '¨',
}

var symbologies = map[byte]string{
	0: "UPC-A", 1: "UPC-E", 2: "EAN13", 3: "EAN8", 4: "CODE39", 5: "ITF", 6: "CODABAR",
	65: "UPC-A", 66: "UPC-E", 67: "EAN13", 68: "EAN8", 69: "CODE39", 70: "ITF", 71: "CODABAR",
	72: "CODE93", 73: "CODE128",
}

// Interpreter is the printer's mind without the wire: it reads an ESC/POS byte stream, keeps the
// printer's state, answers status requests through reply and cuts the paper into Receipts. It is
// safe for concurrent use; reply and the OnReceipt callback are called with its lock held and must
// not call back into it.
type Interpreter struct {
	mu        sync.Mutex
	cfg       Config
	reply     func([]byte)
	onReceipt func(*Receipt)
	tamper    func(request, normal []byte) []byte

	state      State
	injections []injection
	asb        byte    // GS a n: the status items sent unasked when they change (0: none)
	asbSent    [4]byte // the last automatic status sent
	busy       bool    // XOFF sent, XON not yet (Config.XonXoff)
	// GS ( D: DLE DC4 1 (pulse) and DLE DC4 2 (power off) taken as data rather than acted on
	pulseOff, powerOffOff bool

	in       []byte // received, not yet a whole command
	rt       []byte // the start of a real-time command being received (DLE and what followed)
	queue    []byte // whole commands held while the printer is stopped
	draining bool

	// Print settings.
	bold, underline bool
	width, height   int
	align           Align
	table           *charmap.Charmap
	charset         byte
	hriPos          int
	barHeight       int
	barModule       int
	qrModule        int
	qrLevel         byte
	qrData          []byte

	// The line being filled (runs' styles, where each starts in lineRunes) and the receipt being
	// printed.
	runs        []Run
	runStart    []int
	lineRunes   []rune
	lineAlign   Align
	lineCols    int
	lineStarted bool
	lines       []Line

	receipts []*Receipt
	seq      int
	notify   chan struct{}
	log      []string
}

// NewInterpreter returns a printer, powered on and ready, that sends its answers through reply.
func NewInterpreter(cfg Config, reply func([]byte)) *Interpreter {
	in := &Interpreter{cfg: cfg.withDefaults(), reply: reply, notify: make(chan struct{})}
	in.reset()
	return in
}

// reset is ESC @ (and power-on): settings back to the memory switches, the line buffer dropped.
func (in *Interpreter) reset() {
	in.bold, in.underline = false, false
	in.width, in.height = 1, 1
	in.align = Left
	in.table = codeTables[in.cfg.CodeTable]
	if in.table == nil {
		in.table = charmap.CodePage437
	}
	in.charset = in.cfg.Charset
	in.hriPos, in.barHeight, in.barModule = 0, 162, 3
	in.qrModule, in.qrLevel = 3, 'L'
	in.dropLine()
}

// dropLine empties the line buffer.
func (in *Interpreter) dropLine() {
	in.runs, in.runStart, in.lineRunes = in.runs[:0], in.runStart[:0], in.lineRunes[:0]
	in.lineCols, in.lineStarted = 0, false
}

func (in *Interpreter) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(in.log) < 10000 {
		in.log = append(in.log, msg)
	}
	if in.cfg.Logf != nil {
		in.cfg.Logf("printersim: %s", msg)
	}
}

// Write feeds bytes received from the host. It never fails: what the printer does not understand it
// logs and skips. A real-time command is acted on the moment its last byte arrives, wherever it
// stands in the stream (see realtime.go); every byte also goes on to the command interpreter.
func (in *Interpreter) Write(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	start := 0
	for i, c := range p {
		cmd, ok := in.scan(c)
		if !ok {
			continue
		}
		// The interpreter first takes everything received before this byte, so that the answer
		// and the printing come in the order of the bytes, however they were split.
		in.feed(p[start:i])
		start = i
		if in.receivingNVImage() {
			continue // FS q: real-time commands are not processed while it runs
		}
		if in.realTime(cmd) {
			start = i + 1 // the receive buffer was cleared, this command's last byte with it
		}
	}
	in.feed(p[start:])
	return len(p), nil
}

// feed hands received bytes to the command interpreter, which runs every whole command.
func (in *Interpreter) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	in.in = append(in.in, p...)
	off := 0
	for off < len(in.in) {
		n, ok := frame(in.in[off:])
		if !ok {
			break
		}
		in.dispatch(in.in[off : off+n])
		off += n
	}
	in.in = append(in.in[:0], in.in[off:]...)
}

// dispatch runs a command in order: now if the printer is printing, later if it is stopped. A
// real-time command met here was acted on when its last byte arrived: it is not run twice.
func (in *Interpreter) dispatch(cmd []byte) {
	if len(cmd) >= 3 && cmd[0] == dle && (cmd[1] == eot || cmd[1] == enq || cmd[1] == dc4) {
		return
	}
	if in.state.Stopped() || len(in.queue) > 0 {
		in.queue = append(in.queue, cmd...)
		return
	}
	if used := in.exec(cmd); used < len(cmd) {
		in.queue = append(in.queue, cmd[used:]...)
	}
}

// resume prints what was held while the printer was stopped.
func (in *Interpreter) resume() {
	if in.draining {
		return
	}
	in.draining = true
	defer func() { in.draining = false }()
	for len(in.queue) > 0 && !in.state.Stopped() {
		n, _ := frame(in.queue)
		used := in.exec(in.queue[:n])
		in.queue = in.queue[used:]
	}
	if len(in.queue) == 0 {
		in.queue = nil
	}
}

// changed follows a change of state: a stop ends the receipt in progress, incomplete; a restart
// prints what was held.
func (in *Interpreter) changed() {
	if in.state.Stopped() {
		if len(in.lines) > 0 {
			in.finish(false, in.state.cause())
		}
	} else {
		in.resume()
	}
	if in.cfg.XonXoff && in.busy != in.state.Stopped() && in.reply != nil {
		in.busy = !in.busy
		if in.busy {
			in.reply([]byte{xoff})
		} else {
			in.reply([]byte{xon})
		}
	}
	in.statusBack(false)
}

// asbGroups are the bits of the automatic status that each item of GS a n covers: bit 0 the
// drawer pin, bit 1 online/offline (with the cover and the feed button), bit 2 the errors, bit 3
// the roll paper sensors.
var asbGroups = [4][4]byte{
	{0x04, 0, 0, 0},
	{0x68, 0, 0, 0},
	{0, 0x6C, 0, 0},
	{0, 0, 0x0F, 0},
}

// statusBack sends the automatic status (ASB) when it is enabled and an enabled item changed, or
// at once when force is set (GS a n itself sends the status when it enables an item).
func (in *Interpreter) statusBack(force bool) {
	if in.asb == 0 {
		return
	}
	now := in.state.autoStatus()
	send := force
	for item, mask := range asbGroups {
		if in.asb&(1<<item) == 0 {
			continue
		}
		for i := range mask {
			if (now[i]^in.asbSent[i])&mask[i] != 0 {
				send = true
			}
		}
	}
	if !send {
		return
	}
	in.asbSent = now
	in.answer([]byte{gs, 'a', in.asb}, now[:])
}

// exec runs one whole non-real-time command and returns how many of its bytes it used: all of
// them, except for a text run cut short when the printer stopped at a line wrap.
func (in *Interpreter) exec(cmd []byte) int {
	switch c := cmd[0]; {
	case c >= 0x20:
		return in.text(cmd)
	case c == lf || c == ff:
		in.printLine()
	case c == cr || c == can:
		// CR is ignored with auto line feed off (the default on serial); CAN is for page mode.
	case c == ht:
		in.tab()
	case c == esc:
		in.execESC(cmd)
	case c == gs:
		in.execGS(cmd)
	case c == fs:
		in.logf("ignored FS %q", cmd[1:])
	default:
		in.logf("unknown byte %#02x", c)
	}
	return len(cmd)
}

func (in *Interpreter) text(b []byte) int {
	for i, c := range b {
		if !in.addRune(in.decode(c)) {
			return i
		}
	}
	return len(b)
}

func (in *Interpreter) decode(c byte) rune {
	if c < 0x80 {
		if in.charset == 1 {
			if r, ok := franceSet[c]; ok {
				return r
			}
		}
		if c != 0x7F {
			return rune(c)
		}
	}
	return in.table.DecodeByte(c)
}

// addRune puts a character in the line buffer, printing the buffer first when the character does
// not fit (the printer wraps). It returns false when that print stopped the printer: the character
// is then left for later.
func (in *Interpreter) addRune(r rune) bool {
	if in.lineStarted && in.lineCols+in.width > in.cfg.Layout.Columns {
		in.printLine()
		if in.state.Stopped() {
			return false
		}
	}
	if !in.lineStarted {
		in.lineStarted = true
		in.lineAlign = in.align
	}
	st := Run{Bold: in.bold, Underline: in.underline, Width: in.width, Height: in.height}
	if n := len(in.runs); n == 0 || in.runs[n-1] != st {
		in.runs = append(in.runs, st)
		in.runStart = append(in.runStart, len(in.lineRunes))
	}
	in.lineRunes = append(in.lineRunes, r)
	in.lineCols += in.width
	return true
}

// tab moves to the next tab stop (every 8 columns, as at power-on: ESC D is not modelled) with
// spaces in the current size, as many as fit before the stop; a stop beyond the line's end stops at
// the end, and the next character wraps. The line never wraps here, so any size ends the loop.
func (in *Interpreter) tab() {
	stop := min((in.lineCols/8+1)*8, in.cfg.Layout.Columns)
	for in.lineCols+in.width <= stop {
		in.addRune(' ')
	}
}

// printLine prints the line buffer (a blank line if it is empty) and feeds one line.
func (in *Interpreter) printLine() {
	l := Line{Kind: BlankLine, Align: in.align}
	if in.lineStarted {
		l = Line{Kind: TextLine, Align: in.lineAlign, Runs: make([]Run, len(in.runs))}
		for i, r := range in.runs {
			end := len(in.lineRunes)
			if i+1 < len(in.runs) {
				end = in.runStart[i+1]
			}
			r.Text = string(in.lineRunes[in.runStart[i]:end])
			l.Runs[i] = r
		}
	}
	in.dropLine()
	in.emit(l)
}

// startSymbol prints pending text before a barcode or a QR code, which start on a line of their own.
func (in *Interpreter) startSymbol(what string) bool {
	if in.lineStarted {
		in.logf("%s not at the beginning of a line: pending text printed first", what)
		in.printLine()
	}
	return !in.state.Stopped()
}

// emit adds a printed line to the receipt and counts it for the injected faults.
func (in *Interpreter) emit(l Line) {
	in.lines = append(in.lines, l)
	fired := false
	kept := in.injections[:0]
	for _, inj := range in.injections {
		if inj.kind == afterLines {
			inj.n--
			if inj.n <= 0 {
				in.state.apply(inj.fault, true)
				fired = true
				continue
			}
		}
		kept = append(kept, inj)
	}
	in.injections = kept
	if fired {
		in.changed()
	}
}

func (in *Interpreter) fire(kind triggerKind) {
	fired := false
	kept := in.injections[:0]
	for _, inj := range in.injections {
		if inj.kind == kind {
			in.state.apply(inj.fault, true)
			fired = true
			continue
		}
		kept = append(kept, inj)
	}
	in.injections = kept
	if fired {
		in.changed()
	}
}

// finish closes the receipt in progress.
func (in *Interpreter) finish(complete bool, fault Fault) {
	in.seq++
	r := &Receipt{Seq: in.seq, Lines: in.lines, Complete: complete, layout: in.cfg.Layout}
	if !complete {
		r.Fault = fault
	}
	r.Text = r.renderText()
	in.lines = nil
	in.receipts = append(in.receipts, r)
	if in.onReceipt != nil {
		in.onReceipt(r)
	}
	close(in.notify)
	in.notify = make(chan struct{})
}

func (in *Interpreter) cut() {
	if in.lineStarted {
		in.printLine()
		if in.state.Stopped() {
			return
		}
	}
	in.fire(atCut)
	if in.state.Stopped() {
		return // the cutter failed: the receipt was closed incomplete
	}
	if len(in.lines) == 0 {
		in.logf("cut with nothing printed since the last cut")
		return
	}
	in.finish(true, 0)
}

func (in *Interpreter) execESC(cmd []byte) {
	if _, known := escArgs[cmd[1]]; !known {
		in.logf("unknown command ESC %#02x", cmd[1])
		return
	}
	arg := byte(0)
	if len(cmd) > 2 {
		arg = cmd[2]
	}
	switch cmd[1] {
	case '@':
		in.reset()
	case '!':
		in.bold = arg&0x08 != 0
		in.underline = arg&0x80 != 0
		in.height = 1 + int(arg>>4&1)
		in.width = 1 + int(arg>>5&1)
		if arg&1 != 0 {
			in.logf("font B selected: rendered as font A")
		}
	case 'E', 'G':
		in.bold = arg&1 != 0
	case '-':
		in.underline = arg%48 != 0
	case 'a':
		if a := arg % 48; a <= 2 {
			in.align = Align(a)
		}
	case 'd':
		if in.lineStarted {
			in.printLine()
		}
		for i := 0; i < int(arg) && !in.state.Stopped(); i++ {
			in.printLine()
		}
	case 'J':
		if in.lineStarted {
			in.printLine()
		}
		for i := 0; i < int(arg)/lineSpace && !in.state.Stopped(); i++ {
			in.printLine()
		}
	case 't':
		if t, ok := codeTables[arg]; ok {
			in.table = t
		} else {
			in.logf("code table %d not supported: kept %v", arg, in.table)
		}
	case 'R':
		if arg > 1 {
			in.logf("international character set %d not supported: USA used", arg)
			arg = 0
		}
		in.charset = arg
	case 'M':
		if arg%48 != 0 {
			in.logf("font %d selected: rendered as font A", arg)
		}
	case 'i', 'm':
		in.cut()
	default:
		in.logf("ignored ESC %q", cmd[1:])
	}
}

func (in *Interpreter) execGS(cmd []byte) {
	if _, known := gsArgs[cmd[1]]; !known {
		in.logf("unknown command GS %#02x", cmd[1])
		return
	}
	arg := byte(0)
	if len(cmd) > 2 {
		arg = cmd[2]
	}
	switch cmd[1] {
	case '!':
		in.width = 1 + int(arg>>4&7)
		in.height = 1 + int(arg&7)
	case 'H':
		in.hriPos = int(arg % 48 & 3)
	case 'h':
		if arg > 0 {
			in.barHeight = int(arg)
		}
	case 'w':
		if arg >= 1 && arg <= 6 {
			in.barModule = int(arg)
		}
	case 'k':
		in.barcode(cmd)
	case '(':
		switch {
		case cmd[2] == 'k' && len(cmd) >= 7 && cmd[5] == 49:
			in.qrFunction(cmd[6], cmd[7:])
		case cmd[2] == 'D' && len(cmd) >= 6 && cmd[5] == 20:
			in.realTimeSwitch(cmd[6:])
		default:
			in.logf("ignored GS ( %c function", cmd[2])
		}
	case 'V':
		in.cut()
	case 'r':
		in.sync(arg)
	case 'a':
		in.asb = arg & 0x0F
		in.statusBack(true)
	case 'I':
		in.identify(arg)
	default:
		in.logf("ignored GS %q", cmd[1:])
	}
}

func (in *Interpreter) barcode(cmd []byte) {
	m := cmd[2]
	var data []byte
	if m <= 6 {
		data = cmd[3 : len(cmd)-1]
	} else {
		data = cmd[4:]
	}
	name, ok := symbologies[m]
	if !ok {
		in.logf("barcode type %d not supported: not printed", m)
		return
	}
	bc := &Barcode{Symbology: name, HRIPosition: in.hriPos, Height: in.barHeight, ModuleWidth: in.barModule}
	if m == 73 {
		c, err := parseCode128(data)
		if err != nil {
			in.logf("barcode not printed: %v", err)
			return
		}
		bc.Values, bc.HRI = c.Values, c.HRI
		if w := len(c.modules()) * in.barModule; w > printWidth(in.cfg.Layout) {
			in.logf("barcode of %d dots wider than the print area: not printed", w)
			return
		}
	} else {
		bc.HRI = string(data)
		in.logf("barcode %s printed as text only", name)
	}
	if !in.startSymbol("barcode") {
		return
	}
	in.emit(Line{Kind: BarcodeLine, Align: in.align, Barcode: bc})
}

func (in *Interpreter) qrFunction(fn byte, args []byte) {
	switch fn {
	case 65: // model
		if len(args) > 0 && args[0] != 50 {
			in.logf("QR model %d: printed as model 2", args[0])
		}
	case 67: // module size
		if len(args) > 0 && args[0] >= 1 && args[0] <= 16 {
			in.qrModule = int(args[0])
		}
	case 69: // error correction
		if len(args) > 0 && args[0] >= 48 && args[0] <= 51 {
			in.qrLevel = "LMQH"[args[0]-48]
		}
	case 80: // store data (after m=48)
		if len(args) > 0 {
			in.qrData = append(in.qrData[:0], args[1:]...)
		}
	case 81: // print
		if len(in.qrData) == 0 {
			in.logf("QR print with no data stored")
			return
		}
		q := &QRCode{Data: string(in.qrData), Module: in.qrModule, Level: in.qrLevel}
		code, err := q.encode()
		if err != nil {
			in.logf("QR not printed: %v", err)
			return
		}
		if w := code.Size * q.Module; w > printWidth(in.cfg.Layout) {
			in.logf("QR code of %d dots wider than the print area: not printed", w)
			return
		}
		if !in.startSymbol("QR code") {
			return
		}
		in.emit(Line{Kind: QRLine, Align: in.align, QR: q})
	default:
		in.logf("ignored QR function %d", fn)
	}
}

func (q *QRCode) encode() (*qr.Code, error) {
	level := map[byte]qr.Level{'L': qr.L, 'M': qr.M, 'Q': qr.Q, 'H': qr.H}[q.Level]
	return qr.Encode(q.Data, level)
}

// sync answers GS r: executed in order, so its answer tells the host that everything before it
// has been printed.
func (in *Interpreter) sync(n byte) {
	var b byte
	switch n {
	case 1, 49:
		if in.state.Paper != PaperOK {
			b = 0x03 // near-end sensor
		}
	case 2, 50:
		b = 0 // drawer kick-out connector pin 3 low
	default:
		in.logf("GS r %d not supported", n)
		return
	}
	in.answer([]byte{gs, 'r', n}, []byte{b})
	in.fire(afterSync)
}

func (in *Interpreter) identify(n byte) {
	var out []byte
	switch n {
	case 1, 49:
		out = []byte{0x20} // model ID
	case 2, 50:
		out = []byte{0x02} // type ID: autocutter fitted
	case 3, 51:
		out = []byte{0x10} // ROM version ID
	case 65:
		out = []byte("_1.00\x00")
	case 66:
		out = []byte("_PHARAON\x00")
	case 67:
		out = []byte("_PRINTERSIM\x00")
	case 68:
		out = []byte("_00000001\x00")
	default:
		in.logf("GS I %d not supported", n)
		return
	}
	in.answer([]byte{gs, 'I', n}, out)
}

func (in *Interpreter) answer(request, normal []byte) {
	out := normal
	if in.tamper != nil {
		out = in.tamper(request, normal)
	}
	if len(out) > 0 && in.reply != nil {
		in.reply(out)
	}
}

// --- Control from Go: the test or the person at the development kiosk.

// State is the printer's current sensors and faults.
func (in *Interpreter) State() State {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.state
}

func (in *Interpreter) set(f func(*State)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	f(&in.state)
	in.changed()
}

// SetPaper sets the roll's state. PaperEmpty stops printing (a receipt under way ends incomplete);
// PaperOK again prints what was held, like a real printer once a roll is loaded.
func (in *Interpreter) SetPaper(p Paper) { in.set(func(s *State) { s.Paper = p }) }

// SetCoverOpen opens or closes the cover.
func (in *Interpreter) SetCoverOpen(open bool) { in.set(func(s *State) { s.CoverOpen = open }) }

// SetCutterError jams or frees the cutter (the host can also clear it with DLE ENQ 1 or 2).
func (in *Interpreter) SetCutterError(on bool) { in.set(func(s *State) { s.CutterError = on }) }

// SetUnrecoverable breaks or repairs the printer.
func (in *Interpreter) SetUnrecoverable(on bool) { in.set(func(s *State) { s.Unrecoverable = on }) }

// SetOffline forces the printer offline (or back).
func (in *Interpreter) SetOffline(on bool) { in.set(func(s *State) { s.Offline = on }) }

// SetOverheat makes the head too hot (an auto-recoverable error) or cools it.
func (in *Interpreter) SetOverheat(on bool) { in.set(func(s *State) { s.Overheat = on }) }

// Inject makes fault happen when t fires; for example Inject(AfterLines(5), PaperOut) runs the
// paper out after five more lines.
func (in *Interpreter) Inject(t Trigger, f Fault) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if t.kind == afterLines && t.n <= 0 {
		in.state.apply(f, true)
		in.changed()
		return
	}
	in.injections = append(in.injections, injection{Trigger: t, fault: f})
}

// Tamper replaces the printer's answers to status requests (DLE EOT n, GS r n, GS I n, DLE DC4 8):
// f gets the request and the normal answer and returns what is sent instead (nil: nothing, as a
// silent or unplugged printer). nil restores the normal answers.
func (in *Interpreter) Tamper(f func(request, normal []byte) []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.tamper = f
}

// SetSilent makes the printer answer nothing (on) or normally (off).
func (in *Interpreter) SetSilent(on bool) {
	if on {
		in.Tamper(func(_, _ []byte) []byte { return nil })
	} else {
		in.Tamper(nil)
	}
}

// OnReceipt registers f to be called with each receipt as it is finished (under the lock: f must
// not call the Interpreter).
func (in *Interpreter) OnReceipt(f func(*Receipt)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.onReceipt = f
}

// Receipts returns the receipts finished so far, oldest first.
func (in *Interpreter) Receipts() []*Receipt {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]*Receipt(nil), in.receipts...)
}

// WaitReceipt waits until receipt number seq (1 for the first) is finished and returns it.
func (in *Interpreter) WaitReceipt(ctx context.Context, seq int) (*Receipt, error) {
	for {
		in.mu.Lock()
		if seq >= 1 && len(in.receipts) >= seq {
			r := in.receipts[seq-1]
			in.mu.Unlock()
			return r, nil
		}
		ch := in.notify
		in.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for receipt %d: %w", seq, ctx.Err())
		}
	}
}

// Log returns what the printer noted about the stream: unknown and ignored commands, bad data.
func (in *Interpreter) Log() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.log...)
}

// Held is the number of bytes received and not printed yet (waiting while the printer is stopped,
// or an unfinished command).
func (in *Interpreter) Held() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.queue) + len(in.in)
}

func printWidth(l Layout) int {
	if w := l.Columns*cellW + 8; w < l.Width {
		return w
	}
	return l.Width
}
