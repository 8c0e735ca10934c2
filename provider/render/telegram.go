package render

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"
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

// CheckTelegram reports what the Bot API would refuse in p, or nil: text
// empty or longer than limit UTF-16 units (limit <= 0: TelegramLimit), an
// entity of an unknown type, empty, out of the text or splitting a
// surrogate pair, a text_link without URL, and entities that cross or
// nest where Telegram forbids it (styles hold anything but code and pre; a
// link holds only styles; code and pre hold nothing; no blockquote in a
// blockquote). A stand-in for the Bot API can use it to refuse as
// Telegram does.
func CheckTelegram(p TelegramPart, limit int) error {
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
