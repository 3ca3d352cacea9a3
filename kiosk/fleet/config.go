package fleet

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"pharaon/kiosk"
)

// Config says how a kiosk reaches the centre. An empty URL means no
// centre. What it holds comes from pharaon-central kiosk add
// (docs/fleet.md): the kiosk's credentials, the centre's CA, the kiosk's
// voucher key.
type Config struct {
	URL     string // tls://host:4222; several separated by commas
	KioskID string
	// CredsFile is the kiosk's .creds file: its user JWT, which carries
	// its permissions (KioskPermissions), and its nkey seed.
	CredsFile string
	CAFile    string // the centre's CA, for TLS
	// VoucherKey is the kiosk's voucher key (voucherkey.go): the key of
	// its vouchers' entries and the seal of its records' numbers.
	VoucherKey []byte

	// OnAsyncError receives what the NATS client reports outside a call
	// (a write on a connection that broke, a slow consumer, a permission
	// the server refused), which it would otherwise print on stderr by
	// itself; nil drops them. The call that meets the broken connection
	// next returns its own error too.
	OnAsyncError func(error)
}

// Options returns the connection options of the configuration: the
// kiosk's credentials, the CA, and replies on the kiosk's own inbox
// prefix, the only one its permissions let it read.
func (c Config) Options() ([]nats.Option, error) {
	opts := []nats.Option{nats.Name("pharaon kiosk " + c.KioskID), nats.MaxReconnects(0), nats.Timeout(5 * time.Second),
		nats.CustomInboxPrefix(InboxPrefix(c.KioskID)),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if c.OnAsyncError == nil {
				return
			}
			if sub != nil {
				err = fmt.Errorf("subscription %s: %w", sub.Subject, err)
			}
			c.OnAsyncError(err)
		})}
	if c.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.CAFile != "" {
		opts = append(opts, nats.RootCAs(c.CAFile))
	}
	return opts, nil
}

// Check refuses a configuration the kiosk cannot run with.
func (c Config) Check() error {
	if c.URL == "" {
		return nil
	}
	if err := kiosk.CheckKioskID(c.KioskID); err != nil {
		return err
	}
	if c.CredsFile == "" {
		return errors.New("no credentials: the kiosk's .creds file (pharaon-central kiosk add) is needed")
	}
	if len(c.VoucherKey) != VoucherKeySize {
		return fmt.Errorf("voucher key of %d bytes, not %d (pharaon-central kiosk add writes it)", len(c.VoucherKey), VoucherKeySize)
	}
	return nil
}

func (c Config) voucherKeys() (voucherKeys, error) { return newVoucherKeys(c.KioskID, c.VoucherKey) }

// connect opens a connection to the centre as the kiosk, and its
// JetStream context.
func (c Config) connect(extra ...nats.Option) (*nats.Conn, error) {
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(c.URL, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", c.URL, err)
	}
	return nc, nil
}
