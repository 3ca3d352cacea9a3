package early

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInitLocale: a C locale is replaced for Fyne's initialisation, in the
// variable that decides, and RestoreLocale puts the environment back; a
// language is left as it is.
func TestInitLocale(t *testing.T) {
	for _, c := range []struct {
		name           string
		env            map[string]string // LC_ALL, LC_MESSAGES, LANG
		replaced, seen string            // the variable replaced, and what Fyne reads
	}{
		{"C.UTF-8 in LANG", map[string]string{"LANG": "C.UTF-8"}, "LANG", InitLocale},
		{"POSIX in LC_ALL, a language in LANG", map[string]string{"LC_ALL": "POSIX", "LANG": "en_GB.UTF-8"}, "LC_ALL", InitLocale},
		{"C@euro in LC_MESSAGES", map[string]string{"LC_MESSAGES": "C@euro"}, "LC_MESSAGES", InitLocale},
		{"a language first", map[string]string{"LC_ALL": "en_GB.UTF-8", "LANG": "C.UTF-8"}, "", "en_GB.UTF-8"},
		{"nothing set", map[string]string{}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range LocaleVars {
				t.Setenv(k, c.env[k])
			}
			fixInitLocale()
			seen := ""
			for _, k := range LocaleVars {
				if v := os.Getenv(k); v != "" {
					seen = v
					break
				}
			}
			assert.Equal(t, c.seen, seen, "the locale Fyne's initialisation reads")
			assert.Equal(t, c.replaced, replaced.name)
			RestoreLocale()
			for _, k := range LocaleVars {
				assert.Equal(t, c.env[k], os.Getenv(k), "%s as it was given", k)
			}
			assert.Empty(t, replaced.name)
		})
	}
}
