package kiosk

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Paris on any system: vouchers state the local date and time

	"pharaon/game"
	"pharaon/hw/escpos"
	"pharaon/store"
)

// A voucher's validation number is 18 digits: 16 drawn from crypto/rand and
// 2 check digits of ISO 7064 MOD 97-10 (the scheme of the IBAN). Two check
// digits rather than one (Luhn, Damm, Verhoeff): staff key the number in by
// hand when the barcode does not scan, and MOD 97-10 detects every single
// wrong digit, every swap of two adjacent digits (Luhn misses 09↔90) and of
// two digits one apart, most twin errors, and all but about 1 % of the
// other mistakes (a single check digit lets 10 % through). Sixteen random
// digits (10^16, about 2^53) still leave no guessable number: the counter
// checks each number against the kiosk's or the operator's records anyway,
// and a guess has about one chance in 10^12 of hitting one of ten thousand
// vouchers outstanding.
const (
	validationRandom = store.ValidationDigits - 2
	// ValidationDigits is the length of a validation number.
	ValidationDigits = store.ValidationDigits
)

// ErrBadValidation: the text is not a validation number (wrong length, not
// digits, or its check digits do not match: a typing mistake). The error
// is a *MistypedError, which says which.
var ErrBadValidation = errors.New("not a valid voucher number")

// MistypedError says how a typed number fails to be a validation number,
// without the number itself: the refusal is logged, and a number one digit
// off a real one would let whoever reads the log pay it. Digits is how many
// digits were typed (spaces and dashes dropped); NotDigits that something
// else was typed. When 18 digits fail their check, Groups are the groups of
// four, as printed (1 to 5), that hold the mistake if it is one wrong digit
// or one swap of two neighbours: one or two groups, or none when the check
// cannot narrow it down that far.
type MistypedError struct {
	Digits    int
	NotDigits bool
	Groups    []int
}

func (e *MistypedError) Error() string {
	switch {
	case e.NotDigits:
		return "validation number: not only digits"
	case e.Digits != ValidationDigits:
		return fmt.Sprintf("validation number: %d digits, not %d", e.Digits, ValidationDigits)
	case len(e.Groups) > 0:
		return fmt.Sprintf("validation number: check digits do not match (mistake in group %v)", e.Groups)
	}
	return "validation number: check digits do not match"
}

func (e *MistypedError) Unwrap() error { return ErrBadValidation }

// recordWithValidation records a voucher under a validation number drawn
// from crypto/rand by record, and draws again, three more times at most,
// when record refuses it for a number that exists already (about never) or
// for a reason again accepts (nil: none other).
func recordWithValidation(record func(validation string) (store.Voucher, error), again func(error) bool) (store.Voucher, error) {
	for attempt := 0; ; attempt++ {
		val, err := NewValidation(rand.Reader)
		if err != nil {
			return store.Voucher{}, err
		}
		v, err := record(val)
		if err != nil && attempt < 3 && (errors.Is(err, store.ErrDuplicateRef) || again != nil && again(err)) {
			continue
		}
		return v, err
	}
}

// NewValidation draws a validation number from r (crypto/rand.Reader in
// the kiosk: a voucher number must not be guessable).
func NewValidation(r io.Reader) (string, error) {
	digits := make([]byte, 0, ValidationDigits)
	var buf [32]byte
	for len(digits) < validationRandom {
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return "", fmt.Errorf("validation number: %w", err)
		}
		for _, b := range buf {
			// 250 = 25 × 10: bytes above are dropped so every digit is
			// equally likely.
			if b < 250 && len(digits) < validationRandom {
				digits = append(digits, '0'+b%10)
			}
		}
	}
	c := 98 - mod97(string(digits)+"00")
	return string(digits) + string([]byte{'0' + byte(c/10), '0' + byte(c%10)}), nil
}

// mod97 is the remainder of the decimal number s by 97.
func mod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		r = (r*10 + int(s[i]-'0')) % 97
	}
	return r
}

