package console

import (
	"fmt"
	"html/template"
	"strings"
)

// barChart draws the periods' sales and prizes as SVG bars, on the
// server: the page needs no script to show it, and prints as it shows.
func barChart(lang Lang, ps []Period) template.HTML {
	const w, h, left, bottom, top = 900, 260, 90, 40, 10
	var hi int64
	for _, p := range ps {
		hi = max(hi, p.Sales, p.Wins)
	}
	if hi == 0 {
		hi = 100
	}
	plotW, plotH := float64(w-left-10), float64(h-bottom-top)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, w, h,
		template.HTMLEscapeString(T(lang, "sales")+" / "+T(lang, "wins")))
	for i := 0; i <= 4; i++ {
		v := hi * int64(i) / 4
		y := float64(top) + plotH - plotH*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, left, w-10, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="axis" text-anchor="end">%s</text>`, left-6, y+4,
			template.HTMLEscapeString(Money(lang, v)))
	}
	n := max(len(ps), 1)
	slot := plotW / float64(n)
	bar := min(max(slot*0.38, 0.5), 28) // a few periods are not walls
	every := max(n/10, 1)
	for i, p := range ps {
		x := float64(left) + slot*float64(i)
		sh := plotH * float64(p.Sales) / float64(hi)
		wh := plotH * float64(p.Wins) / float64(hi)
		fmt.Fprintf(&b, `<rect class="sales" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s %s</title></rect>`,
			x+slot/2-bar, float64(top)+plotH-sh, bar, sh, p.Start.Format("2006-01-02"), template.HTMLEscapeString(Money(lang, p.Sales)))
		fmt.Fprintf(&b, `<rect class="wins" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s %s</title></rect>`,
			x+slot/2, float64(top)+plotH-wh, bar, wh, p.Start.Format("2006-01-02"), template.HTMLEscapeString(Money(lang, p.Wins)))
		if i%every == 0 {
			label := p.Start.Format("02/01")
			if lang == English {
				label = p.Start.Format("01-02")
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="axis" text-anchor="middle">%s</text>`, x+slot/2, h-bottom+16, label)
		}
	}
	fmt.Fprintf(&b, `<rect class="sales" x="%d" y="%d" width="12" height="12"/><text x="%d" y="%d" class="axis">%s</text>`,
		left, h-14, left+16, h-4, template.HTMLEscapeString(T(lang, "sales")))
	fmt.Fprintf(&b, `<rect class="wins" x="%d" y="%d" width="12" height="12"/><text x="%d" y="%d" class="axis">%s</text>`,
		left+140, h-14, left+156, h-4, template.HTMLEscapeString(T(lang, "wins")))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
