package update

import "errors"

// Reasons name, by a short stable code, why an update was refused or
// failed: what crosses from the root helper to the maintenance screen
// (kiosk/helper), which says it in the screen's language.
var reasons = []struct {
	err  error
	code string
}{
	{ErrUnsigned, "unsigned"},
	{ErrUntrusted, "untrusted"},
	{ErrSignature, "signature"},
	{ErrPayload, "payload"},
	{ErrFormat, "format"},
	{ErrDowngrade, "downgrade"},
	{ErrMismatch, "mismatch"},
	{ErrDataDir, "datadir"},
	{ErrNoRollback, "norollback"},
	{ErrBusy, "busy"},
	{ErrRolledBack, "rolledback"},
	{ErrBroken, "broken"},
	{ErrNoSlots, "noslots"},
	{ErrUnconfirmed, "unconfirmed"},
	{ErrReadOnly, "readonly"},
}

// Reason is the code of err's reason ("" when err is none of the update's
// errors).
func Reason(err error) string {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	return ""
}

// ReasonCodes are every code Reason returns, in a fixed order.
func ReasonCodes() []string {
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = r.code
	}
	return out
}

// ReasonError is the error whose code Reason returns as code (nil for a
// code it never returns): a reason that crossed the root helper's socket
// as a code is the update's error again on the kiosk's side.
func ReasonError(code string) error {
	for _, r := range reasons {
		if r.code == code {
			return r.err
		}
	}
	return nil
}
