package render

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// telegramTypes are the entity types of the span kinds.
var telegramTypes = [...]string{
	kindBold:   "bold",
	kindItalic: "italic",
	kindStrike: "strikethrough",
	kindCode:   "code",
	kindPre:    "pre",
	kindLink:   "text_link",
	kindQuote:  "blockquote",
}

// linkScheme reports whether dest is an absolute URL with one of schemes.
func linkScheme(dest string, schemes ...string) bool {
	i := strings.IndexByte(dest, ':')
	if i <= 0 {
		return false
	}
	s := strings.ToLower(dest[:i])
	return slices.Contains(schemes, s)
}

// telegramSpans keeps the spans as Telegram's nesting rules allow: styles
// (bold, italic, strikethrough) may hold and be held by anything but code
// and pre, so a style holding inline code is cut around it; a link holds
// only styles, so inline code in a link is dropped (the link stays); a
// blockquote holds no blockquote; nothing nests in the same style. A link
// Telegram cannot open (not http, https or tg) is its text alone.
func telegramSpans(in []span) []span {
	var (
		kept, stack []span
		codes       []span
	)
	for _, s := range in {
		if s.kind == kindLink && !linkScheme(s.arg, "http", "https", "tg") {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
			stack = stack[:len(stack)-1]
		}
		if heldBy(stack, s.kind) || s.kind == kindCode && heldBy(stack, kindLink) {
			continue
		}
		stack = append(stack, s)
		kept = append(kept, s)
		if s.kind == kindCode {
			codes = append(codes, s)
		}
	}
	if len(codes) == 0 {
		return kept
	}
	out := make([]span, 0, len(kept)+2*len(codes))
	for _, s := range kept {
		if s.kind != kindBold && s.kind != kindItalic && s.kind != kindStrike {
			out = append(out, s)
			continue
		}
		k := sort.Search(len(codes), func(k int) bool { return codes[k].start >= s.start })
		for ; k < len(codes) && codes[k].end <= s.end; k++ {
			if codes[k].start > s.start {
				out = append(out, span{kind: s.kind, start: s.start, end: codes[k].start})
			}
			s.start = codes[k].end
		}
		if s.end > s.start {
			out = append(out, s)
		}
	}
	sortSpans(out)
	return out
}

func heldBy(stack []span, k kind) bool {
	for _, s := range stack {
		if s.kind == k {
			return true
		}
	}
	return false
}

// entities are the spans within text[start:end] as entities of that part.
func entities(text string, start, end int, spans []span) []Entity {
	var es []Entity
	var at []int // byte offsets to convert, relative to start
	for _, s := range spans {
		if s.start >= end {
			break
		}
		a, b := max(s.start, start), min(s.end, end)
		if a >= b {
			continue
		}
		e := Entity{Type: telegramTypes[s.kind], Offset: a - start, Length: b - start}
		switch s.kind {
		case kindPre:
			e.Language = s.arg
		case kindLink:
			e.URL = s.arg
		}
		es = append(es, e)
		at = append(at, a-start, b-start)
	}
	if len(es) == 0 {
		return nil
	}
	part := text[start:end]
	if !isASCII(part) {
		// Offsets and lengths count UTF-16 units: map each byte offset.
		slices.Sort(at)
		at = slices.Compact(at)
		u16 := make([]int, len(at))
		units, p := 0, 0
		for i, b := range at {
			units += utf16Units.of(part[p:b])
			p = b
			u16[i] = units
		}
		conv := func(b int) int {
			i, _ := slices.BinarySearch(at, b)
			return u16[i]
		}
		for i := range es {
			es[i].Offset, es[i].Length = conv(es[i].Offset), conv(es[i].Length)
		}
	}
	for i := range es {
		es[i].Length -= es[i].Offset // Length held the end until here
	}
	return es
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
