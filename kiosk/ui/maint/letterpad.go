package maint

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"pharaon/kiosk"
)

// letterpadKeys are the keys of the on-screen keyboard of a kiosk id, in
// the order of a sheet a finger scans: the letters, the digits, then the
// separators kiosk.KioskIDSeparators. Each is a kiosk id's character
// (kiosk.IsKioskIDRune; the test checks it). Capitals only: the ids a
// fleet gives are written so, and a keyboard's lower case is still taken.
const letterpadKeys = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" + kiosk.KioskIDSeparators

// shLetterpad is the on-screen keyboard of a kiosk id, built of buttons as
// the PIN pad is (a desktop driver's widget.Entry opens no keyboard on a
// touchscreen): its keys, then Effacer and the action key, each a
// finger's width.
func shLetterpad(tr Tr, key func(rune), back func(), okLabel string, ok func()) fyne.CanvasObject {
	size := fyne.NewSize(56, 54)
	var keys []fyne.CanvasObject
	for _, r := range letterpadKeys {
		r := r
		keys = append(keys, shSized(size, widget.NewButton(string(r), func() { key(r) })))
	}
	okb := widget.NewButton(okLabel, ok)
	okb.Importance = widget.HighImportance
	grid := shTight(container.NewGridWithColumns(5, keys...), 6)
	actions := container.NewGridWithColumns(2, shSized(fyne.NewSize(0, 54), widget.NewButton(tr.T("pin.erase"), back)),
		shSized(fyne.NewSize(0, 54), okb))
	return container.NewVBox(grid, actions)
}
