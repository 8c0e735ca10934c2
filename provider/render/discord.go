package render

import (
	"bytes"
	"slices"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// discordFrames finds, in the Markdown src, what a cut must keep whole or
// close and reopen: fenced code blocks (closed with their fence, reopened
// with fence and info string), indented code (white space kept), emphasis
// and strikethrough (their delimiters), inline code (its backticks), links,
// images, autolinks and inline HTML (not cut). Positions come from the
// parser's tree; a node whose extent cannot be told is left out, which
// only makes a cut there less tidy.
func discordFrames(src []byte) []frame {
	var fs []frame
	_ = ast.Walk(parse(src), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if f, ok := fencedFrame(n, src); ok {
				fs = append(fs, f)
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			if lines := n.Lines(); lines.Len() > 0 {
				cs := lineStart(src, lines.At(0).Start)
				ce := trimNewline(src, lines.At(lines.Len()-1).Stop)
				if cs < ce {
					fs = append(fs, frame{lo: cs, cs: cs, ce: ce, hi: ce, verbatim: true})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Emphasis:
			if f, ok := delimited(n, src, n.Level); ok {
				fs = append(fs, f)
			}
		case *east.Strikethrough:
			k := 0
			for p := n.Pos(); p >= 0 && p+k < len(src) && src[p+k] == '~'; k++ {
			}
			if f, ok := delimited(n, src, k); ok {
				fs = append(fs, f)
			}
		case *ast.CodeSpan:
			lo, hi := n.Pos(), inlineEnd(n, src)
			k := run(src, lo, '`')
			if lo >= 0 && k > 0 && hi-lo >= 2*k {
				ticks := string(src[lo : lo+k])
				fs = append(fs, frame{lo: lo, cs: lo + k, ce: hi - k, hi: hi, open: ticks, close: ticks, whole: true})
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link, *ast.Image, *ast.AutoLink, *ast.RawHTML:
			lo, hi := n.Pos(), inlineEnd(n, src)
			if a, ok := n.(*ast.AutoLink); ok && lo >= 0 && src[lo] != '<' {
				// A bare link: its Pos may be the space before it.
				if i := bytes.Index(src[lo:], a.Label(src)); i >= 0 {
					lo += i
				}
			}
			if lo >= 0 && hi > lo {
				fs = append(fs, frame{lo: lo, cs: lo, ce: hi, hi: hi, whole: true})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	slices.SortStableFunc(fs, func(a, b frame) int {
		if a.lo != b.lo {
			return a.lo - b.lo
		}
		return b.hi - a.hi
	})
	return fs
}

// fencedFrame is a fenced code block's frame: the opening fence line is
// its open markup, the closing fence line its close.
func fencedFrame(n *ast.FencedCodeBlock, src []byte) (frame, bool) {
	p := n.Pos()
	lines := n.Lines()
	if p < 0 || p >= len(src) || lines.Len() == 0 || (src[p] != '`' && src[p] != '~') {
		return frame{}, false
	}
	k := run(src, p, src[p])
	fence := src[p : p+k]
	ls := lineStart(src, p)
	openEnd := bytes.IndexByte(src[p:], '\n')
	if openEnd < 0 {
		return frame{}, false
	}
	openEnd += p
	// What stands before the fence on its line: quote markers stay, a list
	// item's marker becomes spaces.
	lead := bytes.Map(func(r rune) rune {
		if r == '>' || r == ' ' || r == '\t' {
			return r
		}
		return ' '
	}, src[ls:p])
	f := frame{
		lo:       ls,
		cs:       openEnd + 1,
		ce:       trimNewline(src, lines.At(lines.Len()-1).Stop),
		open:     string(lead) + string(src[p:openEnd]) + "\n",
		close:    "\n" + string(lead) + string(fence),
		verbatim: true,
	}
	f.hi = f.ce
	// The closing fence, if the block has one, is the line after the last.
	if next := lines.At(lines.Len() - 1).Stop; next < len(src) {
		end := bytes.IndexByte(src[next:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += next
		}
		line := bytes.TrimLeft(src[next:end], " \t>")
		if run(line, 0, fence[0]) >= k && len(bytes.TrimSpace(line[run(line, 0, fence[0]):])) == 0 {
			f.hi = end
		}
	}
	if f.cs > f.ce {
		return frame{}, false
	}
	return f, true
}

// delimited is the frame of emphasis or strikethrough whose delimiters
// are k characters on each side.
func delimited(n ast.Node, src []byte, k int) (frame, bool) {
	lo, hi := n.Pos(), inlineEnd(n, src)
	if lo < 0 || k == 0 || hi-lo < 2*k+1 || hi > len(src) {
		return frame{}, false
	}
	c := src[lo]
	if run(src, lo, c) < k || src[hi-1] != c || (c != '*' && c != '_' && c != '~') {
		return frame{}, false
	}
	open, close := string(src[lo:lo+k]), string(src[hi-k:hi])
	return frame{lo: lo, cs: lo + k, ce: hi - k, hi: hi, open: open, close: close}, true
}

// run counts the bytes c from src[p].
func run(src []byte, p int, c byte) int {
	k := 0
	for p >= 0 && p+k < len(src) && src[p+k] == c {
		k++
	}
	return k
}

func lineStart(src []byte, p int) int {
	return bytes.LastIndexByte(src[:p], '\n') + 1
}

func trimNewline(src []byte, p int) int {
	if p > 0 && src[p-1] == '\n' {
		return p - 1
	}
	return p
}

// inlineEnd is where the inline node n ends in src, or -1 if that cannot
// be told.
func inlineEnd(n ast.Node, src []byte) int {
	switch n := n.(type) {
	case *ast.Text:
		return n.Segment.Stop
	case *ast.CodeSpan:
		lo := n.Pos()
		k := run(src, lo, '`')
		if lo < 0 || k == 0 {
			return -1
		}
		from := lo + k
		if t, ok := n.LastChild().(*ast.Text); ok {
			from = t.Segment.Stop
		}
		// The closing run is the first run of exactly k backticks.
		for i := from; i < len(src); {
			if src[i] != '`' {
				i++
				continue
			}
			m := run(src, i, '`')
			if m == k {
				return i + k
			}
			i += m
		}
		return -1
	case *ast.Emphasis:
		if e := inlineEnd(n.LastChild(), src); e >= 0 {
			return e + n.Level
		}
		return -1
	case *east.Strikethrough:
		k := run(src, n.Pos(), '~')
		if e := inlineEnd(n.LastChild(), src); e >= 0 && k > 0 {
			return e + k
		}
		return -1
	case *ast.Link, *ast.Image:
		label := n.Pos() + 1
		if _, ok := n.(*ast.Image); ok {
			label++
		}
		if n.LastChild() != nil {
			label = inlineEnd(n.LastChild(), src)
		}
		if label < 0 || label >= len(src) || src[label] != ']' {
			return -1
		}
		return linkTail(src, label+1)
	case *ast.AutoLink:
		lo := n.Pos()
		if lo < 0 {
			return -1
		}
		if src[lo] == '<' {
			if i := bytes.IndexByte(src[lo:], '>'); i > 0 {
				return lo + i + 1
			}
			return -1
		}
		label := n.Label(src)
		if i := bytes.Index(src[lo:], label); i >= 0 {
			return lo + i + len(label)
		}
		return -1
	case *ast.RawHTML:
		if n.Segments.Len() > 0 {
			return n.Segments.At(n.Segments.Len() - 1).Stop
		}
		return -1
	case *east.TaskCheckBox:
		return n.Pos() + 3
	}
	return -1
}

// linkTail is where a link ends, given i just after its text's ']': an
// inline link's (destination "title"), a reference link's [label], or
// nothing (a shortcut reference).
func linkTail(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	switch src[i] {
	case '[':
		for j := i + 1; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++
			case ']':
				return j + 1
			}
		}
		return -1
	case '(':
	default:
		return i
	}
	j := skipSpace(src, i+1)
	if j < len(src) && src[j] == '<' {
		for j++; j < len(src) && src[j] != '>'; j++ {
			if src[j] == '\\' {
				j++
			} else if src[j] == '\n' {
				return -1
			}
		}
		j++
	} else {
		depth := 0
	dest:
		for ; j < len(src); j++ {
			switch c := src[j]; {
			case c == '\\':
				j++
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break dest
				}
				depth--
			case c <= ' ':
				break dest
			}
		}
	}
	j = skipSpace(src, j)
	if j < len(src) && (src[j] == '"' || src[j] == '\'' || src[j] == '(') {
		closer := src[j]
		if closer == '(' {
			closer = ')'
		}
		for j++; j < len(src) && src[j] != closer; j++ {
			if src[j] == '\\' {
				j++
			}
		}
		j = skipSpace(src, j+1)
	}
	if j < len(src) && src[j] == ')' {
		return j + 1
	}
	return -1
}

func skipSpace(src []byte, j int) int {
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
		j++
	}
	return j
}
