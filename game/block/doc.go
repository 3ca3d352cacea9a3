// Package block is the ticket-block file of Pharaon: its format, the
// issuer's generation of a block, its Ed25519 signature and the streaming
// check a kiosk runs before it sells a single unit of it.
//
// A block is the 350 000 units of play of Art. 2, in the order they will be
// sold, each carrying its prize tier of the Art. 3 table of the block's
// stake, whether that prize is revealed through the bonus game (Art. 4.7)
// and the seed its wall is laid out from. The file is
//
//	magic "PHARAONB" | header (98 bytes) | 350 000 units (14 bytes each) | signature (64 bytes)
//
// all integers big-endian. The signature is Ed25519ph (SHA-512 pre-hash,
// context "pharaon-block-v1") over everything before it, so both the writer
// and the reader stream: neither ever holds the 5 MB file.
//
// What this package must never do: let a block through whose signature, key,
// header or lot counts are not exactly right. A Reader returns io.EOF only
// after the last unit, the signature, the absence of trailing bytes, the
// per-tier counts against game.Table and the bonus counts against the header
// have all been checked; any other outcome is an error wrapping one of the
// sentinel errors, and a consumer that streams units into a transaction
// commits only on io.EOF. It does no I/O besides the io.Reader and io.Writer
// it is given, and imports nothing of the project but package game.
package block
