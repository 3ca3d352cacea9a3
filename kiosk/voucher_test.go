package kiosk

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/oned"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/sim/printersim"
	"pharaon/store"
)

// The ISO 7064 MOD 97-10 example: 794 carries the check digits 44.
func TestMod97Vector(t *testing.T) {
	assert.Equal(t, 54, mod97("79400"))
	assert.Equal(t, 1, mod97("79444"))
}

func TestNewValidation(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		v, err := NewValidation(rand.Reader)
		require.NoError(t, err)
		require.Len(t, v, ValidationDigits)
		require.True(t, ValidValidation(v), v)
		require.False(t, seen[v], "drawn twice: %s", v)
		seen[v] = true
	}

	// From known bytes: bytes of 250 and above are dropped, the others
	// give their last digit.
	src := bytes.Repeat([]byte{250, 255, 11, 22, 33, 44, 55, 66, 77, 88, 99, 100, 249, 0}, 3)
	v, err := NewValidation(bytes.NewReader(src))
	require.NoError(t, err)
	assert.Equal(t, "1234567890901234", v[:16])
	assert.Equal(t, 1, mod97(v))

	_, err = NewValidation(bytes.NewReader([]byte{1, 2, 3}))
	require.Error(t, err, "a short random source is an error, not a weak number")
}

// Every single wrong digit, every swap of two adjacent digits and of two
// digits one apart is caught by the check digits.
func TestValidationDetectsTypingErrors(t *testing.T) {
	for i := 0; i < 200; i++ {
		v, err := NewValidation(rand.Reader)
		require.NoError(t, err)
		b := []byte(v)
		for p := range b {
			for d := byte('0'); d <= '9'; d++ {
				if d == v[p] {
					continue
				}
				w := append([]byte(nil), b...)
				w[p] = d
				require.False(t, ValidValidation(string(w)), "%s with digit %d changed: %s", v, p, w)
			}
		}
		for _, gap := range []int{1, 2} {
			for p := 0; p+gap < len(b); p++ {
				if b[p] == b[p+gap] {
					continue
				}
				w := append([]byte(nil), b...)
				w[p], w[p+gap] = w[p+gap], w[p]
				require.False(t, ValidValidation(string(w)), "%s with %d and %d swapped: %s", v, p, p+gap, w)
			}
		}
	}
}

func TestParseValidation(t *testing.T) {
	v, err := NewValidation(rand.Reader)
	require.NoError(t, err)
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"bare", v, true},
		{"grouped", FormatValidation(v), true},
		{"dashes", v[:6] + "-" + v[6:12] + "-" + v[12:], true},
		{"surrounding spaces", "  " + v + "\n", true},
		{"one digit short", v[:17], false},
		{"one digit more", v + "0", false},
		{"a letter", v[:17] + "x", false},
		{"empty", "", false},
		{"check digits wrong", v[:16] + string('0'+(v[16]-'0'+1)%10) + v[17:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseValidation(tt.in)
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, v, got)
			} else {
				require.ErrorIs(t, err, ErrBadValidation)
			}
		})
	}
}

// A number that fails its check is refused as mistyped, saying how: too
// few or too many digits, something else than digits, or the check digits;
// then the one or two groups of four that may hold a mistake of one digit
// or one swap of neighbours, when the check narrows it that far, and never
// groups that miss it. The error never carries the digits (it is logged).
func TestMistypedValidationSaysWhere(t *testing.T) {
	v, err := NewValidation(rand.Reader)
	require.NoError(t, err)
	for _, tt := range []struct {
		in   string
		want MistypedError
	}{
		{v[:17], MistypedError{Digits: 17}},
		{FormatValidation(v) + "3", MistypedError{Digits: 19}},
		{v[:17] + "x", MistypedError{Digits: 18, NotDigits: true}},
	} {
		_, err := ParseValidation(tt.in)
		var me *MistypedError
		require.ErrorAs(t, err, &me, tt.in)
		assert.Equal(t, tt.want, *me, tt.in)
		assert.ErrorIs(t, err, ErrBadValidation)
	}
	named, one, tries := 0, 0, 0
	for i := 0; i < 600; i++ {
		v, err := NewValidation(rand.Reader)
		require.NoError(t, err)
		w := []byte(v)
		p := i % len(w)
		mistake := []int{p/4 + 1}
		if i%3 == 0 && p+1 < len(w) && w[p] != w[p+1] {
			w[p], w[p+1] = w[p+1], w[p]
			mistake = append(mistake, (p+1)/4+1)
		} else {
			w[p] = '0' + (w[p]-'0'+1+byte(i/18)%9)%10
		}
		_, err = ParseValidation(string(w))
		var me *MistypedError
		require.ErrorAs(t, err, &me)
		assert.NotContains(t, err.Error(), v[:6])
		tries++
		if len(me.Groups) == 0 {
			continue
		}
		named++
		if len(me.Groups) == 1 {
			one++
		}
		assert.LessOrEqual(t, len(me.Groups), 2)
		hit := false
		for _, g := range mistake {
			hit = hit || slices.Contains(me.Groups, g)
		}
		assert.True(t, hit, "%s typed %s: groups %v miss the mistake in %v", v, w, me.Groups, mistake)
	}
	t.Logf("a one-digit mistake's groups named in %d of %d numbers (one group in %d)", named, tries, one)
	assert.Greater(t, named, tries/3, "the check names the groups often enough to be worth saying")
}

