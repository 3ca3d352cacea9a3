//go:build !linux

package kiosk

// lowPriority runs f (at the normal priority off Linux).
func lowPriority(f func()) { f() }
