package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// splitCase is Markdown md cut into parts of at most limit units (0:
// the platform's limit).
type splitCase struct {
	name  string
	md    string
	limit int
	want  []string
}

// testSplit runs each case as a subtest: render (named fn in errors)
// gives the parts wanted, and the pieces of plan's layout of md keep the
// cutting rule at the limit, def when the case's is 0.
func testSplit(t *testing.T, fn string, render func(md string, limit int) []string, plan func(md string, limit int) *layout, def int, tests []splitCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(tt.md, tt.limit)
			if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
				t.Errorf("%s(%q, %d)\n got %q\nwant %q", fn, tt.md, tt.limit, got, tt.want)
			}
			limit := clampLimit(tt.limit, def)
			l := plan(tt.md, limit)
			if err := checkPieces(l, l.split(limit), limit); err != nil {
				t.Error(err)
			}
		})
	}
}

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
		if err := checkTelegramPart(p, limit); err != nil {
			return fmt.Errorf("part %d: %w", i, err)
		}
		pu := utf16.Encode([]rune(p.Text))
		g := cur
		for g < len(wu) && !slices.Equal(wu[g:min(g+len(pu), len(wu))], pu) {
			// White space a cut took, or a part of white space only, which
			// Telegram() drops (Telegram refuses it).
			if !unicode.IsSpace(rune(wu[g])) {
				return fmt.Errorf("part %d (%q…) is not where part %d ended (unit %d): lost or repeated text", i, head(p.Text), i-1, cur)
			}
			g++
		}
		if g == len(wu) {
			return fmt.Errorf("part %d (%q…) is not in the whole text", i, head(p.Text))
		}
		ps := styles(len(pu), p.Entities)
		for j := range pu {
			if !slices.Equal(ps[j], wStyles[g+j]) {
				return fmt.Errorf("part %d unit %d has styles %v, the whole text %v there", i, j, ps[j], wStyles[g+j])
			}
		}
		cur = g + len(pu)
	}
	// What follows the last part may only be white space (a part of only
	// white space is dropped).
	for _, c := range wu[cur:] {
		if !unicode.IsSpace(rune(c)) {
			return fmt.Errorf("the parts end at unit %d of %d", cur, len(wu))
		}
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

// checkTelegramPart reports what the Bot API would refuse in p, or nil:
// text empty or longer than limit UTF-16 units (limit <= 0: TelegramLimit),
// an entity of an unknown type, empty, out of the text or splitting a
// surrogate pair, a text_link without URL, and entities that cross or nest
// where Telegram forbids it (styles hold anything but code and pre; a link
// holds only styles; code and pre hold nothing; no entity in one of its own
// type). The same rules as tgtest's, which refuses as the Bot API does.
func checkTelegramPart(p TelegramPart, limit int) error {
	if limit <= 0 {
		limit = TelegramLimit
	}
	u := utf16.Encode([]rune(p.Text))
	if strings.TrimSpace(p.Text) == "" {
		return errors.New("message text is empty")
	}
	if len(u) > limit {
		return fmt.Errorf("text of %d UTF-16 units, more than %d", len(u), limit)
	}
	es := slices.Clone(p.Entities)
	slices.SortStableFunc(es, func(a, b Entity) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return b.Length - a.Length
	})
	inPair := func(i int) bool { return i > 0 && i < len(u) && utf16.IsSurrogate(rune(u[i])) && u[i] >= 0xDC00 }
	var stack []Entity
	for _, e := range es {
		end := e.Offset + e.Length
		switch {
		case !slices.Contains(telegramTypes[1:], e.Type):
			return fmt.Errorf("entity type %q unknown", e.Type)
		case e.Length <= 0 || e.Offset < 0 || end > len(u):
			return fmt.Errorf("%s entity [%d,+%d) out of the text's %d units", e.Type, e.Offset, e.Length, len(u))
		case inPair(e.Offset) || inPair(end):
			return fmt.Errorf("%s entity [%d,+%d) splits a surrogate pair", e.Type, e.Offset, e.Length)
		case e.Type == "text_link" && e.URL == "":
			return errors.New("text_link entity without url")
		}
		for len(stack) > 0 && stack[len(stack)-1].Offset+stack[len(stack)-1].Length <= e.Offset {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if end > top.Offset+top.Length {
				return fmt.Errorf("%s entity [%d,+%d) crosses %s entity [%d,+%d)", e.Type, e.Offset, e.Length, top.Type, top.Offset, top.Length)
			}
			for _, outer := range stack {
				if !mayHold(outer.Type, e.Type) {
					return fmt.Errorf("%s entity [%d,+%d) inside %s entity [%d,+%d)", e.Type, e.Offset, e.Length, outer.Type, outer.Offset, outer.Length)
				}
			}
		}
		stack = append(stack, e)
	}
	return nil
}

func isStyle(t string) bool {
	return t == "bold" || t == "italic" || t == "strikethrough" || t == "underline" || t == "spoiler"
}

// mayHold says whether Telegram lets an entity of type outer hold one of
// type inner.
func mayHold(outer, inner string) bool {
	switch {
	case outer == inner:
		return false
	case outer == "code" || outer == "pre":
		return false
	case inner == "code" || inner == "pre":
		return outer == "blockquote"
	case outer == "blockquote":
		return inner != "blockquote"
	case isStyle(outer):
		return true
	case isStyle(inner):
		return true
	}
	return false
}
