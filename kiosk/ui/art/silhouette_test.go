package art

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSilhouette(t *testing.T) {
	src := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">
<defs><linearGradient id="g"><stop offset="0" stop-color="#ff0000"/></linearGradient></defs>
<path fill="#1C1206" d="M0 0 L10 0 L10 10 Z"/>
<g class="inlay"><path fill="#26B3A6" d="M1 1 L2 2 Z"/><g><circle fill="#ffffff" cx="1" cy="1" r="1"/></g></g>
<circle class="inlay" fill="#ffffff" cx="5" cy="5" r="1"/>
<rect fill="url(#g)" width="1" height="1"/>
<path fill="none" d="M0 0 L1 1"/>
</svg>`
	out, err := Silhouette([]byte(src), color.NRGBA{A: 0xFF})
	require.NoError(t, err)
	s := string(out)
	assert.NotContains(t, s, "inlay")
	assert.NotContains(t, s, "#26B3A6")
	assert.NotContains(t, s, "#ffffff", "inlays and what they hold are dropped")
	assert.NotContains(t, s, "url(#g)")
	assert.Equal(t, 2, strings.Count(s, `fill="#000000"`), "the outline and the gradient-filled rect turn black")
	assert.Contains(t, s, `stop-color="#000000"`)
	assert.Contains(t, s, `fill="none"`, "no-fill stays no-fill")
	assert.Contains(t, s, `<svg xmlns="http://www.w3.org/2000/svg"`)
	assert.NotContains(t, s, "opacity", "an opaque colour adds no opacity")
	assert.NoError(t, xml.Unmarshal(out, new(struct{})), "well-formed")

	half, err := Silhouette([]byte(src), color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0x80})
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(half), `opacity="0.502"`), "a translucent colour is set once, on the root")
	assert.Contains(t, string(half), `fill="#ffffff"`)
}

func TestSilhouetteErrors(t *testing.T) {
	tests := map[string]string{
		"not xml":      `<svg><path></svg>`,
		"only inlays":  `<svg viewBox="0 0 1 1"><path class="inlay" d="M0 0 L1 1 Z"/></svg>`,
		"empty":        ``,
		"no shape":     `<svg viewBox="0 0 1 1"><g/></svg>`,
		"unterminated": `<svg viewBox="0 0 1 1"><path d="M0 0 L1 1 Z"/>`,
	}
	for name, src := range tests {
		_, err := Silhouette([]byte(src), color.Black)
		assert.Error(t, err, name)
	}
}

// FuzzSilhouette: whatever it is given, Silhouette does not panic, and what it
// returns is well-formed XML with no inlay left in it.
func FuzzSilhouette(f *testing.F) {
	for _, n := range All() {
		if strings.HasPrefix(n.Name, "symbol-") && !strings.Contains(n.Name, "silhouette") {
			f.Add(n.Resource.Content())
		}
	}
	f.Add([]byte(`<svg viewBox="0 0 1 1"><g class="inlay x"><path d="M0 0Z"/></g><path d="M0 0Z"/></svg>`))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Silhouette(src, color.Black)
		if err != nil {
			return
		}
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			tok, err := dec.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("output is not well-formed: %v\n%s", err, out)
				}
				return
			}
			if se, ok := tok.(xml.StartElement); ok && hasClass(se, inlayClass) {
				t.Fatalf("inlay left in the silhouette:\n%s", out)
			}
		}
	})
}
