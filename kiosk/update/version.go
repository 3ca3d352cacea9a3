package update

import (
	"fmt"
	"strings"
)

// CompareVersions orders two Debian package versions
// ([epoch:]upstream[-revision]) as dpkg does: negative when a < b, zero
// when equal, positive when a > b.
func CompareVersions(a, b string) int {
	ea, ua, ra := splitVersion(a)
	eb, ub, rb := splitVersion(b)
	if ea != eb {
		if ea < eb {
			return -1
		}
		return 1
	}
	if c := compareFragment(ua, ub); c != 0 {
		return c
	}
	return compareFragment(ra, rb)
}

// ValidVersion reports whether v is a Debian version dpkg accepts: it must
// start with a digit and use only the characters Debian allows.
func ValidVersion(v string) error {
	e, u, _ := splitVersion(v)
	if e < 0 || u == "" || u[0] < '0' || u[0] > '9' {
		return fmt.Errorf("version %q: not a Debian package version", v)
	}
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z',
			strings.ContainsRune(".+-~:", c):
		default:
			return fmt.Errorf("version %q: character %q: not a Debian package version", v, c)
		}
	}
	return nil
}

func splitVersion(v string) (epoch int, upstream, revision string) {
	if i := strings.IndexByte(v, ':'); i >= 0 {
		for _, c := range v[:i] {
			if c < '0' || c > '9' || epoch > 1<<20 {
				return -1, v, ""
			}
			epoch = epoch*10 + int(c-'0')
		}
		v = v[i+1:]
	}
	if i := strings.LastIndexByte(v, '-'); i >= 0 {
		return epoch, v[:i], v[i+1:]
	}
	return epoch, v, ""
}

// order is a character's weight in the non-digit parts: '~' sorts before
// everything, even the end of the part; letters before the other
// characters.
func order(c byte) int {
	switch {
	case c == '~':
		return -1
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return int(c)
	}
	return int(c) + 256
}

func compareFragment(a, b string) int {
	for a != "" || b != "" {
		// The non-digit prefixes, character by character.
		for (a != "" && !isDigit(a[0])) || (b != "" && !isDigit(b[0])) {
			var ca, cb int
			if a != "" {
				ca = order(a[0])
			}
			if b != "" {
				cb = order(b[0])
			}
			if ca != cb {
				if ca < cb {
					return -1
				}
				return 1
			}
			if a != "" {
				a = a[1:]
			}
			if b != "" {
				b = b[1:]
			}
		}
		// The numbers, without their leading zeros.
		for a != "" && a[0] == '0' {
			a = a[1:]
		}
		for b != "" && b[0] == '0' {
			b = b[1:]
		}
		na, nb := 0, 0
		for na < len(a) && isDigit(a[na]) {
			na++
		}
		for nb < len(b) && isDigit(b[nb]) {
			nb++
		}
		if na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a[:na], b[:nb]); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