// ValidValidation reports whether s is a validation number: 18 digits whose
// value is 1 modulo 97.
func ValidValidation(s string) bool {
	return len(s) == ValidationDigits && allDigits(s) && mod97(s) == 1
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TypedDigits is what staff typed or a scanner sent with the spaces and
// dashes a hand or a scanner may add dropped.
func TypedDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '\u00a0' {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// ParseValidation reads a validation number keyed in by staff or read by a
// scanner: spaces and dashes are ignored. A *MistypedError (ErrBadValidation)
// if it is not one.
func ParseValidation(s string) (string, error) {
	clean := TypedDigits(s)
	switch {
	case !allDigits(clean):
		return "", &MistypedError{Digits: len(clean), NotDigits: true}
	case len(clean) != ValidationDigits:
		return "", &MistypedError{Digits: len(clean)}
	case mod97(clean) != 1:
		return "", &MistypedError{Digits: len(clean), Groups: mistypedGroups(clean)}
	}
	return clean, nil
}

// mistypedGroups are the groups of four digits (1 to 5, as printed) that
// may hold the mistake of v, 18 digits whose check fails: the groups where
// the numbers that check, one wrong digit or one swap of two neighbouring
// digits away from v, differ from it. nil when they lie in more than two
// groups (the check then narrows nothing worth saying) or there are none
// (a mistake of more than one digit). MOD 97-10 names one or two groups for
// about six mistakes of one digit in ten (TestMistypedValidationSaysWhere).
func mistypedGroups(v string) []int {
	var in [ValidationDigits/4 + 1]bool
	b := []byte(v)
	mark := func(positions ...int) {
		if ValidValidation(string(b)) {
			for _, p := range positions {
				in[p/4] = true
			}
		}
	}
	for p := range b {
		was := b[p]
		for d := byte('0'); d <= '9'; d++ {
			if d != was {
				b[p] = d
				mark(p)
			}
		}
		b[p] = was
	}
	for p := 0; p+1 < len(b); p++ {
		if b[p] != b[p+1] {
			b[p], b[p+1] = b[p+1], b[p]
			mark(p, p+1)
			b[p], b[p+1] = b[p+1], b[p]
		}
	}
	var groups []int
	for g, ok := range in {
		if ok {
			groups = append(groups, g+1)
		}
	}
	if len(groups) > 2 {
		return nil
	}
	return groups
}

// FormatValidation groups the digits by four, as printed: "1234 5678 9012
// 3456 78".
func FormatValidation(v string) string { return groupDigits(v, 0) }

// MaskValidation hides every digit but the last four, keeping the grouping:
// "•••• •••• •••• ••56 78". What a screen may show of a payable voucher.
func MaskValidation(v string) string { return groupDigits(v, len(v)-4) }

// groupDigits writes v in groups of four digits, its first hidden digits
// as "•".
func groupDigits(v string, hidden int) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		if i < hidden {
			b.WriteString("•")
		} else {
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// VoucherInfo is what the screens may know of a voucher: never its full
// validation number, which pays it (Masked shows the last four digits).
type VoucherInfo struct {
	Number    int64      // the voucher's sequence number, printed on it
	Amount    game.Money // paid out
	Issued    time.Time  // in the kiosk's time zone
	Expires   time.Time  // in the kiosk's time zone
	AtCounter bool       // payable at the shop's counter; false: at a payment centre
	Duplicate bool       // this print was a duplicate (ReprintLast)
	Reprints  int        // duplicates printed so far
	// State is the voucher's state as the store holds it, and Payable
	// whether staff may pay it when it was read (printed and before its
	// expiry: a printed voucher past it is expired even before the kiosk
	// marks it so).
	State   store.VoucherState
	Payable bool
	Paid    time.Time // in the kiosk's time zone; zero until paid
	PaidBy  string    // the role that paid it
	// VoidReason is the kiosk's record of why the voucher is void: a
	// technical detail, not a sentence for the screens.
	VoidReason string
	masked     string
}

// Expired reports whether the voucher can no longer be paid for its
// expiry: marked expired, or printed and past its date.
func (v VoucherInfo) Expired() bool {
	return v.State == store.VoucherExpired || (v.State == store.VoucherPrinted && !v.Payable)
}

// Masked is the validation number with all but its last four digits hidden.
func (v VoucherInfo) Masked() string { return v.masked }

// Where tells the player where to be paid, as printed: "Payable au
// comptoir" or "À présenter à un centre de paiement".
func (v VoucherInfo) Where() Message {
	if v.AtCounter {
		return Message{Code: MsgPayAtCounter}
	}
	return Message{Code: MsgPayPaymentCentre}
}

// What the paper says of where it is paid (the screen says the same, from
// its catalogue: MsgPayAtCounter, MsgPayPaymentCentre).
const (
	paperAtCounter     = "Payable au comptoir"
	paperPaymentCentre = "À présenter à un centre de paiement"
)

func (m *Machine) voucherInfo(v store.Voucher, duplicate bool) VoucherInfo {
	loc := m.cfg.Location
	info := VoucherInfo{
		Number: v.ID, Amount: v.Amount, Issued: v.Issued.In(loc), Expires: v.Expires.In(loc),
		AtCounter: v.Amount <= m.cash.payoutLimit, Duplicate: duplicate, Reprints: v.Reprints,
		State: v.State, Payable: v.Payable(m.clk.Now()), PaidBy: v.PaidBy, VoidReason: v.VoidReason,
		masked: MaskValidation(v.Validation),
	}
	if !v.Paid.IsZero() {
		info.Paid = v.Paid.In(loc)
	}
	return info
}

// ReprintRefusal: no duplicate of the last voucher, which is no longer
// payable; Voucher says which it is and what became of it (paid, when and
// by whom; expired, when). It wraps ErrNoVoucher.
type ReprintRefusal struct{ Voucher VoucherInfo }

func (e *ReprintRefusal) Error() string {
	state := string(e.Voucher.State)
	if e.Voucher.Expired() {
		state = string(store.VoucherExpired)
	}
	return fmt.Sprintf("voucher %d is %s: %v", e.Voucher.Number, state, ErrNoVoucher)
}

func (e *ReprintRefusal) Unwrap() error { return ErrNoVoucher }

// voucherText is what a voucher says, before it is laid out for the printer.
type voucherText struct {
	KioskID, Venue string
	Number         int64
	Issued         time.Time // local
	Amount         game.Money
	Validation     string
	Expires        time.Time // local
	AtCounter      bool
	Duplicate      bool
	PrintedAt      time.Time // local; a duplicate states when it was printed
	// Test marks the first start's test voucher (store.Voucher.Test):
	// printed with the voucher's layout and number, marked as of no value
	// in place of the amount, the expiry and where it is paid.
	Test bool
}

// What a test voucher's paper says, big, at its top and in place of its
// amount and of where it is paid: the words a clerk and an auditor read
// without doubt. The paper is in French, with the English once below.
var paperTestMarking = []string{"BON D'ESSAI", "ANNULÉ", "SANS VALEUR"}

const (
	paperTestLine    = "BON D'ESSAI - ANNULÉ - SANS VALEUR"
	paperTestEnglish = "TEST VOUCHER - VOID - NO VALUE"
	paperTestNoPay   = "NE SE PAIE PAS"
)

// voucherColumns is the width of a line of text in font A on an 80 mm roll;
// double width halves it.
const voucherColumns = 42

const (
	frDateTime    = "02/01/2006 à 15:04"
	frDateTimeSec = "02/01/2006 à 15:04:05"
)

// voucherDoc lays out a voucher: the kiosk and venue, date and
// time, sequence number, amount in figures (French format) and in French
// words, validation number in groups, Code 128 and QR of it, expiry, and
// where it is paid; a duplicate is marked DUPLICATA twice and says when it
// was printed; a test voucher is marked BON D'ESSAI - ANNULÉ - SANS
// VALEUR, big, at its top, in place of its amount (no figure to misread)
// and of where it is paid, and has no expiry. Every text goes through the
// Doc's code page (PC858 has é, à, À, ° and €).
func voucherDoc(t voucherText) *escpos.Doc {
	d := escpos.NewDoc().Init()
	d.Align(escpos.Center).Bold(true).Size(2, 2).Line("PHARAON").Size(1, 1)
	d.Line("BON DE PAIEMENT").Bold(false)
	if t.Test {
		testMarking(d)
	}
	if t.Duplicate {
		d.Bold(true).Size(2, 1).Line("DUPLICATA").Size(1, 1).Bold(false)
	}
	d.Feed(1).Align(escpos.Left)
	for _, l := range wrap("Borne : "+t.KioskID, voucherColumns) {
		d.Line(l)
	}
	if t.Venue != "" {
		for _, l := range wrap("Lieu : "+t.Venue, voucherColumns) {
			d.Line(l)
		}
	}
	d.Line("Date : " + t.Issued.Format(frDateTimeSec))
	d.Line(fmt.Sprintf("Bon n° %06d", t.Number))
	d.Feed(1).Align(escpos.Center)
	if t.Test {
		d.Bold(true).Size(2, 2).Line("SANS VALEUR").Size(1, 1).Bold(false).Line(paperTestEnglish)
	} else {
		d.Bold(true).Size(2, 2).Line(t.Amount.French()).Size(1, 1).Bold(false)
		for _, l := range wrap(t.Amount.FrenchWords(), voucherColumns) {
			d.Line(l)
		}
	}
	d.Feed(1).Line("N° de validation").Bold(true).Line(FormatValidation(t.Validation)).Bold(false)
	d.Barcode128(t.Validation).Feed(1).QR(t.Validation)
	if t.Test {
		d.Bold(true).Line(paperTestNoPay).Bold(false)
		testMarking(d)
		return d.Feed(2).Cut()
	}
	d.Line("Valable jusqu'au " + t.Expires.Format(frDateTime))
	where := paperPaymentCentre
	if t.AtCounter {
		where = paperAtCounter
	}
	d.Bold(true).Line(where).Bold(false)
	if t.Duplicate {
		d.Feed(1).Bold(true).Line("DUPLICATA").Bold(false).Line("imprimé le " + t.PrintedAt.Format(frDateTime))
	}
	return d.Feed(2).Cut()
}

// testMarking prints a test voucher's marking, centred: three big lines,
// then the whole in one line and in English.
func testMarking(d *escpos.Doc) {
	d.Feed(1).Bold(true).Size(2, 2)
	for _, l := range paperTestMarking {
		d.Line(l)
	}
	d.Size(1, 1).Line(paperTestLine).Bold(false).Line(paperTestEnglish).Feed(1)
}

// wrap cuts text into lines of at most width runes, at spaces (a word
// longer than width is cut).
func wrap(text string, width int) []string {
	var lines []string
	var cur []rune
	for _, w := range strings.Fields(text) {
		rw := []rune(w)
		switch {
		case len(cur) == 0:
		case len(cur)+1+len(rw) <= width:
			cur = append(cur, ' ')
		default:
			lines = append(lines, string(cur))
			cur = cur[:0]
		}
		for len(rw) > width {
			lines = append(lines, string(rw[:width]))
			rw = rw[width:]
		}
		cur = append(cur, rw...)
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
