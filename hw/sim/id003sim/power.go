package id003sim

import (
	"fmt"

	"pharaon/hw/id003"
)

// ErrNotVendValid: the unit is not waiting at VEND VALID.
var ErrNotVendValid = fmt.Errorf("simulator: not at VEND VALID")

// DropVendValidData makes the unit, waiting at VEND VALID for its ACK,
// repeat VEND VALID without the escrow code from now on, as units that
// send it with no data byte do (the protocol allows both): the host must
// settle the note from its own records.
func (s *Sim) DropVendValidData() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != id003.StatusVendValid {
		return ErrNotVendValid
	}
	s.data = nil
	return nil
}
