package devsim

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/validator"
)

// Either family's unit runs behind the same panel: its refusals named
// alike, its faults caused and repaired, its cash box counted alike.
func TestEitherFamilysUnit(t *testing.T) {
	for _, f := range validator.Families() {
		t.Run(string(f), func(t *testing.T) {
			d, err := Start(Config{Dir: filepath.Join(t.TempDir(), "dev"), Family: f})
			require.NoError(t, err)
			defer d.Close()
			assert.Equal(t, f, d.Unit.Family())
			assert.Equal(t, f == validator.FamilyID003, d.Validator != nil)
			assert.Equal(t, f == validator.FamilyESSP, d.ESSP != nil)

			// No host has enabled it: the note is refused, with the panel's code.
			var r *Refusal
			require.ErrorAs(t, d.InsertNote(Notes[0]), &r)
			assert.Equal(t, RefusedDisabled, r.Code)
			for _, fault := range []Fault{ValidatorJam, ValidatorStackerFull, ValidatorStackerOpen, ValidatorFailure, ValidatorUnplugged} {
				require.NoError(t, d.Cause(fault), "%s", fault)
			}
			for _, lf := range d.Unit.LineFaults() {
				require.NoError(t, d.Unit.InjectLine(lf, 1), "%s", lf)
			}
			require.NoError(t, d.Repair())
			assert.Zero(t, d.Unit.Counts().Stacked)
			assert.False(t, d.Unit.Stacking())
		})
	}
	_, err := Start(Config{Dir: filepath.Join(t.TempDir(), "dev"), Family: "ccnet"})
	require.ErrorContains(t, err, "ccnet")
}
