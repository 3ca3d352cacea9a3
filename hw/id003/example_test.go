package id003_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pharaon/hw"
	"pharaon/hw/id003"
	"pharaon/hw/id003/id003test"
	"pharaon/hw/sim/id003sim"
)

// The development run's wiring: the real host drives a simulated unit on a pty, and the kiosk's
// wallet (here the in-memory reference) gets one credit per stacked note.
func Example() {
	dir, _ := os.MkdirTemp("", "bv")
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, "validator") // on the kiosk: /dev/serial/by-id/...

	unit := id003sim.New(id003sim.Config{})
	if err := unit.Start(link); err != nil {
		fmt.Println(err)
		return
	}
	defer unit.Close()

	wallet := &id003test.MemoryWallet{}
	host, err := id003.New(
		func() (hw.Port, error) { return hw.Open(link, id003.Mode) },
		wallet,
		id003.Config{PollInterval: 5 * time.Millisecond, OnEvent: func(e id003.Event) {
			if e.Kind == id003.EventCredited {
				fmt.Println("credited", e.Note.Cents, "cents")
			}
		}},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	host.SetAccepting(true)
	_ = host.Start()
	defer host.Close()

	for unit.InsertNote(1000) != nil { // wait until the host has reset and enabled the unit
		time.Sleep(5 * time.Millisecond)
	}
	for unit.State() != id003.StateIdle || unit.Counts().Acked == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	balance, _, _ := wallet.Snapshot()
	fmt.Println("balance", balance, "stacked", unit.Counts().Stacked)
	// Output:
	// credited 1000 cents
	// balance 1000 stacked 1
}
