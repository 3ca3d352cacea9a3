package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"pharaon/store/powercut"
)

// The power-cut file system of a power-cut run (Config.PowerCut) is served
// by a child process of its own, the same program as the headless kiosk:
// the harness's process (under the race detector in the tests) would make
// every read of the kiosk's database slow, and the kiosk's process must
// not serve the mount it maps its -shm file from (store/powercut).

// Environment of the power-cut child (ServeChild).
const (
	EnvPowerCutDisk  = "PHARAON_HARNESS_POWERCUT_DISK"  // the backing directory: the disk
	EnvPowerCutMount = "PHARAON_HARNESS_POWERCUT_MOUNT" // where the kiosk sees it
)

// ServeChild is a child process of the harness, as its environment says:
// the power-cut file system (EnvPowerCutDisk) or a headless kiosk
// (KioskFromEnv). It returns the process's exit status.
func ServeChild(in io.Reader, out, errOut io.Writer) int {
	if disk := os.Getenv(EnvPowerCutDisk); disk != "" {
		return ServePowerCut(disk, os.Getenv(EnvPowerCutMount), in, out, errOut)
	}
	c, err := KioskFromEnv()
	if err != nil {
		fmt.Fprintln(errOut, "headless kiosk:", err)
		return 2
	}
	return ServeKiosk(c, in, out, errOut)
}

// ServePowerCut mounts the power-cut file system over disk at mnt, answers
// "ok mounted", then waits for one line: "cut" (the writes not synced
// thrown away) or "torn SEED" (each pending page kept or not, as SEED
// draws); the end of its input is a cut. It answers "ok" with the cut's
// powercut.Stats once unmounted, and returns.
func ServePowerCut(disk, mnt string, in io.Reader, out, errOut io.Writer) int {
	fsys, err := powercut.MountWith(disk, mnt, powercut.Options{KeepCache: true})
	if err != nil {
		fmt.Fprintln(errOut, "power-cut file system:", err)
		fmt.Fprintln(out, "err", err)
		return 2
	}
	fmt.Fprintln(out, "ok mounted")
	sc := bufio.NewScanner(in)
	line := ""
	if sc.Scan() {
		line = sc.Text()
	}
	var st powercut.Stats
	if seed, ok := strings.CutPrefix(line, "torn "); ok {
		n, perr := strconv.ParseUint(seed, 10, 64)
		if perr != nil {
			fmt.Fprintln(errOut, "power-cut file system: torn", seed, perr)
		}
		rng := rand.New(rand.NewPCG(n, 0x7047))
		st, err = fsys.CutTorn(func() bool { return rng.IntN(2) == 0 })
	} else {
		st, err = fsys.Cut()
	}
	if err != nil {
		fmt.Fprintln(errOut, "power-cut file system:", err)
		fmt.Fprintln(out, "err", err)
		return 2
	}
	b, _ := json.Marshal(st)
	fmt.Fprintln(out, "ok", string(b))
	return 0
}

// cutProc is the power-cut child, seen from the harness.
type cutProc struct{ p *proc }

// mountPowerCut starts the power-cut child over r.disk at r.data.
func (r *run) mountPowerCut() (*cutProc, error) {
	cmd := r.cfg.Command()
	cmd.Env = append(cmd.Environ(), EnvPowerCutDisk+"="+r.disk, EnvPowerCutMount+"="+r.data)
	p, err := startProc(cmd)
	if err != nil {
		return nil, err
	}
	if _, err := p.answer(30*time.Second, nil); err != nil {
		p.kill()
		return nil, fmt.Errorf("mount the power-cut file system: %w", err)
	}
	return &cutProc{p: p}, nil
}

// cut cuts the power (torn: some pending pages written, as seed draws)
// and waits until the file system is unmounted.
func (c *cutProc) cut(torn bool, seed uint64) (powercut.Stats, error) {
	line := "cut"
	if torn {
		line = "torn " + strconv.FormatUint(seed, 10)
	}
	var st powercut.Stats
	js, err := c.p.call(line, 30*time.Second)
	if err == nil {
		err = json.Unmarshal([]byte(js), &st)
	}
	<-c.p.done
	if err != nil {
		return st, fmt.Errorf("%w: %s", err, c.p.stderr.String())
	}
	return st, nil
}
