package printersim

// Control bytes of the ESC/POS stream.
const (
	ht   = 0x09
	lf   = 0x0A
	ff   = 0x0C
	cr   = 0x0D
	can  = 0x18
	esc  = 0x1B
	fs   = 0x1C
	gs   = 0x1D
	dle  = 0x10
	eot  = 0x04
	enq  = 0x05
	dc4  = 0x14
	xon  = 0x11
	xoff = 0x13
)

// Argument counts of the fixed-length ESC, GS and FS commands the printer knows, including those
// it accepts and ignores (images, drawer, page mode...): a host may send any of them, and skipping
// each by its true length keeps the stream in step. -1 marks commands with a computed length.
var (
	escArgs = map[byte]int{
		ff: 0, ' ': 1, '!': 1, '$': 2, '%': 1, '&': -1, '(': -1, '*': -1, '-': 1, '2': 0, '3': 1,
		'<': 0, '=': 1, '?': 1, '@': 0, 'D': -1, 'E': 1, 'G': 1, 'J': 1, 'K': 1, 'L': 0, 'M': 1,
		'R': 1, 'S': 0, 'T': 1, 'U': 1, 'V': 1, 'W': 8, '\\': 2, 'a': 1, 'c': 2, 'd': 1, 'e': 1,
		'i': 0, 'm': 0, 'p': 3, 'r': 1, 't': 1, 'u': 1, 'v': 0, '{': 1,
	}
	gsArgs = map[byte]int{
		'!': 1, '$': 2, '(': -1, '*': -1, '/': 1, '8': -1, ':': 0, 'B': 1, 'H': 1, 'I': 1, 'L': 2,
		'P': 2, 'T': 1, 'V': -1, 'W': 2, '\\': 2, '^': 3, 'a': 1, 'b': 1, 'f': 1, 'h': 1, 'k': -1,
		'r': 1, 'v': -1, 'w': 1,
	}
	fsArgs = map[byte]int{
		'!': 1, '&': 0, '(': -1, '-': 1, '.': 0, '?': 2, 'C': 1, 'S': 2, 'W': 1, 'p': 2, 'q': -1,
	}
)

// frame returns the length of the command (or run of printable text) at the start of b, and false
// when b does not hold all of it yet. It never fails: an unknown command is framed as its prefix and
// one byte, so the stream moves on the way a printer skips what it does not understand.
func frame(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	c := b[0]
	if c >= 0x20 {
		n := 1
		for n < len(b) && b[n] >= 0x20 {
			n++
		}
		return n, true
	}
	switch c {
	case esc:
		return framePrefixed(b, escArgs, frameESC)
	case gs:
		return framePrefixed(b, gsArgs, frameGS)
	case fs:
		return framePrefixed(b, fsArgs, frameFS)
	case dle:
		return frameDLE(b)
	}
	return 1, true // LF, CR, HT, FF, CAN and unknown control bytes stand alone
}

func framePrefixed(b []byte, args map[byte]int, variable func([]byte) (int, bool)) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	n, known := args[b[1]]
	switch {
	case !known:
		return 2, true
	case n < 0:
		return variable(b)
	}
	return need(b, 2+n)
}

func need(b []byte, n int) (int, bool) {
	if len(b) < n {
		return 0, false
	}
	return n, true
}

// withLength frames a command whose header of h bytes ends with a little-endian length of k bytes
// counting the data that follows, times unit.
func withLength(b []byte, h, k, unit int) (int, bool) {
	if len(b) < h {
		return 0, false
	}
	n := 0
	for i := k; i > 0; i-- {
		n = n<<8 | int(b[h-k+i-1])
	}
	return need(b, h+n*unit)
}

func frameESC(b []byte) (int, bool) {
	switch b[1] {
	case '(': // ESC ( x pL pH data
		return withLength(b, 5, 2, 1)
	case 'D': // ESC D n1 ... nk NUL: tab stops, at most 32
		for i := 2; i < len(b); i++ {
			if b[i] == 0 || i == 2+32 {
				return i + 1, true
			}
		}
		return 0, false
	case '*': // ESC * m nL nH d1 ... dk: bit image, 1 or 3 bytes per column
		if len(b) < 5 {
			return 0, false
		}
		cols := int(b[3]) | int(b[4])<<8
		if b[2] == 32 || b[2] == 33 {
			cols *= 3
		}
		return need(b, 5+cols)
	case '&': // ESC & y c1 c2 [x d1 ... d(y*x)] for c1..c2: user-defined characters
		if len(b) < 5 {
			return 0, false
		}
		y, c1, c2 := int(b[2]), int(b[3]), int(b[4])
		i := 5
		for ch := c1; ch <= c2; ch++ {
			if len(b) <= i {
				return 0, false
			}
			i += 1 + y*int(b[i])
		}
		return need(b, i)
	}
	return 2, true
}

func frameGS(b []byte) (int, bool) {
	switch b[1] {
	case '(': // GS ( x pL pH data: QR, PDF417, graphics, process ID...
		return withLength(b, 5, 2, 1)
	case '8': // GS 8 x p1 p2 p3 p4 data: large graphics
		return withLength(b, 7, 4, 1)
	case '*': // GS * x y d1 ... d(x*y*8): downloaded bit image
		if len(b) < 4 {
			return 0, false
		}
		return need(b, 4+int(b[2])*int(b[3])*8)
	case 'v': // GS v 0 m xL xH yL yH d1 ... dk: raster image
		if len(b) < 8 {
			return 0, false
		}
		x := int(b[4]) | int(b[5])<<8
		y := int(b[6]) | int(b[7])<<8
		return need(b, 8+x*y)
	case 'V': // GS V m [n]
		if len(b) < 3 {
			return 0, false
		}
		switch b[2] {
		case 65, 66, 97, 98, 103, 104:
			return need(b, 4)
		}
		return 3, true
	case 'k': // GS k m d1 ... NUL (m 0-6), or GS k m n d1 ... dn (m 65-79)
		if len(b) < 3 {
			return 0, false
		}
		if b[2] <= 6 {
			for i := 3; i < len(b); i++ {
				if b[i] == 0 {
					return i + 1, true
				}
			}
			return 0, false
		}
		return withLength(b, 4, 1, 1)
	}
	return 2, true
}

func frameFS(b []byte) (int, bool) {
	switch b[1] {
	case '(':
		return withLength(b, 5, 2, 1)
	case 'q': // FS q n [xL xH yL yH d1 ... d(x*y*8)]1 ... [...]n: define NV bit images
		if len(b) < 3 {
			return 0, false
		}
		i := 3
		for range int(b[2]) {
			if len(b) < i+4 {
				return 0, false
			}
			x := int(b[i]) | int(b[i+1])<<8
			y := int(b[i+2]) | int(b[i+3])<<8
			i += 4 + x*y*8
		}
		return need(b, i)
	}
	return 2, true
}

// frameDLE frames the real-time commands.
func frameDLE(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	switch b[1] {
	case eot: // DLE EOT n, and DLE EOT n a for n = 7, 8, 18
		if len(b) < 3 {
			return 0, false
		}
		switch b[2] {
		case 7, 8, 18:
			return need(b, 4)
		}
		return 3, true
	case enq:
		return need(b, 3)
	case dc4: // DLE DC4 fn ...: 1 pulse (m t), 2 power off (a b), 7 (m), 8 clear buffers (7 bytes)
		if len(b) < 3 {
			return 0, false
		}
		switch b[2] {
		case 1, 2:
			return need(b, 5)
		case 7:
			return need(b, 4)
		case 8:
			return need(b, 10)
		}
		return 3, true
	}
	return 1, true // a lone DLE
}
