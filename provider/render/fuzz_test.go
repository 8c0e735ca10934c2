package render

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets' seed corpus is in testdata/fuzz/<target>; run one
// with, for example, go test -fuzz=FuzzTelegram ./provider/render.

// fuzzLimit maps any int to a limit from MinLimit to MinLimit+599.
func fuzzLimit(limit int) int {
	if limit < 0 {
		limit = -(limit + 1)
	}
	return MinLimit + limit%600
}

// FuzzTelegram: every part within the limit and valid for the Bot API
// (entities within the part, nested as Telegram allows); the parts, joined
// by the white space each cut took, are the unsplit text, with the same
// styles on every character; the cutting rule holds.
func FuzzTelegram(f *testing.F) {
	f.Add("Run **make test** then `go vet`.", 16)
	f.Fuzz(func(t *testing.T, md string, limit int) {
		limit = fuzzLimit(limit)
		parts := Telegram(md, limit)
		if err := checkTelegram(Telegram(md, 1<<30), parts, limit); err != nil {
			t.Fatalf("Telegram(%q, %d): %v", md, limit, err)
		}
		l, _ := telegramPlan(md)
		if err := checkPieces(l, l.split(limit), limit); err != nil {
			t.Fatalf("Telegram(%q, %d): %v", md, limit, err)
		}
	})
}

// FuzzSlack: the cutting rule holds; every part within the limit; every
// <, > and & in a part is markup (a link) or an escape.
func FuzzSlack(f *testing.F) {
	f.Add("a & b <https://x.y> **c**", 16)
	f.Fuzz(func(t *testing.T, md string, limit int) {
		limit = fuzzLimit(limit)
		l := slackPlan(md, limit)
		if err := checkPieces(l, l.split(limit), limit); err != nil {
			t.Fatalf("Slack(%q, %d): %v", md, limit, err)
		}
		for i, p := range Slack(md, limit) {
			if n := utf8.RuneCountInString(p); n > limit {
				t.Fatalf("Slack(%q, %d): part %d of %d code points", md, limit, i, n)
			}
			if err := checkMrkdwnEscapes(p); err != nil {
				t.Fatalf("Slack(%q, %d): part %d %q: %v", md, limit, i, p, err)
			}
		}
	})
}

// checkMrkdwnEscapes reports a &, < or > in s that is neither an escape
// nor a link's markup.
func checkMrkdwnEscapes(s string) error {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			if !strings.HasPrefix(s[i:], "&amp;") && !strings.HasPrefix(s[i:], "&lt;") && !strings.HasPrefix(s[i:], "&gt;") {
				return fmt.Errorf("a bare & at %d", i)
			}
		case '<':
			rest := s[i+1:]
			if !linkScheme(rest, "http", "https", "mailto") {
				return fmt.Errorf("a < at %d that opens no link", i)
			}
			end := strings.IndexByte(rest, '>')
			bar := strings.IndexByte(rest, '|')
			if end < 0 || bar < 0 || bar > end || strings.ContainsAny(rest[:end], "\n<") {
				return fmt.Errorf("a link at %d not closed on its line", i)
			}
			i += end + 1
		case '>':
			if i > 0 && s[i-1] != '\n' {
				return fmt.Errorf("a bare > at %d", i)
			}
		}
	}
	return nil
}

// FuzzDiscord: the cutting rule holds; every part within the limit; plain
// text comes back as it is.
func FuzzDiscord(f *testing.F) {
	f.Add("```go\nfmt.Println(1)\nfmt.Println(2)\n```", 16)
	f.Fuzz(func(t *testing.T, md string, limit int) {
		limit = fuzzLimit(limit)
		l := discordPlan(md)
		ps := l.split(limit)
		if err := checkPieces(l, ps, limit); err != nil {
			t.Fatalf("Discord(%q, %d): %v", md, limit, err)
		}
		parts := Discord(md, limit)
		if len(parts) != len(ps) {
			t.Fatalf("Discord(%q, %d): %d parts, %d pieces", md, limit, len(parts), len(ps))
		}
		src, plain := clean(md)
		for i, p := range parts {
			if n := utf8.RuneCountInString(p); n > limit {
				t.Fatalf("Discord(%q, %d): part %d of %d code points", md, limit, i, n)
			}
			if plain && !strings.Contains(src, p) {
				t.Fatalf("Discord(%q, %d): plain text changed: part %d %q", md, limit, i, p)
			}
		}
	})
}

// FuzzHTML: the HTML holds only safe elements, attributes and links.
func FuzzHTML(f *testing.F) {
	f.Add("<script>alert(1)</script> [x](javascript:alert(1))")
	f.Fuzz(func(t *testing.T, md string) {
		if err := checkSafeHTML(HTML(md)); err != nil {
			t.Fatalf("HTML(%q): %v", md, err)
		}
	})
}
