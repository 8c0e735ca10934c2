package render

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// zwsp, U+200B ZERO WIDTH SPACE, goes between a mrkdwn marker and a
// letter or digit beside it: Slack takes *, _, ~ and ` as markup only at a
// word's edge (he*l*lo is not bold), and a zero-width space makes an edge
// that nobody sees (he\u200b*l*\u200blo is). The same trick, documented by
// slackify-markdown and in Slack's community answers, keeps a run of three
// backticks in code from closing the block.
const zwsp = "\u200b"

// kindBareLink is a link the Slack renderer writes as its text and its
// URL in parentheses.
const kindBareLink = kindQuote + 1

// slackMarkers are the mrkdwn markers of the inline styles.
var slackMarkers = [...]string{
	kindBold:   "*",
	kindItalic: "_",
	kindStrike: "~",
	kindCode:   "`",
}

// slackSpans keeps the spans mrkdwn can show: a link's text takes no
// style (Slack shows <url|*x*> as is), so spans inside a link go; a style
// inside the same style goes (*a *b* c* would end at the second *); a
// quote inside a quote goes (mrkdwn quotes do not nest). A link Slack
// cannot open (not http, https or mailto) is its text alone.
func slackSpans(in []span) []span {
	var kept, stack []span
	for _, s := range in {
		if s.kind == kindLink && !linkScheme(s.arg, "http", "https", "mailto") {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
			stack = stack[:len(stack)-1]
		}
		if heldBy(stack, s.kind) || heldBy(stack, kindLink) {
			continue
		}
		stack = append(stack, s)
		kept = append(kept, s)
	}
	return kept
}

// slackURL writes a URL as it may stand between < and |: & escaped as
// Slack escapes it, and the characters that would end the link
// percent-encoded.
func slackURL(u string) string {
	if !strings.ContainsAny(u, "&<>|") {
		return u
	}
	return strings.NewReplacer("&", "&amp;", "<", "%3C", ">", "%3E", "|", "%7C").Replace(u)
}

// slackWriter writes mrkdwn and the frames and zones the cutter needs.
type slackWriter struct {
	out    []byte
	frames []frame
	zones  []zone
	code   bool // inside inline code
}

// slackLayout writes d as mrkdwn, line by line: a style that spans lines
// is closed at each line's end and opened again at the next (Slack's
// styles do not cross a line break), white space at a style's edges is
// moved out of it (*a * is not bold), each line of a quote starts with
// "> ", and a pre block is a ``` block without its language (Slack shows
// none). A link whose markup would take more than half the limit, which
// could not be cut whole, is its text and its URL in parentheses (Slack
// links a bare URL itself).
func slackLayout(d *doc, limit int) *layout {
	var pres, quotes, inline []span
	for _, s := range slackSpans(d.spans) {
		if s.kind == kindLink && 2*codePoints.of("<"+slackURL(s.arg)+"|>") > limit {
			s.kind = kindBareLink
		}
		switch s.kind {
		case kindPre:
			pres = append(pres, s)
		case kindQuote:
			quotes = append(quotes, s)
		default:
			inline = append(inline, s)
		}
	}
	t := d.text
	w := &slackWriter{out: make([]byte, 0, len(t)+len(t)/8+16)}
	var active []span
	pi, qi, ii := 0, 0, 0
	for pos := 0; ; {
		for pi < len(pres) && pres[pi].start < pos { // not at a line's start: never written so
			pi++
		}
		if pi < len(pres) && pres[pi].start == pos {
			w.pre(t[pos:pres[pi].end])
			pos = pres[pi].end
			pi++
			if pos >= len(t) {
				break
			}
			w.out = append(w.out, '\n')
			pos++ // the line break after the block
			continue
		}
		le := strings.IndexByte(t[pos:], '\n')
		if le < 0 {
			le = len(t)
		} else {
			le += pos
		}
		for qi < len(quotes) && quotes[qi].end <= pos {
			qi++
		}
		if qi < len(quotes) && quotes[qi].start < max(le, pos+1) {
			if le == pos {
				w.out = append(w.out, '>')
			} else {
				w.out = append(w.out, "> "...)
			}
		}
		for ii < len(inline) && inline[ii].start < le {
			active = append(active, inline[ii])
			ii++
		}
		active = slices.DeleteFunc(active, func(s span) bool { return s.end <= pos })
		w.line(t, pos, le, active)
		if le >= len(t) {
			break
		}
		w.out = append(w.out, '\n')
		pos = le + 1
	}
	return &layout{text: string(w.out), unit: codePoints, frames: w.frames, zones: w.zones}
}

