package main

import (
	"strings"
	"testing"
	"time"
	"unicode"
)

// FuzzParseConfigFile: whatever the bytes, the parser either refuses them
// and changes nothing, or gives a configuration whose every path and key is
// usable; the same bytes always give the same answer.
func FuzzParseConfigFile(f *testing.F) {
	f.Add([]byte("db = /var/lib/pharaon/pharaon.db\nlang = fr\n"))
	f.Add([]byte("# comment\nkeys = a.pub, b.pub\nfullscreen = false\n"))
	f.Add([]byte("dev = true\ndev = false\n"))
	f.Add([]byte("kiosk-id = PH-01\r\nvalidator = /dev/ttyUSB0\r\n"))
	f.Add([]byte("venue = Tabac, Lyon\nmax-credit = 150,50\npayout-limit = 1 500 €\nvoucher-validity = 60\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		before := Config{DB: "before.db", Fullscreen: true}
		c := before
		err := ParseConfigFile(strings.NewReader(string(b)), "/etc/pharaon", &c)
		c2 := before
		err2 := ParseConfigFile(strings.NewReader(string(b)), "/etc/pharaon", &c2)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("the same bytes parsed differently: %v, %v", err, err2)
		}
		if err != nil {
			if c.DB != before.DB || c.Fullscreen != before.Fullscreen || c.Keys != nil || c.KioskID != "" || c.Venue != "" ||
				c.MaxCredit != 0 || c.PayoutLimit != 0 || c.VoucherValidity != 0 {
				t.Fatalf("a refused file changed the configuration: %+v", c)
			}
			return
		}
		for _, k := range c.Keys {
			if k == "" {
				t.Fatalf("empty key path in %+v", c)
			}
		}
		if c.DB == "" {
			t.Fatalf("empty database path in %+v", c)
		}
		if strings.ContainsFunc(c.KioskID, unicode.IsControl) || strings.ContainsFunc(c.Venue, unicode.IsControl) {
			t.Fatalf("control characters in kiosk-id %q or venue %q", c.KioskID, c.Venue)
		}
		if c.MaxCredit < 0 || c.PayoutLimit < 0 || c.VoucherValidity < 0 || c.VoucherValidity%(24*time.Hour) != 0 {
			t.Fatalf("a cash setting the kiosk cannot use: %+v", c)
		}
	})
}
