package tpm

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/google/go-tpm/tpm2"
)

// Sealing. The secret is sealed under the owner hierarchy's storage root
// key (the TCG's ECC P-256 SRK template: the same key every time from the
// TPM's own seed, never stored outside it): the blob Seal returns can be
// kept anywhere, only this TPM gives the secret back, and a TPM cleared or
// another machine's cannot. The blob also keeps the SRK's name, and Unseal
// refuses a storage key that is not the one sealed under.

// sealMagic starts a blob: the format's name and version.
const sealMagic = "PHTPMSL1"

// srk creates the storage root key and returns its handle, name and public
// area; the caller flushes it.
func (d *Device) srk() (tpm2.TPMHandle, tpm2.TPM2BName, tpm2.TPMTPublic, error) {
	rsp, err := tpm2.CreatePrimary{
		PrimaryHandle: ownerAuth(),
		InPublic:      tpm2.New2B(tpm2.ECCSRKTemplate),
	}.Execute(d.t)
	if err != nil {
		return 0, tpm2.TPM2BName{}, tpm2.TPMTPublic{}, fmt.Errorf("create the storage key: %w", err)
	}
	pub, err := rsp.OutPublic.Contents()
	if err != nil {
		d.flush(rsp.ObjectHandle)
		return 0, tpm2.TPM2BName{}, tpm2.TPMTPublic{}, fmt.Errorf("storage key: %w", err)
	}
	return rsp.ObjectHandle, rsp.Name, *pub, nil
}

func (d *Device) flush(h tpm2.TPMHandle) {
	_, _ = tpm2.FlushContext{FlushHandle: h}.Execute(d.t)
}

// Seal seals secret (at most 128 bytes) to this TPM and returns the blob
// to keep.
func (d *Device) Seal(secret []byte) ([]byte, error) {
	if len(secret) == 0 || len(secret) > 128 {
		return nil, fmt.Errorf("seal %d bytes: 1 to 128", len(secret))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h, name, pub, err := d.srk()
	if err != nil {
		return nil, err
	}
	defer d.flush(h)
	rsp, err := tpm2.Create{
		ParentHandle: tpm2.AuthHandle{
			Handle: h,
			Name:   name,
			// The secret travels to the TPM encrypted under a key salted
			// with the storage key's public key.
			Auth: tpm2.HMAC(tpm2.TPMAlgSHA256, 16, tpm2.AESEncryption(128, tpm2.EncryptIn), tpm2.Salted(h, pub)),
		},
		InSensitive: tpm2.TPM2BSensitiveCreate{Sensitive: &tpm2.TPMSSensitiveCreate{
			Data: tpm2.NewTPMUSensitiveCreate(&tpm2.TPM2BSensitiveData{Buffer: secret}),
		}},
		InPublic: tpm2.New2B(tpm2.TPMTPublic{
			Type:    tpm2.TPMAlgKeyedHash,
			NameAlg: tpm2.TPMAlgSHA256,
			ObjectAttributes: tpm2.TPMAObject{
				FixedTPM:     true,
				FixedParent:  true,
				UserWithAuth: true,
				NoDA:         true,
			},
		}),
	}.Execute(d.t)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	var b []byte
	b = append(b, sealMagic...)
	for _, part := range [][]byte{name.Buffer, tpm2.Marshal(rsp.OutPublic), tpm2.Marshal(rsp.OutPrivate)} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(part)))
		b = append(b, part...)
	}
	return b, nil
}

// parseBlob splits a blob into the SRK's name, the public and the private
// parts.
func parseBlob(b []byte) (name []byte, pub tpm2.TPM2BPublic, priv tpm2.TPM2BPrivate, err error) {
	if !bytes.HasPrefix(b, []byte(sealMagic)) {
		return nil, pub, priv, fmt.Errorf("not a sealed secret: %w", ErrUnseal)
	}
	b = b[len(sealMagic):]
	var parts [3][]byte
	for i := range parts {
		if len(b) < 4 || uint32(len(b)-4) < binary.BigEndian.Uint32(b) {
			return nil, pub, priv, fmt.Errorf("sealed secret cut short: %w", ErrUnseal)
		}
		n := binary.BigEndian.Uint32(b)
		parts[i], b = b[4:4+n], b[4+n:]
	}
	if len(b) != 0 {
		return nil, pub, priv, fmt.Errorf("sealed secret with %d bytes too many: %w", len(b), ErrUnseal)
	}
	p, err := tpm2.Unmarshal[tpm2.TPM2BPublic](parts[1])
	if err != nil {
		return nil, pub, priv, fmt.Errorf("sealed secret's public part: %v: %w", err, ErrUnseal)
	}
	s, err := tpm2.Unmarshal[tpm2.TPM2BPrivate](parts[2])
	if err != nil {
		return nil, pub, priv, fmt.Errorf("sealed secret's private part: %v: %w", err, ErrUnseal)
	}
	return parts[0], *p, *s, nil
}

// Unseal gives back the secret of a blob Seal made on this TPM.
func (d *Device) Unseal(blob []byte) ([]byte, error) {
	wantName, pub, priv, err := parseBlob(blob)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	h, name, srkPub, err := d.srk()
	if err != nil {
		return nil, err
	}
	defer d.flush(h)
	if !bytes.Equal(name.Buffer, wantName) {
		return nil, fmt.Errorf("the TPM's storage key is not the one the secret was sealed under (a cleared TPM, or another machine's): %w", ErrUnseal)
	}
	lrsp, err := tpm2.Load{
		ParentHandle: tpm2.AuthHandle{Handle: h, Name: name, Auth: tpm2.PasswordAuth(nil)},
		InPrivate:    priv,
		InPublic:     pub,
	}.Execute(d.t)
	if err != nil {
		return nil, fmt.Errorf("load the sealed secret: %v: %w", err, ErrUnseal)
	}
	defer d.flush(lrsp.ObjectHandle)
	ursp, err := tpm2.Unseal{
		ItemHandle: tpm2.AuthHandle{Handle: lrsp.ObjectHandle, Name: lrsp.Name, Auth: tpm2.PasswordAuth(nil)},
	}.Execute(d.t,
		// The answer comes back encrypted for this session only.
		tpm2.HMAC(tpm2.TPMAlgSHA256, 16, tpm2.AESEncryption(128, tpm2.EncryptOut), tpm2.Salted(h, srkPub)))
	if err != nil {
		return nil, fmt.Errorf("unseal: %v: %w", err, ErrUnseal)
	}
	return bytes.Clone(ursp.OutData.Buffer), nil
}
