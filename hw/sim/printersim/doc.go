// Package printersim is a simulated ESC/POS receipt printer on a pseudo-terminal, for the tests
// and the development run: the kiosk's real printer driver talks to it over the same bytes as to
// the real printer, and a test or a person reads back what came out.
//
// It is a real interpreter of the byte stream: it frames every common ESC/POS command by its true
// length (printing what it models, skipping and logging the rest, logging unknown bytes). It acts
// on the real-time commands (DLE EOT, DLE ENQ, DLE DC4) the moment their last byte arrives,
// wherever they stand, inside another command's data included, as Epson documents, and even
// while stopped. It sends its Automatic Status Back when a host enables it (GS a), and XON/XOFF
// when configured for that flow control. It holds the other commands while stopped (paper out,
// cover open, cutter jam, error, offline) and prints them when the fault is cleared, like a real
// printer. Each cut makes a Receipt with a text rendering and a 1-bit PNG picture at 203 dpi in
// which the Code 128 bars and the QR code are drawn to scale, so they scan (the QR symbol alone,
// as the printer prints it: its quiet zone is the host's to feed). Paper and fault states are set
// from Go at once or on a trigger ("paper out after 5 lines"), answers can be silenced or garbled,
// and the cable can be unplugged and plugged back at the same stable link.
//
// It must never take a shortcut into the host's memory: everything it knows came over the wire.
package printersim
