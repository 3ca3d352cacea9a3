package drivers

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/essp"
	"pharaon/hw/id003"
	"pharaon/hw/validator"
)

// Every family the configuration names has its driver, its line and its probe here.
func TestEveryFamilyIsDriven(t *testing.T) {
	for _, f := range validator.Families() {
		assert.True(t, Has(f), "%s", f)
		fam := families[f]
		assert.NotNil(t, fam.new, "%s", f)
		assert.NotNil(t, fam.probe, "%s", f)
		require.NoError(t, fam.mode.Validate(), "%s", f)
	}
	assert.True(t, Has(""), "the default family")
	m, err := Mode("")
	require.NoError(t, err)
	assert.Equal(t, id003.Mode, m, "ID-003 by default")
	m, err = Mode(validator.FamilyESSP)
	require.NoError(t, err)
	assert.Equal(t, essp.Mode, m)
	_, err = Mode("ccnet")
	require.Error(t, err)
	assert.False(t, Has("ccnet"))
}

func TestOpenerBuildsTheFamilysDriver(t *testing.T) {
	var w nothing
	dir := t.TempDir()
	d, err := Opener{}.Open(filepath.Join(dir, "v"), w, validator.Settings{}, nil)
	require.NoError(t, err)
	assert.IsType(t, &id003.Driver{}, d)
	d, err = Opener{}.Open(filepath.Join(dir, "v"), w, validator.Settings{Family: validator.FamilyESSP}, nil)
	require.NoError(t, err)
	assert.IsType(t, &essp.Host{}, d)
	_, err = Opener{}.Open(filepath.Join(dir, "v"), w, validator.Settings{Family: "ccnet"}, nil)
	require.ErrorContains(t, err, `"ccnet"`)
	// An eSSP table that cannot be: refused at construction, not at the first note.
	_, err = Opener{}.Open(filepath.Join(dir, "v"), w, validator.Settings{Family: validator.FamilyESSP, Accept: []int64{-5}}, nil)
	require.Error(t, err)

	for _, f := range validator.Families() {
		_, _, err := Opener{}.Probe(context.Background(), filepath.Join(dir, "absent"), validator.Settings{Family: f})
		require.ErrorIs(t, err, hw.ErrNotFound, "%s", f)
	}
}

// nothing is a wallet that is never called: no driver here is started.
type nothing struct{}

func (nothing) Escrow(context.Context, validator.Note) (bool, string, error) { return false, "", nil }
func (nothing) Stacking(context.Context, validator.Note) error               { return nil }
func (nothing) PowerUp(context.Context, validator.Place, validator.Note) error {
	return nil
}
func (nothing) Credit(context.Context, validator.Note) error { return nil }
