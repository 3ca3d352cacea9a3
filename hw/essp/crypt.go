package essp

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/bits"
)

// STEX starts the data of an encrypted frame: 0x7E, then the AES-128 blocks.
const STEX = 0x7E

// DefaultFixedKey is the manufacturer's default fixed half of the eSSP key. A unit whose fixed key
// was changed (Set Fixed Encryption Key) needs the same value in Config.FixedKey.
const DefaultFixedKey uint64 = 0x0123456701234567

// ErrCrypto: an encrypted packet that does not decrypt to a valid one (bad length, CRC or count).
// The host renegotiates the key.
var ErrCrypto = errors.New("essp: encrypted packet rejected")

// MaxPlainLen is the most data an encrypted packet carries in one SSP frame: STEX and fifteen
// blocks fill the 255 bytes, less the length, the count and the CRC.
const MaxPlainLen = 15*aes.BlockSize - 7

// PowMod is b^e mod m, exactly, for any 64-bit m > 0: the key exchange's arithmetic.
func PowMod(b, e, m uint64) uint64 {
	if m == 1 {
		return 0
	}
	mulmod := func(x, y uint64) uint64 {
		hi, lo := bits.Mul64(x, y)
		_, r := bits.Div64(hi%m, lo, m)
		return r
	}
	r := uint64(1)
	b %= m
	for e > 0 {
		if e&1 == 1 {
			r = mulmod(r, b)
		}
		b = mulmod(b, b)
		e >>= 1
	}
	return r
}

// IsPrime reports whether n is prime (exact for 64-bit n: math/big's test is deterministic below
// 2^64).
func IsPrime(n uint64) bool { return new(big.Int).SetUint64(n).ProbablyPrime(0) }

// Session is one negotiated eSSP key and the packet count that goes with it. The count starts at 0
// after the exchange; the side that receives a packet checks its count, then both count it.
type Session struct {
	block cipher.Block
	Count uint32 // the count the next packet sent by the host carries
}

// NewSession builds the AES-128 key from the fixed and the negotiated halves, each as eight
// little-endian bytes, the fixed half first.
func NewSession(fixed, negotiated uint64) *Session {
	var key [16]byte
	binary.LittleEndian.PutUint64(key[:8], fixed)
	binary.LittleEndian.PutUint64(key[8:], negotiated)
	b, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // a 16-byte key always makes a cipher
	}
	return &Session{block: b}
}

// Seal returns STEX and the encrypted packet of data with the given count: length, count, data,
// random packing to a multiple of 16 bytes, CRC, in AES-128 ECB.
func (s *Session) Seal(count uint32, data []byte, random io.Reader) ([]byte, error) {
	if len(data) == 0 || len(data) > MaxPlainLen {
		return nil, fmt.Errorf("essp: seal: %d data bytes", len(data))
	}
	n := 1 + 4 + len(data) + 2
	total := (n + aes.BlockSize - 1) / aes.BlockSize * aes.BlockSize
	pt := make([]byte, total)
	pt[0] = byte(len(data))
	binary.LittleEndian.PutUint32(pt[1:5], count)
	copy(pt[5:], data)
	if _, err := io.ReadFull(random, pt[5+len(data):total-2]); err != nil {
		return nil, fmt.Errorf("essp: seal: packing: %w", err)
	}
	binary.LittleEndian.PutUint16(pt[total-2:], CRC(pt[:total-2]))
	out := make([]byte, 1+total)
	out[0] = STEX
	for i := 0; i < total; i += aes.BlockSize {
		s.block.Encrypt(out[1+i:], pt[i:i+aes.BlockSize])
	}
	return out, nil
}

// Open decrypts the data of an encrypted frame (STEX included) and returns its count and data. It
// checks the form and the CRC, not the count: the caller knows which count it expects.
func (s *Session) Open(payload []byte) (count uint32, data []byte, err error) {
	if len(payload) < 1+aes.BlockSize || payload[0] != STEX || (len(payload)-1)%aes.BlockSize != 0 {
		return 0, nil, fmt.Errorf("%w: %d bytes are not an encrypted packet", ErrCrypto, len(payload))
	}
	ct := payload[1:]
	pt := make([]byte, len(ct))
	for i := 0; i < len(ct); i += aes.BlockSize {
		s.block.Decrypt(pt[i:], ct[i:i+aes.BlockSize])
	}
	n := int(pt[0])
	if n == 0 || 5+n+2 > len(pt) {
		return 0, nil, fmt.Errorf("%w: length %d in %d bytes", ErrCrypto, n, len(pt))
	}
	if got, want := binary.LittleEndian.Uint16(pt[len(pt)-2:]), CRC(pt[:len(pt)-2]); got != want {
		return 0, nil, fmt.Errorf("%w: crc %04X, want %04X", ErrCrypto, got, want)
	}
	return binary.LittleEndian.Uint32(pt[1:5]), pt[5 : 5+n], nil
}
