package essp

import (
	"context"
	"errors"
	"fmt"

	"pharaon/hw"
	"pharaon/hw/validator"
)

// Probe asks an SSP unit who it is, for the kiosk's boot self-test, and changes nothing in it: no
// key exchange, no enable, no reset, and no poll (a poll would let the unit stack a note held in
// escrow and would consume its events). SYNC only sets the sequence flag. The status is therefore
// not the unit's state, which only a poll tells: Probe returns StateUnknown with the unit's
// identity and its channel table's check in Text.
func Probe(ctx context.Context, port hw.Port, cfg Config) (validator.Identity, validator.Status, error) {
	if err := cfg.fill(); err != nil {
		return validator.Identity{}, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	h := &Host{cfg: cfg, port: port, rbuf: make([]byte, 512), ctx: ctx}
	if err := port.SetReadTimeout(cfg.ReplyTimeout); err != nil {
		return validator.Identity{}, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	id := validator.Identity{Family: validator.FamilyESSP}
	if _, err := h.command(CmdSync); err != nil {
		return id, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	if b, err := h.command(CmdSerialNumber); err == nil {
		id.Serial, _ = ParseSerial(b)
	} else if !errors.Is(err, ErrRefused) {
		return id, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	b, err := h.command(CmdSetupRequest)
	if err != nil {
		return id, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	if h.setup, err = ParseSetup(b); err != nil {
		return id, validator.Status{}, fmt.Errorf("essp: probe: %w", err)
	}
	id.Model, id.Version = UnitTypeName(h.setup.UnitType), h.setup.Firmware
	if v, err := h.command(CmdFirmwareVersion); err == nil {
		id.Version = printable(v)
	}
	st := validator.Status{State: validator.StateUnknown, Text: "not polled"}
	if err := h.checkTable(); err != nil {
		return id, st, fmt.Errorf("essp: probe: %w", err)
	}
	return id, st, nil
}
