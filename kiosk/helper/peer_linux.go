package helper

import (
	"errors"
	"net"
	"syscall"
)

// peerUID is the user of the process at the other end of c, as the kernel
// saw it connect (SO_PEERCRED).
func peerUID(c net.Conn) (uint32, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ^uint32(0), errors.New("not a local socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return ^uint32(0), err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return ^uint32(0), err
	}
	if cerr != nil {
		return ^uint32(0), cerr
	}
	return cred.Uid, nil
}
