package render

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown is the one CommonMark parser (with GitHub's strikethrough,
// tables, bare links and task lists) every renderer uses. A goldmark
// Markdown is safe for concurrent use.
var markdown = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough, extension.Table, extension.Linkify, extension.TaskList,
))

func parse(src []byte) ast.Node {
	return markdown.Parser().Parse(text.NewReader(src))
}

// kind is the style of a span.
type kind uint8

const (
	kindBold kind = iota + 1
	kindItalic
	kindStrike
	kindCode
	kindPre
	kindLink
	kindQuote
)

// A span styles doc.text[start:end].
type span struct {
	kind       kind
	start, end int
	arg        string // kindPre: the language; kindLink: the destination
}

// A doc is Markdown rendered to plain text and styled spans: what Telegram
// takes as text and entities, and what the Slack renderer writes as
// mrkdwn. Headings are bold lines, list items start with "• " or "1. ",
// tables are a pre block, images are a link to the image, raw HTML is
// text. Spans nest as the Markdown did (no two cross).
type doc struct {
	text  string
	spans []span // sorted by start, an outer span before the spans it holds
}

// Markers of list items by depth; ordered lists count instead.
var bullets = [...]string{"• ", "◦ ", "▪ "}

const ruleLine = "———"

// build renders the Markdown in src (already normalized: see clean).
func build(src []byte) *doc {
	b := builder{src: src, out: make([]byte, 0, len(src))}
	b.block(parse(src))
	spans := b.spans[:0]
	for _, s := range b.spans {
		if s.start >= 0 && s.end > s.start {
			spans = append(spans, s)
		}
	}
	// Spans were appended as they opened: by start, outer first, except an
	// empty-at-open span resolved later. A stable sort keeps nesting order.
	sortSpans(spans)
	return &doc{text: string(b.out), spans: spans}
}

func sortSpans(s []span) {
	// insertion sort: the slice is almost sorted already
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && spanLess(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func spanLess(a, b span) bool {
	if a.start != b.start {
		return a.start < b.start
	}
	return a.end > b.end
}

// builder walks goldmark's tree and writes the doc.
type builder struct {
	src   []byte
	out   []byte
	spans []span
	pend  []int  // spans opened but not started: they start at the next content
	nl    int    // line breaks owed before the next content
	ind   []byte // indentation after each line break inside list items
	fresh bool   // a list marker was just written: the item's first block goes on its line
	tight []bool // the lists we are in: tight or loose
	depth int    // list depth
}

// flush writes the line breaks owed (then the indentation, if indent) and
// starts the pending spans.
func (b *builder) flush(indent bool) {
	if b.nl > 0 && len(b.out) > 0 {
		for ; b.nl > 0; b.nl-- {
			b.out = append(b.out, '\n')
		}
		if indent {
			b.out = append(b.out, b.ind...)
		}
	}
	b.nl = 0
	for _, i := range b.pend {
		b.spans[i].start = len(b.out)
	}
	b.pend = b.pend[:0]
}

func (b *builder) write(s []byte) {
	if len(s) == 0 {
		return
	}
	b.flush(true)
	b.out = append(b.out, s...)
}

func (b *builder) writeString(s string) {
	if len(s) == 0 {
		return
	}
	b.flush(true)
	b.out = append(b.out, s...)
}

// writeLines writes text whose line breaks are line breaks of the doc
// (indented inside list items).
func (b *builder) writeLines(s []byte) {
	for {
		i := indexByte(s, '\n')
		if i < 0 {
			b.write(s)
			return
		}
		b.write(s[:i])
		b.nl = max(b.nl, 1)
		s = s[i+1:]
	}
}

func indexByte(s []byte, c byte) int {
	for i, x := range s {
		if x == c {
			return i
		}
	}
	return -1
}

func (b *builder) open(k kind, arg string) int {
	b.spans = append(b.spans, span{kind: k, start: -1, end: -1, arg: arg})
	i := len(b.spans) - 1
	b.pend = append(b.pend, i)
	return i
}

func (b *builder) close(i int) {
	if b.spans[i].start < 0 { // nothing was written in it
		for j, p := range b.pend {
			if p == i {
				b.pend = append(b.pend[:j], b.pend[j+1:]...)
				break
			}
		}
		return
	}
	b.spans[i].end = len(b.out)
}

// sep is called before each block: a blank line between blocks, a line
// break between the blocks of a tight list.
func (b *builder) sep() {
	if b.fresh {
		b.fresh = false
		return
	}
	n := 2
	if len(b.tight) > 0 && b.tight[len(b.tight)-1] {
		n = 1
	}
	b.nl = max(b.nl, n)
}

func (b *builder) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.block(c)
	}
}

