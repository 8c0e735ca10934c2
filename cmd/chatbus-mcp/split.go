package main

import (
	"strings"
	"unicode/utf8"
)

// splitText cuts text into parts of at most limit characters (runes),
// each to be sent as its own message. It cuts at the last paragraph break
// ("\n\n") that leaves the part at least half full, else at the last line
// break, else at the last space, else in the middle of a word. The
// breaking whitespace is dropped; the text of the parts is otherwise
// unchanged. limit <= 0 means no limit.
func splitText(text string, limit int) []string {
	if limit <= 0 || utf8.RuneCountInString(text) <= limit {
		return []string{text}
	}
	var parts []string
	rest := text
	for utf8.RuneCountInString(rest) > limit {
		head := rest[:byteOffset(rest, limit)]
		cut, skip := cutPoint(head, limit)
		part := head[:cut]
		rest = rest[cut+skip:]
		parts = append(parts, part)
	}
	if rest != "" {
		parts = append(parts, rest)
	}
	return parts
}

// cutPoint returns where to cut head (the first limit runes of what is
// left) and how many bytes of whitespace to drop there.
func cutPoint(head string, limit int) (cut, skip int) {
	half := func(i int) bool { return utf8.RuneCountInString(head[:i]) >= limit/2 }
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(head, sep); i > 0 && half(i) {
			// Drop the whole run of blank lines or spaces at the cut.
			j := i
			for j < len(head) && (head[j] == '\n' || head[j] == ' ') {
				j++
			}
			return i, j - i
		}
	}
	return len(head), 0
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
