package kiosk

import (
	"runtime"
	"syscall"
)

// lowPriority runs f on an operating-system thread of its own at the
// lowest scheduling priority (nice 19): the background verification reads
// the whole database while the player's screens keep the processor.
// SQLite's work runs on the calling thread, so it runs at that priority
// too. The thread ends with the goroutine.
func lowPriority(f func()) {
	runtime.LockOSThread() // never unlocked: the thread is discarded with its priority
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
	f()
}
