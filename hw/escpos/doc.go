// Package escpos drives an ESC/POS receipt printer over an hw.Port: a Doc builder that turns a
// voucher into the printer's byte stream (styles, text in code page 858, Code 128, QR code, cut)
// and a Printer that reads the real-time status (DLE EOT 1 to 4) before and after each print and
// confirms a print only once the printer has processed every byte of it.
//
// A cash-out voucher is money: the kiosk zeroes the credit only when Print returns nil. So this
// package must never report a print as done that the printer has not confirmed, never send raw
// UTF-8 or a control byte smuggled in text (a stray ESC could change what is printed), never let
// DLE followed by EOT, ENQ or DC4 appear anywhere in a document (a printer acts on those real-time
// commands wherever they stand, barcode and QR data included), and never guess at a status byte
// that does not carry the protocol's fixed bits; the bytes a printer sends unasked (XON, XOFF,
// Automatic Status Back, an unasked status) are skipped, never taken for an answer. It imports
// nothing of the project: amounts reach it as already formatted text.
package escpos