func TestFormatAndMask(t *testing.T) {
	v := "123456789012345678"
	assert.Equal(t, "1234 5678 9012 3456 78", FormatValidation(v))
	assert.Equal(t, "•••• •••• •••• ••56 78", MaskValidation(v))
	assert.NotContains(t, MaskValidation(v), v[:14])
}

func TestWrap(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  []string
	}{
		{"trois mille sept cent cinquante euros", 42, []string{"trois mille sept cent cinquante euros"}},
		{"quatre-vingt-dix-neuf mille neuf cent quatre-vingt-dix-neuf euros et quatre-vingt-dix-neuf centimes", 42,
			[]string{"quatre-vingt-dix-neuf mille neuf cent", "quatre-vingt-dix-neuf euros et", "quatre-vingt-dix-neuf centimes"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"", 10, nil},
	}
	for _, tt := range tests {
		got := wrap(tt.text, tt.width)
		assert.Equal(t, tt.want, got, tt.text)
		for _, l := range got {
			assert.LessOrEqual(t, len([]rune(l)), tt.width)
		}
	}
}

// printReceipt runs a document through the printer simulator's interpreter.
func printReceipt(t *testing.T, text voucherText) *printersim.Receipt {
	t.Helper()
	b, err := voucherDoc(text).Bytes()
	require.NoError(t, err)
	in := printersim.NewInterpreter(printersim.Config{}, func([]byte) {})
	_, err = in.Write(b)
	require.NoError(t, err)
	rs := in.Receipts()
	require.Len(t, rs, 1)
	require.True(t, rs[0].Complete, "cut: %s", rs[0].Text)
	assert.Empty(t, in.Log(), "the printer understood every byte")
	return rs[0]
}

// readSymbols decodes the Code 128 and the QR code printed on a receipt's
// picture.
func readSymbols(t *testing.T, pngBytes []byte) (bar, qr string) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngBytes))
	require.NoError(t, err)
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	b, err := oned.NewCode128Reader().Decode(bmp, nil)
	require.NoError(t, err, "Code 128")
	q, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err, "QR code")
	return b.GetText(), q.GetText()
}

// checkVoucherReceipt checks a printed voucher carries every field of
// the cash-out tests, from its text and from its picture.
func checkVoucherReceipt(t *testing.T, plain string, pngBytes []byte, want voucherText) {
	t.Helper()
	lines := strings.Split(plain, "\n")
	has := func(s string) {
		t.Helper()
		assert.Contains(t, lines, s, "line %q on the voucher:\n%s", s, plain)
	}
	has("PHARAON")
	has("Borne : " + want.KioskID)
	assert.Contains(t, strings.Join(lines, " "), "Lieu : "+want.Venue)
	has("Date : " + want.Issued.Format("02/01/2006 à 15:04:05"))
	has(fmt.Sprintf("Bon n° %06d", want.Number))
	has(want.Amount.French())
	assert.Contains(t, strings.Join(lines, " "), want.Amount.FrenchWords())
	has(FormatValidation(want.Validation))
	has("Valable jusqu'au " + want.Expires.Format("02/01/2006 à 15:04"))
	if want.AtCounter {
		has("Payable au comptoir")
		assert.NotContains(t, plain, "centre de paiement")
	} else {
		has("À présenter à un centre de paiement")
		assert.NotContains(t, plain, "comptoir")
	}
	if want.Duplicate {
		assert.Equal(t, 2, strings.Count(plain, "DUPLICATA"), plain)
	} else {
		assert.NotContains(t, plain, "DUPLICATA")
	}
	bar, qr := readSymbols(t, pngBytes)
	assert.Equal(t, want.Validation, bar, "the barcode carries the validation number")
	assert.Equal(t, want.Validation, qr, "the QR code carries the validation number")
	assert.True(t, ValidValidation(bar))
}

