package kiosk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/store"
)

// The development run's wiring (cmd/pharaon -dev): both devices simulated
// on pseudo-terminals, the kiosk's real drivers on their links, a note in,
// a voucher out (written under the data directory's vouchers/).
func Example_cash() {
	data, _ := os.MkdirTemp("", "pharaon")
	defer os.RemoveAll(data)

	devs, err := devsim.Start(devsim.Config{Dir: filepath.Join(data, "run"), Receipts: filepath.Join(data, "vouchers")})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer devs.Close()
	st, err := store.Open(filepath.Join(data, "pharaon.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	m, err := kiosk.New(st, kiosk.SystemClock{}, kiosk.Config{
		KioskID: "PH-0001", Venue: "Tabac de la Gare",
		Cash: kiosk.CashConfig{
			ValidatorPath: devs.ValidatorPath,
			PrinterPath:   devs.PrinterPath,
			Validator:     validator.Settings{PollInterval: 10 * time.Millisecond}, // the kiosk polls every 150 ms
			Drivers:       drivers.Opener{},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	// The screens' way: follow what the kiosk pushes.
	canCashOut := make(chan struct{}, 1)
	m.OnChange(func(s kiosk.Snapshot) {
		if s.Cash.CanCashOut {
			select {
			case canCashOut <- struct{}{}:
			default:
			}
		}
	})
	if err := m.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}

	for devs.InsertNote(20_00) != nil { // the panel's button: wait until the kiosk takes notes
		time.Sleep(10 * time.Millisecond) // the simulator tells no one when it takes notes
	}
	<-canCashOut // the note credited, the printer ready
	fmt.Println("credit", m.Snapshot().Credit.Plain())

	v, err := m.CashOut(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("voucher", v.Number, "of", v.Amount.Plain(), "-", v.Where().Code)
	fmt.Println("credit", m.Snapshot().Credit.Plain())
	_, err = os.Stat(filepath.Join(data, "vouchers", "0001.png"))
	fmt.Println("picture written:", err == nil)
	// Output:
	// credit 20 EUR
	// voucher 1 of 20 EUR - voucher.at_counter
	// credit 0 EUR
	// picture written: true
}
