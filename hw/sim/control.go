package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// ServeControl is a simulator's control channel, for the development panel and scripts: it reads
// one JSON command per line from r, answers each with do's reply as one JSON line on w, and goes on
// until r ends. A line that is not a command is answered by bad(err); it does not stop the channel.
func ServeControl[C, R any](r io.Reader, w io.Writer, do func(C) R, bad func(error) R) error {
	sc := bufio.NewScanner(r)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c C
		var rep R
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			rep = bad(fmt.Errorf("simulator: bad command: %w", err))
		} else {
			rep = do(c)
		}
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("control reply: %w", err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("control: %w", err)
	}
	return nil
}
