package helper

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Client asks the helper (the kiosk's side).
type Client struct {
	// Socket is the helper's socket (Socket if empty).
	Socket string
}

// Sticks lists the mounted sticks and their update bundles.
func (c *Client) Sticks(ctx context.Context) ([]Stick, error) {
	rep, err := c.ask(ctx, Request{Op: OpSticks}, nil)
	return rep.Sticks, err
}

// Check verifies the bundle file on stick, installing nothing.
func (c *Client) Check(ctx context.Context, stick, file string) (Update, error) {
	rep, err := c.ask(ctx, Request{Op: OpCheck, Stick: stick, File: file}, nil)
	if rep.Update == nil {
		return Update{}, err
	}
	return *rep.Update, err
}

// Install verifies and installs the bundle file on stick; step is told
// each step as the helper starts it. On a kiosk, a package installed
// restarts the kiosk, which may end before the answer comes.
func (c *Client) Install(ctx context.Context, stick, file string, step func(string)) (Update, error) {
	rep, err := c.ask(ctx, Request{Op: OpInstall, Stick: stick, File: file}, step)
	if rep.Update == nil {
		return Update{}, err
	}
	return *rep.Update, err
}

// FleetCheck verifies the bundle file of the helper's spool directory
// that the fleet sent, installing nothing; FleetInstall verifies and
// installs it (kiosk/fleet's follower, on an idle kiosk).
func (c *Client) FleetCheck(ctx context.Context, file string) (Update, error) {
	rep, err := c.ask(ctx, Request{Op: OpFleetCheck, File: file}, nil)
	if rep.Update == nil {
		return Update{}, err
	}
	return *rep.Update, err
}

func (c *Client) FleetInstall(ctx context.Context, file string) (Update, error) {
	rep, err := c.ask(ctx, Request{Op: OpFleetInstall, File: file}, nil)
	if rep.Update == nil {
		return Update{}, err
	}
	return *rep.Update, err
}

// Export writes the journal, the system's facts and files to a new folder
// on stick.
func (c *Client) Export(ctx context.Context, stick, kiosk string, files []File, step func(string)) (Exported, error) {
	rep, err := c.ask(ctx, Request{Op: OpExport, Stick: stick, Kiosk: kiosk, Files: files}, step)
	if rep.Exported == nil {
		return Exported{}, err
	}
	return *rep.Exported, err
}

// Switch asks the helper to restart the machine into the system waiting
// in its other A/B slot: the answer comes before the restart.
func (c *Client) Switch(ctx context.Context) (Update, error) {
	rep, err := c.ask(ctx, Request{Op: OpSwitch}, nil)
	if rep.Update == nil {
		return Update{}, err
	}
	return *rep.Update, err
}

// Eject unmounts stick.
func (c *Client) Eject(ctx context.Context, stick string) error {
	_, err := c.ask(ctx, Request{Op: OpEject, Stick: stick}, nil)
	return err
}

// ask sends req and reads the replies to the last; an error code in it is
// an *Error; no helper listening is ErrUnavailable.
func (c *Client) ask(ctx context.Context, req Request, step func(string)) (Reply, error) {
	path := c.Socket
	if path == "" {
		path = Socket
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return Reply{}, fmt.Errorf("%s: %w", path, ErrUnavailable)
		}
		return Reply{}, fmt.Errorf("helper: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return Reply{}, fmt.Errorf("helper: sending the request: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReader(conn))
	for {
		var rep Reply
		if err := dec.Decode(&rep); err != nil {
			if ctx.Err() != nil {
				return Reply{}, ctx.Err()
			}
			return Reply{}, fmt.Errorf("helper: its answer ended before the outcome: %w", err)
		}
		if !rep.Done {
			if step != nil && rep.Step != "" {
				step(rep.Step)
			}
			continue
		}
		if rep.Code != "" {
			return rep, &Error{Code: rep.Code, Detail: rep.Detail}
		}
		return rep, nil
	}
}