// line writes t[ls:le] with the styles of active (outer first) that cover
// some of it.
func (w *slackWriter) line(t string, ls, le int, active []span) {
	type event struct {
		p    int
		open bool
		k    int // index in active
	}
	var evs []event
	for k, s := range active {
		a, b := max(s.start, ls), min(s.end, le)
		for a < b {
			r, n := utf8.DecodeRuneInString(t[a:b])
			if !isBreakSpace(r) {
				break
			}
			a += n
		}
		for b > a {
			r, n := utf8.DecodeLastRuneInString(t[a:b])
			if !isBreakSpace(r) {
				break
			}
			b -= n
		}
		if a < b {
			evs = append(evs, event{a, true, k}, event{b, false, k})
		}
	}
	// By place; at one place closes (inner first) before opens (outer
	// first), which keeps the markers nested as the spans are.
	slices.SortStableFunc(evs, func(x, y event) int {
		switch {
		case x.p != y.p:
			return x.p - y.p
		case x.open != y.open:
			if x.open {
				return 1
			}
			return -1
		case x.open:
			return x.k - y.k
		}
		return y.k - x.k
	})
	frameOf := make(map[int]int, len(evs)/2)
	cur := ls
	for _, e := range evs {
		w.text(t[cur:e.p])
		cur = e.p
		s := active[e.k]
		if s.kind == kindBareLink {
			if !e.open && s.end <= le && t[s.start:s.end] != s.arg {
				w.text(" (" + s.arg + ")")
			}
			continue
		}
		if e.open {
			frameOf[e.k] = w.open(s)
		} else {
			w.close(s, frameOf[e.k], t[e.p:le])
		}
	}
	w.text(t[cur:le])
}

func (w *slackWriter) open(s span) int {
	lo := len(w.out)
	if wordBefore(w.out) {
		w.out = append(w.out, zwsp...)
	}
	marker := "<" + slackURL(s.arg) + "|"
	if s.kind != kindLink {
		marker = slackMarkers[s.kind]
	}
	w.out = append(w.out, marker...)
	w.code = s.kind == kindCode
	w.frames = append(w.frames, frame{lo: lo, cs: len(w.out), open: marker, whole: s.kind == kindLink || s.kind == kindCode})
	return len(w.frames) - 1
}

func (w *slackWriter) close(s span, f int, after string) {
	marker := ">"
	if s.kind != kindLink {
		marker = slackMarkers[s.kind]
	}
	w.frames[f].ce = len(w.out)
	w.out = append(w.out, marker...)
	if r, _ := utf8.DecodeRuneInString(after); after != "" && isWord(r) {
		w.out = append(w.out, zwsp...)
	}
	w.frames[f].hi = len(w.out)
	w.frames[f].close = marker
	w.code = false
}

// pre writes a code block.
func (w *slackWriter) pre(code string) {
	lo := len(w.out)
	w.out = append(w.out, "```\n"...)
	cs := len(w.out)
	w.text(code)
	ce := len(w.out)
	w.out = append(w.out, "\n```"...)
	w.frames = append(w.frames, frame{lo: lo, cs: cs, ce: ce, hi: len(w.out), open: "```\n", close: "\n```", verbatim: true})
}

// text writes s escaped: &, < and > as Slack requires; in inline code a
// backtick (which would end it: mrkdwn has no longer code delimiters) as
// U+02CB; elsewhere a zero-width space before the third backtick of a run.
func (w *slackWriter) text(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '`':
			if w.code {
				esc = "ˋ"
			} else if n := len(w.out); n >= 2 && w.out[n-1] == '`' && w.out[n-2] == '`' {
				w.out = append(w.out, zwsp...)
			}
		}
		if esc == "" {
			w.out = append(w.out, c)
			continue
		}
		if len(esc) > 2 {
			w.zones = append(w.zones, zone{len(w.out) + 1, len(w.out) + len(esc) - 1})
		}
		w.out = append(w.out, esc...)
	}
}

// wordBefore reports whether the last character written is one a marker
// may not follow (see zwsp).
func wordBefore(out []byte) bool {
	if len(out) == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(out)
	return isWord(r)
}

// isWord reports whether r is neither white space, ASCII punctuation nor
// a zero-width space: Slack's markers need one of those beside them. A
// character outside ASCII counts as a word character (CJK text has no
// spaces, and Slack does not take its punctuation as an edge either).
func isWord(r rune) bool {
	switch {
	case isBreakSpace(r), r == 0x200B:
		return false
	case r < utf8.RuneSelf:
		return !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r)
	}
	return true
}
