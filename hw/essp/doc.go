// Package essp is the kiosk's host for Innovative Technology's note validators (NV9, NV10, NV11,
// NV200…) speaking SSP and its encrypted form eSSP: the frame codec, the encrypted layer, the
// unit's identity and channel table, and Host, the driver that polls the unit, decides escrows
// through the kiosk and turns the unit's credit event into exactly one credit. Host implements
// validator.Driver.
//
// The money rule (DESIGN.md §7): credit comes only from the unit's CREDIT NOTE event, and exactly
// once. Host polls with POLL WITH ACK, so the unit repeats CREDIT NOTE until EVENT ACK; the host
// calls Wallet.Credit first and acknowledges only once Credit returned nil. A host killed between
// the two finds the credit again at its restart and calls Credit with a Recovered note. A note in
// escrow is held (HOLD) while the kiosk records its intent (Wallet.Escrow, Wallet.Stacking); the
// next poll lets the unit stack it, REJECT gives it back. At the start of every session the host
// asks HOLD before its first poll: a unit that takes it holds a note nobody decided on in this
// session, and that note is given back (the first poll would otherwise stack it unseen).
//
// This package must never credit anything itself, never treat READ NOTE or NOTE STACKED as a
// credit, never poll with plain POLL (it loses an event the host died before committing), never
// reset the unit while a note may be on its way to its credit, and never import the rest of the
// project but hw and hw/validator.
//
// Sources. What comes from public documents and hosts, and what is a guess. The manual itself was not
// at hand: "the manual" below is what the public hosts take from it, read in their code and
// documentation, not copied.
//   - Frame (STX 0x7F, SEQ/address with the sequence flag in bit 7, length, data, CRC-16 poly
//     0x8005 seed 0xFFFF over SEQ..data sent low byte first, 0x7F doubled after STX), the generic
//     responses (F0 OK … FA key not set), the commands' codes, the events' codes and which carry
//     a channel: the manufacturer's SSP protocol manual (GA138) as public hosts implement it (the
//     npm package encrypted-smiley-secure-protocol, the Rust crate ssp); the SYNC and OK frames of
//     TestKnownFrames as public descriptions print them, checked by the CRC here.
//   - eSSP: Set Generator, Set Modulus, Request Key Exchange with 64-bit little-endian values;
//     key = fixed key (eight bytes little-endian, default 0x0123456701234567) then the negotiated
//     key (little-endian), AES-128 ECB; packet STEX 0x7E + AES(length, count LE32, data, random
//     packing to 16 bytes, CRC over all that): the manual and the same public hosts.
//   - The count: the unit checks the host's count, both count the packet, and the answer carries
//     the count plus one, which the host expects and sends next: as the public hosts behave
//     (encrypted-smiley-secure-protocol takes the answer's count as its next one). Guessed: that a
//     unit ignores a packet of the wrong count (no answer).
//   - SETUP REQUEST's layout for a validator (type, four ASCII firmware digits, country, value
//     multiplier 3 bytes big-endian, channels, values, security, real value multiplier 3 bytes
//     big-endian, protocol version, and from version 6 the channels' countries and 32-bit values):
//     the manual, as the public hosts parse it. Guessed: that the 32-bit value is in the
//     currency's units and the real value multiplier turns it into the smallest unit (cents).
//   - POLL stacking a note read into escrow and HOLD keeping it there, REJECT giving it back; the
//     unit giving the note back after about 10 s without a command: the manual and public hosts.
//     Guessed: HOLD answered COMMAND CANNOT BE PROCESSED when no note is in escrow (escrowAtStart
//     relies on it; a unit that answers OK anyway only has a note given back that was not there).
//   - POLL WITH ACK / EVENT ACK: the manual's description. Guessed: which events need the ack
//     (NeedsAck: credit, fraud attempt, the two power-up clearances).
//   - NOTE CLEARED FROM FRONT (E1) and NOTE CLEARED INTO CASH BOX (E2), reported after a power-up
//     with a note in the path: the manual. They map to validator.InAcceptor and InStacker.
//   - LAST REJECT CODE's codes: the public hosts' tables; the screen words they map to: our choice.
//   - The line: 9600 baud, 8 data bits, no parity, 2 stop bits, as the manual and the public hosts
//     open it.
//   - Guessed: primes for the key exchange below 2^31 (units computing in 64-bit products).
package essp
