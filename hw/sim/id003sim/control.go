package id003sim

import (
	"fmt"
	"io"

	"pharaon/hw/id003"
	"pharaon/hw/sim"
)

// Command is one line of the control channel, for the development panel and scripts:
//
//	{"op":"insert","cents":1000}   {"op":"insert","cents":1000,"direction":2} (C: 0 to 3 for A to D)
//	{"op":"counterfeit","reason":119}
//	{"op":"fault","fault":"jam-acceptor"}   {"op":"fault","fault":"bad-crc","n":3}
//	{"op":"clear"}  {"op":"clear-line"}  {"op":"power-cycle"}  {"op":"unplug"}  {"op":"replug"}
//	{"op":"status"}
type Command struct {
	Op        string    `json:"op"`
	Cents     int64     `json:"cents,omitempty"`
	Direction Direction `json:"direction,omitempty"`
	Reason    byte      `json:"reason,omitempty"`
	Fault     Fault     `json:"fault,omitempty"`
	N         int       `json:"n,omitempty"`
}

// Reply answers every command with the unit's state and cash box after it.
type Reply struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	State  string `json:"state"`
	Counts Counts `json:"counts"`
}

// Do runs one control command.
func (s *Sim) Do(c Command) Reply {
	var err error
	switch c.Op {
	case "insert":
		err = s.InsertNoteFacing(c.Cents, c.Direction)
	case "counterfeit":
		err = s.InsertCounterfeit(id003.RejectReason(c.Reason))
	case "fault":
		err = s.Inject(c.Fault, c.N)
	case "clear":
		s.Clear()
	case "clear-line":
		s.ClearLine()
	case "power-cycle":
		s.PowerCycle()
	case "unplug":
		err = s.Unplug()
	case "replug":
		err = s.Replug()
	case "status":
	default:
		err = fmt.Errorf("simulator: unknown op %q", c.Op)
	}
	r := Reply{OK: err == nil, State: s.State().String(), Counts: s.Counts()}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// ServeControl reads one JSON command per line from r and writes one JSON reply per line to w,
// until r ends (sim.ServeControl).
func (s *Sim) ServeControl(r io.Reader, w io.Writer) error {
	return sim.ServeControl(r, w, s.Do, func(err error) Reply {
		return Reply{Error: err.Error(), State: s.State().String(), Counts: s.Counts()}
	})
}
