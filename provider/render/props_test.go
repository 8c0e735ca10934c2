package render

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// checkPieces checks the cutting rule (package doc) on the pieces of l:
// each within limit with its markup, none empty, together the whole
// trimmed text but for the white space each cut took, which is a whole
// run of white space outside code, and inside code one line break with
// the spaces or tabs before it, or nothing; and the markup each part adds
// opens what the part before closed.
func checkPieces(l *layout, ps []piece, limit int) error {
	start, stop := l.bounds()
	if start == stop {
		if len(ps) != 0 {
			return fmt.Errorf("%d parts of a blank text", len(ps))
		}
		return nil
	}
	if len(ps) == 0 {
		return fmt.Errorf("no part of a text of %d bytes", stop-start)
	}
	if ps[0].start != start || ps[len(ps)-1].end != stop {
		return fmt.Errorf("parts span [%d,%d), the trimmed text [%d,%d)", ps[0].start, ps[len(ps)-1].end, start, stop)
	}
	if ps[0].prefix != "" || ps[len(ps)-1].suffix != "" {
		return fmt.Errorf("markup added before the first part (%q) or after the last (%q)", ps[0].prefix, ps[len(ps)-1].suffix)
	}
	for i, p := range ps {
		if p.end <= p.start {
			return fmt.Errorf("part %d empty: [%d,%d)", i, p.start, p.end)
		}
		if n := l.unit.of(p.prefix + l.text[p.start:p.end] + p.suffix); n > limit {
			return fmt.Errorf("part %d of %d units, limit %d", i, n, limit)
		}
		if !utf8.ValidString(p.prefix + l.text[p.start:p.end] + p.suffix) {
			return fmt.Errorf("part %d is not valid UTF-8 (a cut inside a character)", i)
		}
		if i == 0 {
			continue
		}
		prev := ps[i-1]
		gap := l.text[prev.end:p.start]
		if prev.end > p.start {
			return fmt.Errorf("parts %d and %d overlap", i-1, i)
		}
		code := gap != "" && l.inVerbatim(prev.end) // the cut is in code
		switch {
		case code && strings.TrimLeft(gap, " \t") != "\n":
			return fmt.Errorf("cut %d in code took %q: only a line break and the spaces before it", i, gap)
		case !code && strings.TrimFunc(gap, isBreakSpace) != "":
			return fmt.Errorf("cut %d took %q, not only white space", i, gap)
		}
		if !code && gap != "" {
			if r, n := utf8.DecodeLastRuneInString(l.text[:prev.end]); isBreakSpace(r) && !l.inVerbatim(prev.end-n) {
				return fmt.Errorf("cut %d left white space at the end of part %d", i, i-1)
			}
			if r, _ := utf8.DecodeRuneInString(l.text[p.start:]); isBreakSpace(r) && !l.inVerbatim(p.start) {
				return fmt.Errorf("cut %d left white space at the start of part %d", i, i)
			}
		}
		if prev.suffix == "" && p.prefix != "" {
			return fmt.Errorf("part %d opens %q that part %d did not close", i, p.prefix, i-1)
		}
	}
	return nil
}

// checkTelegram checks parts against the unsplit rendering whole: each
// part valid for the Bot API within limit; the parts' texts, joined with
// the white space each cut took, are whole's text; and every UTF-16 unit
// of a part has the styles (type, URL, language) the same unit has in
// whole.
func checkTelegram(whole, parts []TelegramPart, limit int) error {
	if len(whole) == 0 {
		if len(parts) != 0 {
			return fmt.Errorf("%d parts of a blank text", len(parts))
		}
		return nil
	}
	if len(whole) != 1 {
		return fmt.Errorf("the unsplit rendering has %d parts", len(whole))
	}
	w := whole[0]
	wu := utf16.Encode([]rune(w.Text))
	wStyles := styles(len(wu), w.Entities)
	cur := 0
	for i, p := range parts {
		if err := CheckTelegram(p, limit); err != nil {
			return fmt.Errorf("part %d: %w", i, err)
		}
		pu := utf16.Encode([]rune(p.Text))
		g := cur
		for g < len(wu) && !slices.Equal(wu[g:min(g+len(pu), len(wu))], pu) {
			if !isBreakSpace(rune(wu[g])) {
				return fmt.Errorf("part %d (%q…) is not where part %d ended (unit %d): lost or repeated text", i, head(p.Text), i-1, cur)
			}
			g++
		}
		if g == len(wu) {
			return fmt.Errorf("part %d (%q…) is not in the whole text", i, head(p.Text))
		}
		if i == 0 && g != 0 {
			return fmt.Errorf("the first part starts at unit %d", g)
		}
		ps := styles(len(pu), p.Entities)
		for j := range pu {
			if !slices.Equal(ps[j], wStyles[g+j]) {
				return fmt.Errorf("part %d unit %d has styles %v, the whole text %v there", i, j, ps[j], wStyles[g+j])
			}
		}
		cur = g + len(pu)
	}
	if cur != len(wu) {
		return fmt.Errorf("the parts end at unit %d of %d", cur, len(wu))
	}
	return nil
}

func head(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

// styles lists, for each UTF-16 unit, the entities that cover it.
func styles(n int, es []Entity) [][]string {
	out := make([][]string, n)
	for _, e := range es {
		key := e.Type + " " + e.URL + " " + e.Language
		for j := e.Offset; j < e.Offset+e.Length && j < n; j++ {
			out[j] = append(out[j], key)
		}
	}
	for j := range out {
		slices.Sort(out[j])
	}
	return out
}
