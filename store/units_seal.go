package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"sync"

	"pharaon/game"
)

// The unsold units are sealed at rest (DESIGN.md §4): whoever reads the
// data disk does not learn which unit wins. Each unit is one AES-256
// block, under a key of its block derived from the trust root's secret:
//
//	seed(8) tier(1) via-bonus(1) index(4) "PU"(2)
//
// The index and the two fixed bytes are redundancy: a unit edited in the
// file, or moved to another place or block, decrypts to bytes that do not
// hold its own index and magic (a chance of 2⁻⁴⁸ otherwise), and the store
// refuses it as an integrity fault instead of drawing it. Whoever edits the
// file without the key can no more choose a unit's tier than read it.
//
// A store opened without an anchor (the tests, the tools that never sell)
// seals under a key derived from an all-zero secret: it hides nothing.

const (
	sealedUnitSize = aes.BlockSize
	unitMagic      = "PU"
)

// unitSeal keeps the ciphers of the blocks, one derived key each.
type unitSeal struct {
	key []byte // the store's units key (deriveKey(secret, domainUnitsKey))
	mu  sync.Mutex
	by  map[[2]uint32]cipher.Block // by (emission, number)
}

func newUnitSeal(secret []byte) *unitSeal {
	return &unitSeal{key: deriveKey(secret, domainUnitsKey), by: map[[2]uint32]cipher.Block{}}
}

// block returns the cipher of the block (emission, number).
func (u *unitSeal) block(emission, number uint32) cipher.Block {
	k := [2]uint32{emission, number}
	u.mu.Lock()
	defer u.mu.Unlock()
	if c, ok := u.by[k]; ok {
		return c
	}
	m := hmac.New(sha256.New, u.key)
	m.Write(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, emission), number))
	c, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		panic(err) // a 32-byte key is always an AES-256 key
	}
	u.by[k] = c
	return c
}

// sealedUnit is a unit as the units table keeps it, in clear.
type sealedUnit struct {
	idx      uint32
	tier     game.Tier
	viaBonus bool
	seed     uint64
}

func sealUnit(c cipher.Block, u sealedUnit) []byte {
	var p [sealedUnitSize]byte
	binary.BigEndian.PutUint64(p[0:], u.seed)
	p[8] = byte(u.tier)
	if u.viaBonus {
		p[9] = 1
	}
	binary.BigEndian.PutUint32(p[10:], u.idx)
	copy(p[14:], unitMagic)
	out := make([]byte, sealedUnitSize)
	c.Encrypt(out, p[:])
	return out
}

// openUnit decrypts the unit stored at idx; anything but a unit of this
// block at this index is an integrity fault of blockID.
func openUnit(c cipher.Block, blockID int64, idx uint32, sealed []byte) (sealedUnit, error) {
	if len(sealed) != sealedUnitSize {
		return sealedUnit{}, integrity("units", "blocks", blockID, "unit %d is %d bytes, not a sealed unit", idx, len(sealed))
	}
	var p [sealedUnitSize]byte
	c.Decrypt(p[:], sealed)
	u := sealedUnit{idx: binary.BigEndian.Uint32(p[10:]), tier: game.Tier(p[8]), viaBonus: p[9] == 1, seed: binary.BigEndian.Uint64(p[0:])}
	if string(p[14:]) != unitMagic || u.idx != idx || p[8] > game.NumTiers || p[9] > 1 || (u.viaBonus && u.tier == 0) {
		return sealedUnit{}, integrity("units", "blocks", blockID, "unit %d does not open with this kiosk's key: edited, moved, or sealed by another kiosk", idx)
	}
	return u, nil
}
