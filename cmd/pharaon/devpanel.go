package main

import (
	"pharaon/game"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui"
)

// devPanel is the screens' development panel (ui.DevDevices) on the
// simulated cash devices of a -dev run: the panel's buttons put notes into
// the simulated validator and cause the devices' faults, and the kiosk sees
// only what its drivers read on the serial lines.
type devPanel struct{ d *devsim.Devices }

var _ ui.DevDevices = devPanel{}

func (p devPanel) Notes() []game.Money { return devsim.Notes }

func (p devPanel) Faults() []ui.DevFault {
	out := make([]ui.DevFault, len(devsim.Faults))
	for i, f := range devsim.Faults {
		out[i] = ui.DevFault{ID: string(f)}
	}
	return out
}

func (p devPanel) InsertNote(amount game.Money) error { return p.d.InsertNote(amount) }
func (p devPanel) InsertCounterfeit() error           { return p.d.InsertCounterfeit() }
func (p devPanel) Cause(fault string) error           { return p.d.Cause(devsim.Fault(fault)) }
func (p devPanel) Repair() error                      { return p.d.Repair() }
