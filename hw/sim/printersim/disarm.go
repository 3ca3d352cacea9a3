package printersim

// Disarm drops the faults injected for later (Inject) that have not fired
// yet. A test or a development panel that stands for staff servicing the
// printer uses it: the serviced printer must not fail the next receipt on a
// fault armed before the service.
func (in *Interpreter) Disarm() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.injections = nil
}
