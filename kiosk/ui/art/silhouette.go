package art

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"io"
	"strings"
)

// inlayClass marks the elements of a coloured symbol that are its inlays: the
// coloured cells set into the ink outline. The silhouette leaves them out.
const inlayClass = "inlay"

// errNoShape is returned when a drawing has nothing left to paint once its
// inlays are removed: a symbol whose outline was forgotten.
var errNoShape = errors.New("no outline left once the inlays are removed")

// Silhouette derives, from a coloured symbol, the same symbol as a flat shape
// of one colour: every element marked class="inlay" (and everything inside
// it) is dropped, and every remaining fill, stroke and gradient stop is
// painted c. The outline of a coloured symbol is drawn first and in one piece
// under its inlays, so the silhouette has exactly the outline of the coloured
// symbol, minus the cells that are holes in the hieroglyph (the white of the
// eye): that is how the cartouche shows an unrevealed symbol in black
// (Art. 4.2, 4.6) without a second drawing that could drift from the first.
//
// The output is plain SVG that Fyne's renderer reads like the input.
func Silhouette(src []byte, c color.Color) ([]byte, error) {
	paint := hexColor(c)
	opacity := alphaOf(c)
	dec := xml.NewDecoder(bytes.NewReader(src))
	var out bytes.Buffer
	enc := xml.NewEncoder(&out)
	skip := 0 // depth inside a dropped inlay
	shapes := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("silhouette: read svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || hasClass(t, inlayClass) {
				skip++
				continue
			}
			t = t.Copy()
			t.Name.Space = "" // the xmlns attribute is kept as written
			for i, a := range t.Attr {
				switch a.Name.Local {
				case "fill", "stroke", "stop-color":
					if a.Value != "none" {
						t.Attr[i].Value = paint
					}
				}
			}
			if opacity < 1 && t.Name.Local == "svg" {
				// set once on the root: oksvg multiplies opacity down the tree
				t.Attr = append(t.Attr, xml.Attr{Name: xml.Name{Local: "opacity"}, Value: fmt.Sprintf("%.3f", opacity)})
			}
			switch t.Name.Local {
			case "path", "polygon", "circle", "ellipse", "rect":
				shapes++
			}
			tok = t
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			t.Name.Space = ""
			tok = t
		case xml.CharData, xml.Comment, xml.ProcInst, xml.Directive:
			if skip > 0 {
				continue
			}
		}
		if err := enc.EncodeToken(tok); err != nil {
			return nil, fmt.Errorf("silhouette: write svg: %w", err)
		}
	}
	if err := enc.Flush(); err != nil {
		return nil, fmt.Errorf("silhouette: write svg: %w", err)
	}
	if shapes == 0 {
		return nil, fmt.Errorf("silhouette: %w", errNoShape)
	}
	return out.Bytes(), nil
}

// hasClass reports whether the element's class list holds name.
func hasClass(e xml.StartElement, name string) bool {
	for _, a := range e.Attr {
		if a.Name.Local == "class" {
			for _, c := range strings.Fields(a.Value) {
				if c == name {
					return true
				}
			}
		}
	}
	return false
}

// hexColor writes c as #rrggbb, ignoring its alpha.
func hexColor(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
}

// alphaOf is c's opacity, 0 to 1.
func alphaOf(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return float64(n.A) / 255
}
