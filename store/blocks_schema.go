package store

// schemaV5BlockSignatures keeps, for each block, what the issuer signed that
// the blocks row does not already hold: the bonus lots of its header (32
// bytes, 8 × 4 big-endian, tier 1 first) and the 64-byte Ed25519ph
// signature. With them the boot check rebuilds the signed message from the
// row and the stored units and verifies it with the trusted issuer keys
// (VerifyBlocks), so a unit edited in the file cannot be hidden by
// recomputing units_digest, which anyone can. Why the constraints exist:
//   - both columns are set together, at import, and never change; a block
//     without them is an integrity fault (there is no unsigned block).
const schemaV5BlockSignatures = `
ALTER TABLE blocks ADD COLUMN bonus_lots BLOB CHECK (bonus_lots IS NULL OR length(bonus_lots) = 32);
ALTER TABLE blocks ADD COLUMN signature BLOB CHECK (signature IS NULL OR length(signature) = 64);
CREATE TRIGGER blocks_signed BEFORE INSERT ON blocks WHEN NEW.signature IS NULL OR NEW.bonus_lots IS NULL
BEGIN SELECT RAISE(ABORT, 'a block is imported with its signature'); END;
CREATE TRIGGER blocks_signature_fixed BEFORE UPDATE OF bonus_lots, signature ON blocks
BEGIN SELECT RAISE(ABORT, 'a block''s signature never changes'); END;
`
