package helper

import (
	"errors"
	"fmt"
)

// Socket is where the helper listens on a kiosk
// (packaging/systemd/pharaon-helper.socket).
const Socket = "/run/pharaon-helper.sock"

// The requests' operations.
const (
	OpSticks  = "sticks"  // list the sticks and their update bundles
	OpCheck   = "check"   // verify a bundle, install nothing
	OpInstall = "install" // verify and install a bundle
	OpExport  = "export"  // write the logs and the kiosk's files to a stick
	OpEject   = "eject"   // unmount a stick
	// OpSwitch restarts the machine into the system written into its
	// other A/B slot and not started yet; the kiosk asks it at its first
	// idle moment (kiosk.Machine.RunSystemSwitch).
	OpSwitch = "switch"
	// OpFleetCheck and OpFleetInstall verify, and install, a bundle the
	// fleet sent the kiosk (kiosk/fleet), which the kiosk downloaded into
	// the helper's spool directory: File is its plain name there.
	OpFleetCheck   = "fleet-check"
	OpFleetInstall = "fleet-install"
)

// Request is one request: an operation, the stick it acts on and, for an
// update, the bundle's path on the stick; for an export, the kiosk's id
// (in the folder's name) and its own files.
type Request struct {
	Op    string `json:"op"`
	Stick string `json:"stick,omitempty"`
	File  string `json:"file,omitempty"`
	Kiosk string `json:"kiosk,omitempty"`
	Files []File `json:"files,omitempty"`
}

// File is one of the kiosk's files in an export: a plain name (letters,
// digits, '.', '-', '_'), written in the export's folder.
type File struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// Stick is a USB stick mounted under the media directory.
type Stick struct {
	// Name is its directory's name under the media directory (sda1), what
	// a request names it by.
	Name string `json:"name"`
	// Dir is where it is mounted, Device the block device, FSType its
	// file system.
	Dir    string `json:"dir"`
	Device string `json:"device"`
	FSType string `json:"fstype"`
	// Updates are the update bundles (*.update) on it, relative to Dir.
	Updates []string `json:"updates,omitempty"`
	// Free is the room left on it, in bytes (-1: unknown).
	Free int64 `json:"free"`
}

// Update is what a bundle holds and what it replaces.
type Update struct {
	Package string `json:"package"`
	Version string `json:"version"`
	From    string `json:"from"` // the version installed before it
	Key     string `json:"key"`  // the signing key's id
}

// Exported is what an export wrote: its folder on the stick and the files
// in it.
type Exported struct {
	Folder string   `json:"folder"`
	Files  []string `json:"files"`
}

// Reply is one line of the helper's answer: a progress step, or the last
// line (Done) with the outcome, an error code when the request failed.
type Reply struct {
	Step     string    `json:"step,omitempty"`
	Done     bool      `json:"done,omitempty"`
	Code     string    `json:"code,omitempty"`
	Detail   string    `json:"detail,omitempty"`
	Sticks   []Stick   `json:"sticks,omitempty"`
	Update   *Update   `json:"update,omitempty"`
	Exported *Exported `json:"exported,omitempty"`
}

// Progress steps.
const (
	StepVerifying  = "verifying"
	StepInstalling = "installing"
	StepWriting    = "writing"
	StepSyncing    = "syncing"
)

// Error codes of a failed request, besides the update's own reasons
// (update.Reason: "unsigned", "downgrade"...).
const (
	CodeRequest  = "request"  // a request the helper does not take
	CodeNoStick  = "nostick"  // no stick of that name mounted
	CodeNoFile   = "nofile"   // no such bundle on the stick
	CodeBusy     = "busy"     // the stick is in use (eject)
	CodeFull     = "full"     // no room left on the stick
	CodeWrite    = "write"    // the stick could not be written
	CodeJournal  = "journal"  // the journal could not be read
	CodeRefused  = "refused"  // the peer may not ask
	CodeInternal = "internal" // anything else: see Detail
	CodeUpdate   = "update"   // the update failed for a reason without a code
	CodeNoSystem = "nosystem" // no system waits in the other slot (switch)
)

// Error is a request the helper refused or could not do: a code the
// screen says in its language, and the technical detail.
type Error struct {
	Code   string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "helper: " + e.Code
	}
	return fmt.Sprintf("helper: %s: %s", e.Code, e.Detail)
}

// ErrUnavailable: no helper answers (a development run, or its service
// is not installed).
var ErrUnavailable = errors.New("the maintenance helper is not running")

// CodeOf is err's code: the helper's Error's, "unavailable" for
// ErrUnavailable, CodeInternal otherwise ("" for nil).
func CodeOf(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	}
	return CodeInternal
}

func fail(code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}
