package kiosk

import (
	"context"

	"pharaon/store"
)

// BlockProgress counts a block's units sold, remaining and won, by tier,
// for the technician's list of blocks.
func (o *Office) BlockProgress(ctx context.Context, s *Session, id int64) (store.Progress, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read a block's progress"); err != nil {
		return store.Progress{}, err
	}
	return o.m.st.BlockProgress(ctx, id)
}
