// Package id003 is the kiosk's host for a JCM ID-003 bill validator: the frame codec, the status
// parser and Host, the driver that polls the unit, decides escrows through the kiosk and turns
// VEND VALID into exactly one credit.
//
// The money rule it exists for (DESIGN.md §7): credit comes only from a note the
// validator reports irrevocably accepted, VEND VALID, and exactly once, even when the kiosk dies
// between any two bytes. The host therefore calls the kiosk's Credit before it sends the ACK that
// lets the unit finish stacking, and sends the ACK only once Credit has returned nil (the credit is
// durable). Killed before the ACK, the kiosk finds the unit still repeating VEND VALID at restart;
// killed after the commit but before the ACK, Credit is asked again for a note the kiosk already
// credited and must answer nil without crediting twice (see Wallet).
//
// This package must never credit anything itself, never treat ESCROW or STACKED as a credit, never
// reset the unit while a note may be on its way to VEND VALID, and never import the rest of the
// project: money is plain integer cents here.
//
// Protocol references: JCM's ID-003 specification is not public; the codes here were checked
// against several independent public host implementations and hardware notes (see the comments
// marked "uncertain" where they disagree or are silent).
package id003