func TestVoucherDocumentCarriesEveryField(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	base := voucherText{
		KioskID: "PH-0042", Venue: "Tabac de la Gare, 12 place Bellecour, 69002 Lyon", Number: 7,
		Issued: time.Date(2026, 11, 30, 11, 5, 9, 0, paris), Amount: 3750, Validation: "123456789012345611",
		Expires: time.Date(2027, 1, 29, 11, 5, 9, 0, paris), AtCounter: true,
	}
	above := base
	above.Amount, above.AtCounter, above.Number = 3750*game.Euro, false, 1234567
	dup := base
	dup.Duplicate, dup.PrintedAt = true, base.Issued.Add(time.Hour)
	long := base
	long.Amount = 99999*game.Euro + 99
	for name, text := range map[string]voucherText{"counter": base, "payment centre": above, "duplicate": dup, "long words": long} {
		t.Run(name, func(t *testing.T) {
			r := printReceipt(t, text)
			img, err := r.PNG()
			require.NoError(t, err)
			checkVoucherReceipt(t, r.Plain(), img, text)
		})
	}
	// The layout as a person reads it, kept as a golden file.
	r := printReceipt(t, base)
	golden := filepath.Join("testdata", "cash-voucher.txt")
	if os.Getenv("PHARAON_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(r.Text), 0o644))
	}
	want, err := os.ReadFile(golden)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s missing: run with PHARAON_UPDATE_GOLDEN=1", golden)
	}
	require.NoError(t, err)
	assert.Equal(t, string(want), r.Text)
}

// ParseValidation reads what staff type or a scanner sends: whatever the
// bytes, it returns a valid number that reads back the same, or
// ErrBadValidation.
func FuzzParseValidation(f *testing.F) {
	for _, s := range []string{"123456789012345611", "1234 5678 9012 3456 11", "1234-5678-9012-3456-11",
		"123456789012345612", "", "12345678901234561", "१२३४५६७८९०१२३४५६११", "1234\u00a05678 9012 3456 11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseValidation(s)
		if err != nil {
			require.ErrorIs(t, err, ErrBadValidation)
			return
		}
		require.True(t, ValidValidation(v))
		require.Len(t, v, ValidationDigits)
		again, err := ParseValidation(FormatValidation(v))
		require.NoError(t, err)
		require.Equal(t, v, again)
		require.True(t, strings.HasSuffix(MaskValidation(v), v[14:16]+" "+v[16:]))
	})
}

// TestRecordWithValidationDrawsAgain: the cash-out's voucher and the first
// start's test voucher are recorded through one loop, which draws a new
// validation number when the store has it already (or for the reason the
// caller accepts), at most three times more, and never for another error.
func TestRecordWithValidationDrawsAgain(t *testing.T) {
	errOther := errors.New("disk full")
	moved := func(err error) bool { return errors.Is(err, store.ErrBadAmount) }
	for _, tc := range []struct {
		name    string
		fails   []error // what record returns on its first calls; nil after
		again   func(error) bool
		calls   int
		wantErr error
	}{
		{"first number free", nil, nil, 1, nil},
		{"number taken twice", []error{store.ErrDuplicateRef, store.ErrDuplicateRef}, nil, 3, nil},
		{"number taken four times", []error{store.ErrDuplicateRef, store.ErrDuplicateRef, store.ErrDuplicateRef, store.ErrDuplicateRef}, nil, 4, store.ErrDuplicateRef},
		{"credit moved, caller accepts", []error{store.ErrBadAmount}, moved, 2, nil},
		{"credit moved, caller does not", []error{store.ErrBadAmount}, nil, 1, store.ErrBadAmount},
		{"another error", []error{errOther}, moved, 1, errOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			v, err := recordWithValidation(func(val string) (store.Voucher, error) {
				seen = append(seen, val)
				if len(seen) <= len(tc.fails) {
					return store.Voucher{}, fmt.Errorf("issue voucher: %w", tc.fails[len(seen)-1])
				}
				return store.Voucher{ID: 7, Validation: val}, nil
			}, tc.again)
			require.Len(t, seen, tc.calls)
			for i, val := range seen {
				_, perr := ParseValidation(val)
				require.NoError(t, perr, "number %d", i)
				for _, other := range seen[:i] {
					require.NotEqual(t, other, val, "a number drawn again must be new")
				}
			}
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, seen[len(seen)-1], v.Validation)
		})
	}
}