func (b *builder) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Document:
		b.children(n)
	case *ast.Paragraph, *ast.TextBlock:
		b.sep()
		b.inlines(n)
	case *ast.Heading:
		b.sep()
		i := b.open(kindBold, "")
		b.inlines(n)
		b.close(i)
	case *ast.ThematicBreak:
		b.sep()
		b.writeString(ruleLine)
	case *ast.FencedCodeBlock:
		b.sep()
		b.pre(n.Lines(), string(n.Language(b.src)))
	case *ast.CodeBlock:
		b.sep()
		b.pre(n.Lines(), "")
	case *ast.Blockquote:
		// The quote starts with its first block (and that block's
		// separation from what came before).
		i := b.open(kindQuote, "")
		b.children(n)
		b.close(i)
	case *ast.List:
		b.sep()
		b.tight = append(b.tight, n.IsTight)
		b.depth++
		num := n.Start
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			marker := bullets[min(b.depth, len(bullets))-1]
			if n.IsOrdered() {
				marker = strconv.Itoa(num) + ". "
				num++
			}
			if c != n.FirstChild() {
				b.sep()
			}
			b.writeString(marker)
			saved := len(b.ind)
			b.ind = append(b.ind, strings.Repeat(" ", utf8.RuneCountInString(marker))...)
			b.fresh = true
			b.children(c)
			b.fresh = false
			b.ind = b.ind[:saved]
		}
		b.depth--
		b.tight = b.tight[:len(b.tight)-1]
	case *ast.HTMLBlock:
		b.sep()
		b.writeLines(trimTrailingNewlines(htmlBlockText(n, b.src)))
	case *east.Table:
		b.sep()
		b.table(n)
	default:
		if n.Type() == ast.TypeInline {
			b.inline(n)
			return
		}
		if n.HasChildren() {
			b.children(n)
			return
		}
		b.sep()
		b.writeLines(trimTrailingNewlines(linesText(n.Lines(), b.src)))
	}
}

// linesText is the text of a block's lines (with their line breaks).
func linesText(lines *text.Segments, src []byte) []byte {
	var out []byte
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		out = append(out, seg.Value(src)...)
	}
	return out
}

// htmlBlockText is the text of an HTML block, closing line included.
func htmlBlockText(n *ast.HTMLBlock, src []byte) []byte {
	raw := linesText(n.Lines(), src)
	if n.HasClosure() {
		raw = append(raw, n.ClosureLine.Value(src)...)
	}
	return raw
}

func trimTrailingNewlines(s []byte) []byte {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// trimBlankLines drops the lines of only white space that start or end a
// code block (the first line with text keeps its indentation).
func trimBlankLines(code []byte) []byte {
	for {
		i := indexByte(code, '\n')
		if i < 0 || len(bytes.TrimSpace(code[:i])) > 0 {
			break
		}
		code = code[i+1:]
	}
	for {
		i := bytes.LastIndexByte(code, '\n')
		if len(bytes.TrimSpace(code[i+1:])) > 0 {
			break
		}
		if i < 0 {
			return nil
		}
		code = code[:i]
	}
	return code
}

// preLine puts a code block on a line of its own, also when it is the
// first block of a list item.
func (b *builder) preLine() {
	if len(b.out) > 0 && b.nl == 0 && b.out[len(b.out)-1] != '\n' {
		b.nl = 1
	}
}

// pre writes a code block: a pre span over its lines, not indented.
func (b *builder) pre(lines *text.Segments, lang string) {
	code := trimBlankLines(linesText(lines, b.src))
	if len(code) == 0 {
		return
	}
	i := b.open(kindPre, lang)
	b.preLine()
	b.flush(false)
	b.out = append(b.out, code...)
	b.close(i)
}

func (b *builder) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.inline(c)
	}
}

func (b *builder) inline(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(b.src)
		if n.IsRaw() {
			b.write(v)
		} else {
			b.write(unescape(v))
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			b.nl = max(b.nl, 1)
		}
	case *ast.String:
		if n.IsRaw() || n.IsCode() {
			b.write(n.Value)
		} else {
			b.write(unescape(n.Value))
		}
	case *ast.CodeSpan:
		var code []byte
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				code = append(code, t.Segment.Value(b.src)...)
			case *ast.String:
				code = append(code, t.Value...)
			}
		}
		for i, c := range code {
			if c == '\n' || c == '\r' {
				code[i] = ' '
			}
		}
		i := b.open(kindCode, "")
		b.write(code)
		b.close(i)
	case *ast.Emphasis:
		k := kindItalic
		if n.Level >= 2 {
			k = kindBold
		}
		i := b.open(k, "")
		b.inlines(n)
		b.close(i)
	case *east.Strikethrough:
		i := b.open(kindStrike, "")
		b.inlines(n)
		b.close(i)
	case *ast.Link:
		b.link(n, string(util.URLEscape(n.Destination, true)))
	case *ast.Image:
		b.link(n, string(util.URLEscape(n.Destination, true)))
	case *ast.AutoLink:
		label := n.Label(b.src)
		url := string(util.URLEscape(n.URL(b.src), false))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		i := b.open(kindLink, url)
		b.write(label)
		b.close(i)
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.writeLines(seg.Value(b.src))
		}
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.writeString("☑ ")
		} else {
			b.writeString("☐ ")
		}
	default:
		b.inlines(n)
	}
}

