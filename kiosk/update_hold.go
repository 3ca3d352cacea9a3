package kiosk

// HoldIdle locks the players out, as the maintenance screen does, only
// when no player's money or game is under way (the check and the lock in
// one step: no note can go in between): the fleet's update follower
// (kiosk/fleet) installs under it, as the technician's install waits for
// an idle kiosk. It reports whether it locked; release lets the players
// back (an install that restarts the kiosk never calls it). The
// maintenance screen open, a hand-pay pending or a test mode on is not
// idle either.
func (m *Machine) HoldIdle(why string) (release func(), ok bool) {
	locked := m.setMaintenance(true, why, func() bool {
		idle := m.credit == 0 && (m.state == Home || m.state == OutOfService) && !m.starting &&
			!m.gameOnLocked() && !m.cash.noteInPath && !m.cash.cashingOut && !m.handPayLockedLocked() && !m.cash.test.on
		m.restarting = idle // the screens say the kiosk restarts
		return idle
	})
	if !locked {
		return nil, false
	}
	return func() { m.setMaintenance(false, why+": over", nil) }, true
}

// InService says the kiosk sells: it is not out of service.
func (m *Machine) InService() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state != OutOfService
}
