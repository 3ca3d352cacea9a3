// Package helper is the root helper of the maintenance screen
// (DESIGN.md §10): what the kiosk's sandbox forbids it to do on a USB
// stick, asked over a local socket and done by a small root service
// (`pharaon helper`, packaging/systemd/pharaon-helper.socket):
//
//   - list the USB sticks mounted under the media directory (/media, where
//     packaging/image/usb-mount mounts them read-only) and the update
//     bundles on them;
//   - check, then install, a signed update bundle from a stick, with the
//     same checks as `pharaon update` (kiosk/update): the helper verifies
//     the bundle itself against the update keys only root can change, so a
//     kiosk (or whoever took its user) can ask for an install but never
//     have an unsigned or untrusted package installed;
//   - export the journal, the system's facts and the kiosk's own files
//     (its event log, its diagnostic) to a folder on a stick, which is
//     made writable for the export alone;
//   - unmount (eject) a stick, so it can be pulled out safely.
//
// A request names a stick by its directory's name under the media
// directory, which must be a mount point of a block device there, and a
// bundle by its path on that stick: nothing outside a mounted stick is
// read or written. The socket is root's and the kiosk group's (mode 0660),
// and the helper also checks the peer's user. One request is served at a
// time; one request per connection, its replies as JSON lines (the
// progress, then the outcome).
package helper
