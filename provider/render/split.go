package render

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// unit is how a platform counts the length of a message.
type unit uint8

const (
	utf16Units unit = iota // Telegram: UTF-16 code units
	codePoints             // Slack, Discord: Unicode code points
)

func (u unit) ofRune(r rune) int {
	if u == utf16Units && r > 0xFFFF {
		return 2
	}
	return 1
}

func (u unit) of(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		n += u.ofRune(r)
		i += w
	}
	return n
}

// isBreakSpace reports whether a cut may take r: white space that is not a
// no-break space (U+00A0, U+2007, U+202F keep their neighbours together).
func isBreakSpace(r rune) bool {
	switch r {
	case ' ', '\n', '\t', '\r', '\v', '\f':
		return true
	case 0xA0, 0x2007, 0x202F:
		return false
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}

// A frame is a range of the text that a cut must leave well formed. The
// markup text[lo:cs] opens it and text[ce:hi] closes it (both empty for a
// Telegram entity). A cut inside its content [cs, ce) ends the one part
// with close and starts the next with open, so that each part is valid on
// its own: a fenced block cut in two is two fenced blocks.
type frame struct {
	lo, cs, ce, hi int
	open, close    string
	// verbatim: code, whose white space is content. A cut inside it takes
	// only a line break and the spaces or tabs that end that line, or
	// nothing.
	verbatim bool
	// whole: a link or inline code, cut inside only when nothing else fits.
	whole bool
}

// zone is a closed range [lo, hi] of positions where no cut may fall.
type zone struct{ lo, hi int }

// A layout is a rendered text ready to be cut into parts.
type layout struct {
	text   string
	unit   unit
	frames []frame // sorted by lo, an outer frame before the frames it holds
	zones  []zone  // extra places not to cut (an escape such as &amp;)

	// Computed by prepare, merged and sorted.
	noCut    []zone // where no cut may fall: markup, escapes, whole frames
	broken   []zone // where a cut would break markup or an escape
	verbatim []zone // content ranges [lo, hi) of verbatim frames
}

// A piece is one part of a layout: prefix + text[start:end] + suffix. The
// pieces of a layout tile its text but for the white space at each cut
// (text[end:next start]) and for the trimmed ends.
type piece struct {
	start, end     int
	prefix, suffix string
}

func (l *layout) prepare() {
	hard := l.zones[:len(l.zones):len(l.zones)] // appends copy
	var whole, vb []zone
	for _, f := range l.frames {
		if f.lo < f.cs {
			hard = append(hard, zone{f.lo + 1, f.cs})
		}
		if f.ce < f.hi {
			hard = append(hard, zone{f.ce, f.hi - 1})
		}
		if f.whole && f.hi-f.lo > 1 {
			whole = append(whole, zone{f.lo + 1, f.hi - 1})
		}
		if f.verbatim && f.cs < f.ce {
			vb = append(vb, zone{f.cs, f.ce})
		}
	}
	l.broken = mergeZones(hard, 0)
	l.noCut = mergeZones(append(hard, whole...), 0)
	l.verbatim = mergeZones(vb, 1)
}

// mergeZones returns zs sorted, those that overlap merged (or touch, for
// closed ranges: open = 0). zs is not changed.
func mergeZones(zs []zone, open int) []zone {
	if len(zs) == 0 {
		return nil
	}
	zs = slices.Clone(zs)
	slices.SortFunc(zs, func(a, b zone) int { return a.lo - b.lo })
	out := zs[:1]
	for _, z := range zs[1:] {
		last := &out[len(out)-1]
		if z.lo <= last.hi+1-open {
			last.hi = max(last.hi, z.hi)
			continue
		}
		out = append(out, z)
	}
	return out
}

// refused reports whether a cut at p is refused.
func (l *layout) refused(p int) bool { return inZones(l.noCut, p) }

// breaks reports whether a cut at p breaks markup or an escape.
func (l *layout) breaks(p int) bool { return inZones(l.broken, p) }

func inZones(zs []zone, p int) bool {
	i := sort.Search(len(zs), func(i int) bool { return zs[i].hi >= p })
	return i < len(zs) && zs[i].lo <= p
}

// inVerbatim reports whether byte p is in the content of a verbatim frame.
func (l *layout) inVerbatim(p int) bool {
	i := sort.Search(len(l.verbatim), func(i int) bool { return l.verbatim[i].hi > p })
	return i < len(l.verbatim) && l.verbatim[i].lo <= p
}

// bounds trims the text: white space at either end goes, except inside
// verbatim content.
func (l *layout) bounds() (int, int) {
	s, e := 0, len(l.text)
	for s < e {
		r, w := utf8.DecodeRuneInString(l.text[s:])
		if !isBreakSpace(r) || l.inVerbatim(s) {
			break
		}
		s += w
	}
	for e > s {
		r, w := utf8.DecodeLastRuneInString(l.text[s:e])
		if !isBreakSpace(r) || l.inVerbatim(e-w) {
			break
		}
		e -= w
	}
	return s, e
}

// Cut classes, best first.
const (
	cutBlock = iota // a blank line between blocks
	cutLine         // a line break
	cutSpace        // a space
	cutClasses
)

// A cand is a possible cut: the part ends at a and the next starts at b;
// text[a:b] is the white space the cut takes.
type cand struct {
	a, b  int
	units int // units of text[part start:a]
	class int
}

// split cuts the layout into pieces of at most limit units each (prefix
// and suffix included). See the package doc for the rule.
func (l *layout) split(limit int) []piece {
	l.prepare()
	start, stop := l.bounds()
	var (
		out   []piece
		open  []int // frames crossing the previous cut, outer first
		cands []cand
	)
	pos := start
	for pos < stop {
		prefix := l.opens(open) // at most half the limit: see fits
		pu := l.unit.of(prefix)
		budget := limit - pu
		if stop-pos <= budget { // a unit takes at least a byte: the rest fits
			out = append(out, piece{start: pos, end: stop, prefix: prefix})
			break
		}

		// Scan forward as far as the budget goes, noting where a cut could
		// fall.
		cands = cands[:0]
		u, i := 0, pos
		vz := sort.Search(len(l.verbatim), func(k int) bool { return l.verbatim[k].hi > pos })
		inVerbatim := func(p int) bool { // for p not before i: l.inVerbatim, cheaper
			for vz < len(l.verbatim) && l.verbatim[vz].hi <= p {
				vz++
			}
			return vz < len(l.verbatim) && l.verbatim[vz].lo <= p
		}
	scan:
		for i < stop {
			r, w := utf8.DecodeRuneInString(l.text[i:])
			switch {
			case inVerbatim(i):
				if r == '\n' {
					a := i
					for a > pos && (l.text[a-1] == ' ' || l.text[a-1] == '\t') && l.inVerbatim(a-1) {
						a--
					}
					cands = append(cands, cand{a: a, b: i + 1, units: u - (i - a), class: cutLine})
				}
			case isBreakSpace(r):
				j, nl := i, 0
				for j < stop && !inVerbatim(j) {
					r2, w2 := utf8.DecodeRuneInString(l.text[j:])
					if !isBreakSpace(r2) {
						break
					}
					if r2 == '\n' {
						nl++
					}
					j += w2
				}
				class := cutSpace
				if nl >= 2 {
					class = cutBlock
				} else if nl == 1 {
					class = cutLine
				}
				cands = append(cands, cand{a: i, b: j, units: u, class: class})
				for i < j {
					r2, w2 := utf8.DecodeRuneInString(l.text[i:])
					ru := l.unit.ofRune(r2)
					if u+ru > budget {
						break scan
					}
					u += ru
					i += w2
				}
				continue
			}
			ru := l.unit.ofRune(r)
			if u+ru > budget {
				break
			}
			u += ru
			i += w
		}
		if i >= stop {
			out = append(out, piece{start: pos, end: stop, prefix: prefix})
			break
		}
		h := i // text[pos:h] is the most that fits

		c, cross, ok := l.choose(pos, pu, limit, budget, open, cands)
		if !ok {
			c, cross, ok = l.graphemeCut(pos, h, pu, limit, open)
		}
		if !ok {
			c, cross = l.forcedCut(pos, h, pu, limit, open)
		}
		out = append(out, piece{start: pos, end: c.a, prefix: prefix, suffix: l.closes(cross)})
		open = cross
		pos = c.b
	}
	return out
}

// minFill is the least of the budget a cut of each class must fill to be
// taken before a cut of a worse class: a third for a blank line, half for
// a line break or a space.
var minFill = [cutClasses]struct{ num, den int }{{1, 3}, {1, 2}, {1, 2}}

// choose picks the cut among cands: the best class that fills enough of
// the budget (minFill), else the rightmost cut of any class.
func (l *layout) choose(pos, pu, limit, budget int, open []int, cands []cand) (cand, []int, bool) {
	for class := cutBlock; class < cutClasses; class++ {
		for k := len(cands) - 1; k >= 0; k-- {
			c := cands[k]
			if c.units*minFill[class].den < budget*minFill[class].num {
				break
			}
			if c.class != class {
				continue
			}
			if cross, ok := l.fits(c, pos, pu, limit, open); ok {
				return c, cross, true
			}
		}
	}
	for k := len(cands) - 1; k >= 0; k-- {
		if cross, ok := l.fits(cands[k], pos, pu, limit, open); ok {
			return cands[k], cross, true
		}
	}
	return cand{}, nil, false
}

// fits checks a cut: not empty, not refused, within the limit with the
// markup that closes the frames it crosses, and with markup to open them
// again in the next part of at most half the limit (so that the next part
// has room for text). It returns those frames.
func (l *layout) fits(c cand, pos, pu, limit int, open []int) ([]int, bool) {
	if c.a <= pos || l.refused(c.a) || l.refused(c.b) {
		return nil, false
	}
	cross := l.crossing(c.a, c.b, pos, open)
	if len(cross) == 0 {
		return nil, pu+c.units <= limit
	}
	return cross, pu+c.units+l.unit.of(l.closes(cross)) <= limit && 2*l.unit.of(l.opens(cross)) <= limit
}

// crossing lists the frames open in the part starting at pos (reopened
// there, or opened inside it) that a cut taking text[a:b] crosses:
// content on both sides of the cut. Outer first.
func (l *layout) crossing(a, b, pos int, open []int) []int {
	var out []int
	for _, k := range open {
		if f := &l.frames[k]; f.cs < a && f.ce > b {
			out = append(out, k)
		}
	}
	k := sort.Search(len(l.frames), func(k int) bool { return l.frames[k].lo >= pos })
	for ; k < len(l.frames) && l.frames[k].lo < a; k++ {
		if f := &l.frames[k]; f.cs < a && f.ce > b {
			out = append(out, k)
		}
	}
	return out
}

func (l *layout) opens(fs []int) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	for _, k := range fs {
		b.WriteString(l.frames[k].open)
	}
	return b.String()
}

