package platform

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{name: "fits", text: "hello", limit: 10, want: []string{"hello"}},
		{name: "no limit", text: long("abc", 100), limit: 0, want: []string{long("abc", 100)}},
		{name: "at a paragraph", text: "aaaa aaaa\n\nbbbb\ncc dd", limit: 12, want: []string{"aaaa aaaa", "bbbb\ncc dd"}},
		{name: "paragraph too early: at a line", text: "a\n\nbbbbbbb\ncccc", limit: 12, want: []string{"a\n\nbbbbbbb", "cccc"}},
		{name: "at a word", text: "aaaa bbbb cccc dddd", limit: 10, want: []string{"aaaa bbbb", "cccc dddd"}},
		{name: "in a word", text: strings.Repeat("x", 25), limit: 10, want: []string{strings.Repeat("x", 10), strings.Repeat("x", 10), strings.Repeat("x", 5)}},
		{name: "runes, not bytes", text: strings.Repeat("é", 15), limit: 10, want: []string{strings.Repeat("é", 10), strings.Repeat("é", 5)}},
		{name: "blank lines dropped at the cut", text: "aaaaaaa\n\n\n\nbbb", limit: 9, want: []string{"aaaaaaa", "bbb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text, tt.limit)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Split(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
		})
	}
}

// TestSplitTelegramSized: a 6000-character text of two paragraphs is two
// messages, each within Telegram's 4096, cut between the paragraphs.
func TestSplitTelegramSized(t *testing.T) {
	p1, p2 := strings.Repeat("word ", 599)+"end1.", strings.Repeat("more ", 599)
	got := Split(p1+"\n\n"+strings.TrimSpace(p2), 4096)
	if len(got) != 2 || got[0] != p1 || got[1] != strings.TrimSpace(p2) {
		t.Fatalf("got %d parts", len(got))
	}
	for _, part := range got {
		if n := utf8.RuneCountInString(part); n > 4096 {
			t.Errorf("part of %d characters", n)
		}
	}
}
