package essp

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Unit types in the answers to SETUP REQUEST and UNIT DATA.
const (
	UnitValidator = 0x00
	UnitNV11      = 0x07
)

// Channel is one entry of the unit's channel table: a note it knows.
type Channel struct {
	Value    uint32 // in the currency's units (5 for a 5 € note); multiply by RealMultiplier for cents
	Country  string // three letters, "EUR"
	Security byte
}

// Setup is the unit's answer to SETUP REQUEST for a note validator: who it is and its channel
// table, read from the unit itself.
type Setup struct {
	UnitType        byte
	Firmware        string // four ASCII digits, "0420" for 4.20
	Country         string
	ValueMultiplier uint32 // three bytes, big-endian
	Channels        []Channel
	RealMultiplier  uint32 // three bytes, big-endian: channel value × this = value in the currency's smallest unit
	Protocol        byte
}

// Cents is the value of a channel (1-based) in cents, false when the table has no such channel.
func (s Setup) Cents(ch byte) (int64, bool) {
	if ch == 0 || int(ch) > len(s.Channels) {
		return 0, false
	}
	m := int64(s.RealMultiplier)
	if m == 0 {
		m = 1
	}
	return int64(s.Channels[ch-1].Value) * m, true
}

// Channel returns the channel (1-based) of a value in cents and currency, 0 if none.
func (s Setup) Channel(cents int64, country string) byte {
	for i := range s.Channels {
		if c, _ := s.Cents(byte(i + 1)); c == cents && (country == "" || s.Channels[i].Country == country) {
			return byte(i + 1)
		}
	}
	return 0
}

// ParseSetup reads the data of a SETUP REQUEST answer after RespOK. From protocol version 6 on,
// each channel's value and country come from the expanded part (four bytes little-endian, three
// letters); before, from the one-byte values and the unit's country.
func ParseSetup(b []byte) (Setup, error) {
	bad := func(what string) (Setup, error) {
		return Setup{}, fmt.Errorf("%w: setup request: %s in % X", ErrFrame, what, b)
	}
	if len(b) < 12 {
		return bad("too short")
	}
	s := Setup{UnitType: b[0], Firmware: string(b[1:5]), Country: string(b[5:8]),
		ValueMultiplier: be24(b[8:11])}
	n := int(b[11])
	if n == 0 || n > 32 {
		return bad(fmt.Sprintf("%d channels", n))
	}
	p := 12
	if len(b) < p+2*n+4 {
		return bad("channel table cut short")
	}
	vals, secs := b[p:p+n], b[p+n:p+2*n]
	p += 2 * n
	s.RealMultiplier = be24(b[p : p+3])
	s.Protocol = b[p+3]
	p += 4
	s.Channels = make([]Channel, n)
	for i := range n {
		s.Channels[i] = Channel{Value: uint32(vals[i]), Country: s.Country, Security: secs[i]}
	}
	if s.Protocol >= 6 {
		if len(b) < p+7*n {
			return bad("expanded table cut short")
		}
		for i := range n {
			s.Channels[i].Country = string(b[p+3*i : p+3*i+3])
			s.Channels[i].Value = binary.LittleEndian.Uint32(b[p+3*n+4*i:])
		}
	}
	return s, nil
}

// AppendSetup encodes s as a unit answers SETUP REQUEST, after RespOK.
func AppendSetup(dst []byte, s Setup) []byte {
	dst = append(dst, s.UnitType)
	dst = append(dst, fixed(s.Firmware, 4)...)
	dst = append(dst, fixed(s.Country, 3)...)
	dst = appendBE24(dst, s.ValueMultiplier)
	dst = append(dst, byte(len(s.Channels)))
	for _, c := range s.Channels {
		v := byte(0) // an expanded value too big for a byte is given in the expanded part only
		if c.Value < 256 {
			v = byte(c.Value)
		}
		dst = append(dst, v)
	}
	for _, c := range s.Channels {
		dst = append(dst, c.Security)
	}
	dst = appendBE24(dst, s.RealMultiplier)
	dst = append(dst, s.Protocol)
	if s.Protocol >= 6 {
		for _, c := range s.Channels {
			dst = append(dst, fixed(c.Country, 3)...)
		}
		for _, c := range s.Channels {
			dst = binary.LittleEndian.AppendUint32(dst, c.Value)
		}
	}
	return dst
}

func fixed(s string, n int) []byte {
	b := []byte(s)
	for len(b) < n {
		b = append(b, ' ')
	}
	return b[:n]
}

func be24(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func appendBE24(dst []byte, v uint32) []byte { return append(dst, byte(v>>16), byte(v>>8), byte(v)) }

// ParseSerial reads the answer to SERIAL NUMBER: four bytes, big-endian.
func ParseSerial(b []byte) (string, error) {
	if len(b) != 4 {
		return "", fmt.Errorf("%w: serial number of %d bytes", ErrFrame, len(b))
	}
	return strconv.FormatUint(uint64(binary.BigEndian.Uint32(b)), 10), nil
}

// UnitTypeName names a unit type for Identity.Model.
func UnitTypeName(t byte) string {
	switch t {
	case UnitValidator:
		return "note validator"
	case 0x03:
		return "SMART Hopper"
	case 0x06:
		return "SMART Payout"
	case UnitNV11:
		return "NV11"
	}
	return fmt.Sprintf("unit type %02X", t)
}

// printable keeps an identity string readable in the event log whatever the unit sends.
func printable(b []byte) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7E {
			return -1
		}
		return r
	}, string(b)))
}
