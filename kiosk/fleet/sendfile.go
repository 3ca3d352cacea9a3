package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game/block"
)

// Errors of SendBlockFile that change nothing: the file or the address
// was refused before anything was sent.
var (
	ErrNotABlock  = errors.New("not a block file")
	ErrBadAddress = errors.New("not a kiosk id or group name: letters, digits, - and _")
)

// SendBlockFile is what the centre's commands and its console send a
// block through: an address that is not one subject token, or a file that
// is not a whole block (its header, its size, its lot counts), is refused
// and nothing is sent; then SendBlock. Its signature is the kiosk's to
// check, against the keys it trusts.
func SendBlockFile(ctx context.Context, js jetstream.JetStream, file []byte, to Address, now time.Time) (Delivery, error) {
	if !ValidKioskID(to.Name) {
		return Delivery{}, fmt.Errorf("%q: %w", to.Name, ErrBadAddress)
	}
	if _, err := block.Inspect(bytes.NewReader(file), nil); err != nil {
		return Delivery{}, fmt.Errorf("%w: %v", ErrNotABlock, err)
	}
	return SendBlock(ctx, js, file, to, now)
}
