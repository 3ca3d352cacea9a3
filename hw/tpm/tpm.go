// Package tpm talks to a TPM 2.0: the kernel's resource manager
// (/dev/tpmrm0) on a kiosk, or an emulator's socket (swtpm) in the tests
// and the virtual machine. The kiosk asks two things of it (DESIGN.md §4,
// the trust root): to seal a secret so that only this TPM gives it back, and
// a monotonic counter in its non-volatile memory that nobody can set back,
// not even whoever holds the kiosk's disk.
//
// It must never hand a secret to anything but its caller: the unseal runs
// in a session salted with the storage key's public key and encrypts its
// answer, so the bytes on the bus between the TPM and the processor do not
// carry the secret in clear.
package tpm

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/google/go-tpm/tpm2"
	"github.com/google/go-tpm/tpm2/transport"
	"github.com/google/go-tpm/tpm2/transport/linuxtpm"
	"github.com/google/go-tpm/tpm2/transport/linuxudstpm"
)

// DefaultPath is the kernel's resource-managed TPM device.
const DefaultPath = "/dev/tpmrm0"

// DefaultCounterIndex is the NV index of the kiosk's counter, in the owner's
// range (TPM_HT_NV_INDEX, 0x01000000 to 0x013FFFFF).
const DefaultCounterIndex uint32 = 0x01305048

var (
	// ErrNoTPM: there is no TPM at the path.
	ErrNoTPM = errors.New("no TPM")
	// ErrNoCounter: the NV index is not defined.
	ErrNoCounter = errors.New("the TPM holds no such counter")
	// ErrNotCounter: the NV index exists but is not a counter, or not one
	// with the attributes the kiosk gives its own.
	ErrNotCounter = errors.New("the TPM's NV index is not the kiosk's counter")
	// ErrUnseal: the TPM refused to unseal the blob (another TPM's, a
	// cleared TPM, or a damaged blob).
	ErrUnseal = errors.New("the TPM cannot unseal the secret")
)

// Device is one TPM. Its methods are safe for concurrent use: commands are
// sent one at a time.
type Device struct {
	path string
	mu   sync.Mutex
	t    transport.TPMCloser
}

// Open opens the TPM at path: a character device (/dev/tpmrm0) or the
// Unix socket of an emulator (swtpm socket --server type=unixio).
func Open(path string) (*Device, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoTPM)
	}
	if err != nil {
		return nil, fmt.Errorf("tpm %s: %w", path, err)
	}
	var t transport.TPMCloser
	switch {
	case fi.Mode()&os.ModeSocket != 0:
		t, err = linuxudstpm.Open(path)
	case fi.Mode()&os.ModeDevice != 0:
		t, err = linuxtpm.Open(path)
	default:
		return nil, fmt.Errorf("%s is neither a device nor a socket: %w", path, ErrNoTPM)
	}
	if err != nil {
		return nil, fmt.Errorf("tpm %s: %w", path, err)
	}
	return &Device{path: path, t: t}, nil
}

// Path is where the TPM was opened.
func (d *Device) Path() string { return d.path }

// Close closes the connection.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.t.Close()
}

// ownerAuth is the owner hierarchy's authorisation: the kiosk leaves it
// empty (TPM's default), so it needs no secret to start.
func ownerAuth() tpm2.AuthHandle {
	return tpm2.AuthHandle{Handle: tpm2.TPMRHOwner, Auth: tpm2.PasswordAuth(nil)}
}

// counterAttrs are the attributes of the kiosk's counter. Only the owner
// hierarchy reads and increments it; TPM_NT_COUNTER means the TPM itself
// only ever adds one, and a counter defined anew starts at the highest
// count any counter of this TPM ever had, so undefining it and defining it
// again never sets it back.
var counterAttrs = tpm2.TPMANV{
	OwnerWrite: true,
	OwnerRead:  true,
	NT:         tpm2.TPMNTCounter,
	NoDA:       true,
}

// counterPublic is the public area of the counter at index.
func counterPublic(index uint32) tpm2.TPMSNVPublic {
	return tpm2.TPMSNVPublic{
		NVIndex:    tpm2.TPMHandle(index),
		NameAlg:    tpm2.TPMAlgSHA256,
		Attributes: counterAttrs,
		DataSize:   8,
	}
}

