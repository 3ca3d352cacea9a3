package ui

import "pharaon/kiosk/ui/touch"

// The screens' names for the shared button (kiosk/ui/touch).
type (
	buttonKind  = touch.Kind
	touchButton = touch.Button
)

const (
	buttonPrimary   = touch.Primary
	buttonSecondary = touch.Secondary
	buttonChoice    = touch.Choice
	buttonChosen    = touch.Chosen
	buttonQuiet     = touch.Quiet
)

var newTouchButton = touch.NewButton