// link writes a link (or an image, as a link to it): its text, or the
// destination when the text is empty.
func (b *builder) link(n ast.Node, dest string) {
	i := b.open(kindLink, dest)
	b.inlines(n)
	if b.spans[i].start < 0 {
		b.writeString(dest)
	}
	b.close(i)
}

// table writes a table as a pre block of aligned columns; the cells' own
// styles are dropped.
func (b *builder) table(t *east.Table) {
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var row []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			row = append(row, plainText(c, b.src))
		}
		rows = append(rows, row)
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	width := make([]int, cols)
	for _, r := range rows {
		for j, c := range r {
			width[j] = max(width[j], uniseg.StringWidth(c))
		}
	}
	var s strings.Builder
	for i, r := range rows {
		if i > 0 {
			s.WriteByte('\n')
		}
		var line strings.Builder
		for j := range cols {
			c := ""
			if j < len(r) {
				c = r[j]
			}
			if j > 0 {
				line.WriteString(" | ")
			}
			pad := width[j] - uniseg.StringWidth(c)
			align := east.AlignNone
			if j < len(t.Alignments) {
				align = t.Alignments[j]
			}
			switch align {
			case east.AlignRight:
				line.WriteString(strings.Repeat(" ", pad))
				line.WriteString(c)
			case east.AlignCenter:
				line.WriteString(strings.Repeat(" ", pad/2))
				line.WriteString(c)
				line.WriteString(strings.Repeat(" ", pad-pad/2))
			default:
				line.WriteString(c)
				line.WriteString(strings.Repeat(" ", pad))
			}
		}
		s.WriteString(strings.TrimRight(line.String(), " "))
		if i == 0 {
			s.WriteByte('\n')
			for j := range cols {
				if j > 0 {
					s.WriteString("-+-")
				}
				s.WriteString(strings.Repeat("-", max(width[j], 1)))
			}
		}
	}
	if s.Len() == 0 {
		return
	}
	i := b.open(kindPre, "")
	b.preLine()
	b.flush(false)
	b.out = append(b.out, s.String()...)
	b.close(i)
}

// plainText is the text of an inline tree without its styles.
func plainText(n ast.Node, src []byte) string {
	var s strings.Builder
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				if c.IsRaw() {
					s.Write(c.Segment.Value(src))
				} else {
					s.Write(unescape(c.Segment.Value(src)))
				}
				if c.SoftLineBreak() || c.HardLineBreak() {
					s.WriteByte(' ')
				}
			case *ast.String:
				s.Write(c.Value)
			case *ast.AutoLink:
				s.Write(c.Label(src))
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					s.Write(seg.Value(src))
				}
			case *east.TaskCheckBox:
				if c.IsChecked {
					s.WriteString("☑ ")
				} else {
					s.WriteString("☐ ")
				}
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return s.String()
}

// unescape resolves what CommonMark resolves in text: backslash escapes
// of ASCII punctuation and entity and numeric character references. It
// returns v itself when there is nothing to resolve.
func unescape(v []byte) []byte {
	if indexByte(v, '\\') < 0 && indexByte(v, '&') < 0 {
		return v
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]):
			out = append(out, v[i+1])
			i++
		case c == '&':
			if r, n := reference(v[i:]); n > 0 {
				out = append(out, r...)
				i += n - 1
			} else {
				out = append(out, c)
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// reference decodes the character reference at the start of v (&amp;,
// &#35;, &#x1F600;), returning its text and length, or n = 0.
func reference(v []byte) (s []byte, n int) {
	end := -1
	for i := 1; i < len(v) && i < 40; i++ {
		if v[i] == ';' {
			end = i
			break
		}
	}
	if end < 2 {
		return nil, 0
	}
	body := string(v[1:end])
	if body[0] == '#' {
		num, base := body[1:], 10
		if len(num) > 0 && (num[0] == 'x' || num[0] == 'X') {
			num, base = num[1:], 16
		}
		if len(num) == 0 || (base == 10 && len(num) > 7) || (base == 16 && len(num) > 6) {
			return nil, 0
		}
		x, err := strconv.ParseUint(num, base, 32)
		if err != nil {
			return nil, 0
		}
		r := rune(x)
		if r == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(nil, r), end + 1
	}
	if e, ok := util.LookUpHTML5EntityByName(body); ok {
		return e.Characters, end + 1
	}
	return nil, 0
}
