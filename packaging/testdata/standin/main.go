// Command standin stands for the kiosk's binary in the package that
// packaging/deb_test.go lints: built by `make deb-standin` with make deb's
// flags, it is a cgo program as the kiosk is, whose C copies a string into
// a stack buffer (what _FORTIFY_SOURCE and the stack protector guard), so
// that lintian's hardening checks have something to find.
package main

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int greet(const char *who, char *out, size_t n) {
	char buf[64];
	int len = snprintf(buf, sizeof buf, "stand-in for %s", who);
	memcpy(out, buf, n < sizeof buf ? n : sizeof buf);
	return len;
}
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

func main() {
	who := C.CString("the pharaon binary")
	defer C.free(unsafe.Pointer(who))
	out := make([]byte, 64)
	n := C.greet(who, (*C.char)(unsafe.Pointer(&out[0])), C.size_t(len(out)))
	fmt.Fprintln(os.Stdout, string(out[:min(int(n), len(out)-1)]))
}
