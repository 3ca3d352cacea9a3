package update

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReasonNamesEveryUpdateError(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range reasons {
		wrapped := fmt.Errorf("bundle x: %w", r.err)
		assert.Equal(t, r.code, Reason(wrapped), "%v", r.err)
		assert.False(t, seen[r.code], "code %q twice", r.code)
		seen[r.code] = true
	}
	assert.Equal(t, "", Reason(errors.New("disk full")))
	assert.Equal(t, "", Reason(nil))
	assert.Len(t, ReasonCodes(), len(reasons))
}

func TestReasonErrorIsTheReasonsError(t *testing.T) {
	for _, code := range ReasonCodes() {
		if got := Reason(ReasonError(code)); got != code {
			t.Errorf("Reason(ReasonError(%q)) = %q", code, got)
		}
	}
	if ReasonError("nosuch") != nil {
		t.Error("an unknown code has an error")
	}
}
