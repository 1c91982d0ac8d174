package site

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/mcpconform/mcpconform/report"
)

// The trend's size in CSS pixels.
const (
	trendWidth  = 320
	trendHeight = 84
	trendPad    = 6
)

// trend draws the scored MUSTs passed of those that applied, night by
// night, in one revision: a line from 0 to 100%, each night a dot in its
// outcome's colour whose tooltip gives the date, the outcome and the
// count. Only numbers and dates the suite computed go into the markup.
func (sv *server) trend(rev string) template.HTML {
	type point struct {
		date, outcome string
		rs            report.RevSummary
	}
	var pts []point
	for _, r := range sv.runs {
		for _, rs := range r.revisions {
			if rs.Revision == rev {
				pts = append(pts, point{r.date, rs.Outcome, rs})
			}
		}
	}
	// The scale runs from a little under the lowest night to 100%, so
	// that one MUST lost out of sixty still shows as a dip.
	frac := func(rs report.RevSummary) float64 {
		if rs.MustTotal == 0 {
			return 0
		}
		return float64(rs.MustPassed) / float64(rs.MustTotal)
	}
	lo := 1.0
	for _, p := range pts {
		lo = min(lo, frac(p.rs))
	}
	lo = max(0, lo-(1-lo)/4-0.02)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="trend" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="scored MUSTs passed per night in %s">`,
		trendWidth, trendHeight, trendWidth, trendHeight, template.HTMLEscapeString(rev))
	top, bottom, left := trendPad, trendHeight-trendPad-12, 40
	fmt.Fprintf(&b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/><line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>`,
		left, top, trendWidth, top, left, bottom, trendWidth, bottom)
	fmt.Fprintf(&b, `<text class="label" x="0" y="%d">100%%</text><text class="label" x="0" y="%d">%.0f%%</text>`, top+4, bottom+4, lo*100)
	xy := func(i int, rs report.RevSummary) (float64, float64) {
		x := float64(left+trendWidth) / 2
		if len(pts) > 1 {
			x = float64(left+trendPad) + float64(i)*float64(trendWidth-left-2*trendPad)/float64(len(pts)-1)
		}
		return x, float64(bottom) - (frac(rs)-lo)/(1-lo)*float64(bottom-top)
	}
	if len(pts) > 1 {
		var line []string
		for i, p := range pts {
			x, y := xy(i, p.rs)
			line = append(line, fmt.Sprintf("%.1f,%.1f", x, y))
		}
		fmt.Fprintf(&b, `<polyline class="line" points="%s"/>`, strings.Join(line, " "))
	}
	for i, p := range pts {
		x, y := xy(i, p.rs)
		fmt.Fprintf(&b, `<circle class="dot %s" cx="%.1f" cy="%.1f" r="4"><title>%s: %s, %s</title></circle>`,
			outcomeClass(p.outcome), x, y, template.HTMLEscapeString(p.date), template.HTMLEscapeString(p.outcome), ratio(p.rs))
		if i == 0 || i == len(pts)-1 {
			anchor := "start"
			if i > 0 {
				anchor = "end"
			}
			fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%d" text-anchor="%s">%s</text>`, x, trendHeight-2, anchor, template.HTMLEscapeString(p.date))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