func (l *layout) closes(fs []int) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	for i := len(fs) - 1; i >= 0; i-- {
		b.WriteString(l.frames[fs[i]].close)
	}
	return b.String()
}

// graphemeCut cuts inside a word when no white space will do: at the
// rightmost grapheme cluster boundary that fits (an emoji with joiners or
// a letter with its accents stays whole), taking nothing.
func (l *layout) graphemeCut(pos, h, pu, limit int, open []int) (cand, []int, bool) {
	type bound struct{ p, units int }
	var bs []bound
	rest, state, p, u := l.text[pos:], -1, pos, 0
	for len(rest) > 0 {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if p+len(cluster) > h {
			break
		}
		p += len(cluster)
		u += l.unit.of(cluster)
		bs = append(bs, bound{p, u})
	}
	for k := len(bs) - 1; k >= 0; k-- {
		p := bs[k].p
		if !l.inVerbatim(p) && !l.inVerbatim(p-1) {
			r1, _ := utf8.DecodeLastRuneInString(l.text[:p])
			r2, _ := utf8.DecodeRuneInString(l.text[p:])
			if isBreakSpace(r1) || isBreakSpace(r2) {
				continue // white space: a cut there was already weighed
			}
		}
		c := cand{a: p, b: p, units: bs[k].units}
		if cross, ok := l.fits(c, pos, pu, limit, open); ok {
			return c, cross, true
		}
	}
	return cand{}, nil, false
}

// forcedCut is the last resort, when every place to cut is refused (a
// link or inline code longer than a part): the rightmost code point
// boundary that fits and breaks no markup or escape, with the markup that
// closes and reopens the frames it crosses; failing that, the rightmost
// that breaks none, without that markup (the frames are then broken);
// failing that, the most that fits.
func (l *layout) forcedCut(pos, h, pu, limit int, open []int) (cand, []int) {
	var bare *cand
	u := l.unit.of(l.text[pos:h])
	for p := h; p > pos; {
		c := cand{a: p, b: p, units: u}
		if !l.breaks(p) {
			if cross := l.crossing(p, p, pos, open); pu+u+l.unit.of(l.closes(cross)) <= limit && 2*l.unit.of(l.opens(cross)) <= limit {
				return c, cross
			}
			if bare == nil {
				bare = &c
			}
		}
		r, w := utf8.DecodeLastRuneInString(l.text[pos:p])
		p -= w
		u -= l.unit.ofRune(r)
	}
	if bare != nil {
		return *bare, nil
	}
	return cand{a: h, b: h}, nil
}