// readPublic returns the index's public area and name; ErrNoCounter when it
// is not defined.
func (d *Device) readPublic(index uint32) (*tpm2.TPMSNVPublic, tpm2.TPM2BName, error) {
	rsp, err := tpm2.NVReadPublic{NVIndex: tpm2.TPMHandle(index)}.Execute(d.t)
	if err != nil {
		if isHandleError(err) {
			return nil, tpm2.TPM2BName{}, fmt.Errorf("NV index %#08x: %w", index, ErrNoCounter)
		}
		return nil, tpm2.TPM2BName{}, fmt.Errorf("read the NV index %#08x: %w", index, err)
	}
	pub, err := rsp.NVPublic.Contents()
	if err != nil {
		return nil, tpm2.TPM2BName{}, fmt.Errorf("NV index %#08x: %w", index, err)
	}
	return pub, rsp.NVName, nil
}

// isHandleError says whether err is the TPM's answer for an index that is
// not defined.
func isHandleError(err error) bool {
	return errors.Is(err, tpm2.TPMRCHandle)
}

// checkCounter refuses an index whose attributes are not the kiosk's
// counter's (WRITTEN aside, which the first increment sets).
func checkCounter(index uint32, pub *tpm2.TPMSNVPublic) error {
	attrs := pub.Attributes
	attrs.Written = false
	if attrs != counterAttrs || pub.DataSize != 8 || pub.NameAlg != tpm2.TPMAlgSHA256 {
		return fmt.Errorf("NV index %#08x: %w", index, ErrNotCounter)
	}
	return nil
}

// DefineCounter defines the counter at index, never counted yet (Counter
// reads 0 until the first Increment). An index already defined is an
// error: the kiosk defines its counter once, at its first start.
func (d *Device) DefineCounter(index uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, _, err := d.readPublic(index); err == nil {
		return fmt.Errorf("NV index %#08x is already defined", index)
	} else if !errors.Is(err, ErrNoCounter) {
		return err
	}
	def := tpm2.NVDefineSpace{AuthHandle: ownerAuth(), PublicInfo: tpm2.New2B(counterPublic(index))}
	if _, err := def.Execute(d.t); err != nil {
		return fmt.Errorf("define the counter %#08x: %w", index, err)
	}
	return nil
}

// Counter returns the counter's value, 0 while it never counted:
// ErrNoCounter when the index is not defined, ErrNotCounter when it is not
// the kiosk's counter. (A counter's first count is at least 1: a counter
// defined anew starts from the highest any counter of the TPM reached.)
func (d *Device) Counter(index uint32) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pub, name, err := d.readPublic(index)
	if err != nil {
		return 0, err
	}
	if err := checkCounter(index, pub); err != nil {
		return 0, err
	}
	if !pub.Attributes.Written {
		return 0, nil
	}
	return d.read(index, name)
}

func (d *Device) read(index uint32, name tpm2.TPM2BName) (uint64, error) {
	rsp, err := tpm2.NVRead{
		AuthHandle: ownerAuth(),
		NVIndex:    tpm2.NamedHandle{Handle: tpm2.TPMHandle(index), Name: name},
		Size:       8,
	}.Execute(d.t)
	if err != nil {
		return 0, fmt.Errorf("read the counter %#08x: %w", index, err)
	}
	b := rsp.Data.Buffer
	if len(b) != 8 {
		return 0, fmt.Errorf("the counter %#08x read %d bytes: %w", index, len(b), ErrNotCounter)
	}
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v, nil
}

// Increment adds one to the counter and returns its new value.
func (d *Device) Increment(index uint32) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.incrementLocked(index)
}

func (d *Device) incrementLocked(index uint32) (uint64, error) {
	pub, name, err := d.readPublic(index)
	if err != nil {
		return 0, err
	}
	if err := checkCounter(index, pub); err != nil {
		return 0, err
	}
	if _, err := (tpm2.NVIncrement{
		AuthHandle: ownerAuth(),
		NVIndex:    tpm2.NamedHandle{Handle: tpm2.TPMHandle(index), Name: name},
	}).Execute(d.t); err != nil {
		return 0, fmt.Errorf("increment the counter %#08x: %w", index, err)
	}
	// The first increment sets WRITTEN, which changes the index's name.
	if _, name, err = d.readPublic(index); err != nil {
		return 0, err
	}
	return d.read(index, name)
}

// DeleteCounter undefines the counter: for the tests, which play the
// insider who clears it.
func (d *Device) DeleteCounter(index uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, name, err := d.readPublic(index)
	if err != nil {
		return err
	}
	_, err = tpm2.NVUndefineSpace{
		AuthHandle: ownerAuth(),
		NVIndex:    tpm2.NamedHandle{Handle: tpm2.TPMHandle(index), Name: name},
	}.Execute(d.t)
	if err != nil {
		return fmt.Errorf("undefine the counter %#08x: %w", index, err)
	}
	return nil
}
