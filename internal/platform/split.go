package platform

import (
	"strings"
	"unicode/utf8"
)

// Split cuts text into parts of at most limit characters (runes),
// each to be sent as its own message. It cuts at the last paragraph break
// ("\n\n") that leaves the part at least half full, else at the last line
// break, else at the last space, else in the middle of a word. The
// breaking whitespace is dropped; the text of the parts is otherwise
// unchanged. limit <= 0 means no limit.
func Split(text string, limit int) []string {
	if limit <= 0 || utf8.RuneCountInString(text) <= limit {
		return []string{text}
	}
	var parts []string
	rest := text
	for utf8.RuneCountInString(rest) > limit {
		head := rest[:byteOffset(rest, limit)]
		cut, atBreak := cutPoint(head, limit)
		part := head[:cut]
		if atBreak {
			part = strings.TrimRight(part, " \n")
		}
		if part != "" {
			parts = append(parts, part)
		}
		rest = rest[cut:]
		if atBreak {
			// Drop the whole run of blank lines or spaces at the cut.
			rest = strings.TrimLeft(rest, " \n")
		}
	}
	if strings.TrimSpace(rest) != "" || len(parts) == 0 {
		parts = append(parts, rest)
	}
	return parts
}

// cutPoint returns where to cut head (the first limit runes of what is
// left) and whether that is at a break (whitespace to drop).
func cutPoint(head string, limit int) (cut int, atBreak bool) {
	half := func(i int) bool { return utf8.RuneCountInString(head[:i]) >= limit/2 }
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(head, sep); i > 0 && half(i) {
			return i, true
		}
	}
	return len(head), false
}

// byteOffset is the byte offset of rune n in s (len(s) if s is shorter).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
