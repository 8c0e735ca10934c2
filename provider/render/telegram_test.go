package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func bold(off, n int) Entity   { return Entity{Type: "bold", Offset: off, Length: n} }
func italic(off, n int) Entity { return Entity{Type: "italic", Offset: off, Length: n} }
func code(off, n int) Entity   { return Entity{Type: "code", Offset: off, Length: n} }
func pre(off, n int, lang string) Entity {
	return Entity{Type: "pre", Offset: off, Length: n, Language: lang}
}
func link(off, n int, url string) Entity {
	return Entity{Type: "text_link", Offset: off, Length: n, URL: url}
}
func quote(off, n int) Entity { return Entity{Type: "blockquote", Offset: off, Length: n} }
func strike(off, n int) Entity {
	return Entity{Type: "strikethrough", Offset: off, Length: n}
}

func TestTelegram(t *testing.T) {
	tests := []struct {
		name string
		md   string
		want []TelegramPart
	}{
		{
			name: "the issue's reply, emoji and non-BMP characters first",
			md:   "😀𝒳 Run **make test** then `go vet`.\n\n```go\nfmt.Println(\"hi\")\n```\n\nSee [the docs](https://go.dev/doc).",
			// 😀 and 𝒳 are two UTF-16 units each: "Run " starts at unit 5.
			want: []TelegramPart{{
				Text:     "😀𝒳 Run make test then go vet.\n\nfmt.Println(\"hi\")\n\nSee the docs.",
				Entities: []Entity{bold(9, 9), code(24, 6), pre(33, 17, "go"), link(56, 8, "https://go.dev/doc")},
			}},
		},
		{
			name: "an emoji with joiners counts its units",
			md:   "👩‍💻 𝒳 **b**",
			want: []TelegramPart{{Text: "👩‍💻 𝒳 b", Entities: []Entity{bold(9, 1)}}},
		},
		{
			name: "plain text is kept as it is, but for its ends",
			md:   "\n Hello,\n\n\n  world.\nLine three  \n",
			want: []TelegramPart{{Text: "Hello,\n\n\n  world.\nLine three"}},
		},
		{
			name: "headings, nested and ordered lists",
			md:   "# Title\n\nIntro.\n\n- a\n- b\n  - c\n\n3. x\n4. y",
			want: []TelegramPart{{Text: "Title\n\nIntro.\n\n• a\n• b\n  ◦ c\n\n3. x\n4. y", Entities: []Entity{bold(0, 5)}}},
		},
		{
			name: "a loose list keeps its blank lines",
			md:   "- a\n\n- b",
			want: []TelegramPart{{Text: "• a\n\n• b"}},
		},
		{
			name: "a code block in a list item is on its own lines",
			md:   "1. step:\n\n   ```sh\n   make\n   ```\n2. done",
			want: []TelegramPart{{Text: "1. step:\n\nmake\n\n2. done", Entities: []Entity{pre(10, 4, "sh")}}},
		},
		{
			name: "a quote; bold cut around code; a nested quote is not an entity",
			md:   "> **run `x` now**\n>\n> > inner",
			want: []TelegramPart{{Text: "run x now\n\ninner", Entities: []Entity{quote(0, 16), bold(0, 4), code(4, 1), bold(5, 4)}}},
		},
		{
			name: "links: code in a link is dropped, a relative link is its text, an autolink",
			md:   "[`api`](https://x.y/api) and [rel](docs/a.md) and <https://a.b/c>",
			want: []TelegramPart{{Text: "api and rel and https://a.b/c", Entities: []Entity{link(0, 3, "https://x.y/api"), link(16, 13, "https://a.b/c")}}},
		},
		{
			name: "a javascript: link is its text",
			md:   "[click](javascript:alert(1))",
			want: []TelegramPart{{Text: "click"}},
		},
		{
			name: "escapes and character references",
			md:   "a \\*b\\* &amp; &#x1F600; \\\\",
			want: []TelegramPart{{Text: "a *b* & 😀 \\"}},
		},
		{
			name: "images are links to the image",
			md:   "![logo](https://x.y/l.png) ![](https://x.y/e.png)",
			want: []TelegramPart{{Text: "logo https://x.y/e.png", Entities: []Entity{link(0, 4, "https://x.y/l.png"), link(5, 17, "https://x.y/e.png")}}},
		},
		{
			name: "raw HTML is text",
			md:   "Use <b>x</b> here.\n\n<div>\nblock\n</div>",
			want: []TelegramPart{{Text: "Use <b>x</b> here.\n\n<div>\nblock\n</div>"}},
		},
		{
			name: "a table is a pre block of aligned columns",
			md:   "| a | bb |\n|:-:|---|\n| ccc | d |",
			want: []TelegramPart{{Text: " a  | bb\n----+---\nccc | d", Entities: []Entity{pre(0, 25, "")}}},
		},
		{
			name: "strikethrough, italic, bold",
			md:   "~~old~~ *new* __bold__",
			want: []TelegramPart{{Text: "old new bold", Entities: []Entity{strike(0, 3), italic(4, 3), bold(8, 4)}}},
		},
		{
			name: "task list, rule, hard breaks",
			md:   "- [x] done\n- [ ] todo\n\n---\n\na  \nb\\\nc",
			want: []TelegramPart{{Text: "• ☑ done\n• ☐ todo\n\n———\n\na\nb\nc"}},
		},
		{
			name: "bold and italic on the same text nest",
			md:   "***both***",
			want: []TelegramPart{{Text: "both", Entities: []Entity{italic(0, 4), bold(0, 4)}}},
		},
		{
			name: "blank",
			md:   " \n\t\n",
			want: []TelegramPart{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Telegram(tt.md, 0)
			if js(got) != js(tt.want) {
				t.Errorf("Telegram(%q)\n got %s\nwant %s", tt.md, js(got), js(tt.want))
			}
			for i, p := range got {
				if err := checkTelegramPart(p, 0); err != nil {
					t.Errorf("part %d: %v", i, err)
				}
			}
		})
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestTelegramSplit(t *testing.T) {
	tests := []struct {
		name  string
		md    string
		limit int
		want  []TelegramPart
	}{
		{
			name:  "at the last space that fills half a part, taking it",
			md:    "aaaa bbbb cccc dddd eeee",
			limit: 16,
			want:  []TelegramPart{{Text: "aaaa bbbb cccc"}, {Text: "dddd eeee"}},
		},
		{
			name:  "a blank line before a line break, both taken with the spaces around",
			md:    "aaaa bbbb  \n\n  cccc\ndddd eeee",
			limit: 24,
			want:  []TelegramPart{{Text: "aaaa bbbb"}, {Text: "cccc\ndddd eeee"}},
		},
		{
			name:  "in code, the cut takes the line break and the spaces before it; indentation stays",
			md:    "```\naaaaaaaa\n    bbbbbbbb  \n    cccccccc\n```",
			limit: 24,
			want: []TelegramPart{
				{Text: "aaaaaaaa\n    bbbbbbbb", Entities: []Entity{pre(0, 21, "")}},
				{Text: "    cccccccc", Entities: []Entity{pre(0, 12, "")}},
			},
		},
		{
			name:  "bold cut at a space is two bold entities",
			md:    "**aaaa bbbb cccc dddd**",
			limit: 16,
			want: []TelegramPart{
				{Text: "aaaa bbbb cccc", Entities: []Entity{bold(0, 14)}},
				{Text: "dddd", Entities: []Entity{bold(0, 4)}},
			},
		},
		{
			name:  "a link is not cut while it fits a part",
			md:    "see [a long link text](https://x.y) end",
			limit: 18,
			want: []TelegramPart{
				{Text: "see"},
				{Text: "a long link text", Entities: []Entity{link(0, 16, "https://x.y")}},
				{Text: "end"},
			},
		},
		{
			name:  "a word longer than a part is cut between grapheme clusters",
			md:    "x " + strings.Repeat("👩‍💻", 5),
			limit: 16,
			want:  []TelegramPart{{Text: "x"}, {Text: strings.Repeat("👩‍💻", 3)}, {Text: strings.Repeat("👩‍💻", 2)}},
		},
		{
			name:  "never inside a surrogate pair",
			md:    "ab" + strings.Repeat("😀", 20),
			limit: 17,
			want:  []TelegramPart{{Text: "ab" + strings.Repeat("😀", 7)}, {Text: strings.Repeat("😀", 8)}, {Text: strings.Repeat("😀", 5)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Telegram(tt.md, tt.limit)
			if js(got) != js(tt.want) {
				t.Errorf("Telegram(%q, %d)\n got %s\nwant %s", tt.md, tt.limit, js(got), js(tt.want))
			}
			if err := checkTelegram(Telegram(tt.md, 1<<30), got, tt.limit); err != nil {
				t.Error(err)
			}
		})
	}
}

// answer9k is a reply of about 9,000 characters: prose with styles and
// emoji, then a Go block of 5,000 characters that runs across position
// 4,096 (of the Markdown and of the rendered text), then a list.
func answer9k() string {
	var b strings.Builder
	n := func() int { return utf8.RuneCountInString(b.String()) }
	for i := 0; n() < 2000; i++ {
		fmt.Fprintf(&b, "Step %d 😀: run **make test** then `go vet`; see [the guide](https://example.com/guide/%d).\n", i, i)
		if i%5 == 4 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\n```go\n")
	for i := 0; n() < 7000; i++ {
		fmt.Fprintf(&b, "\tif err := step%d(ctx); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	b.WriteString("```\n\n")
	for i := 0; n() < 9000; i++ {
		fmt.Fprintf(&b, "- item %d 𝒳: *done*\n", i)
	}
	return b.String()
}

func TestTelegramSplitsLongReply(t *testing.T) {
	md := answer9k()
	if n := len([]rune(md)); n < 8900 || n > 9200 {
		t.Fatalf("the reply has %d characters", n)
	}
	parts := Telegram(md, 0)
	if len(parts) < 2 {
		t.Fatalf("%d parts", len(parts))
	}
	if err := checkTelegram(Telegram(md, 1<<30), parts, TelegramLimit); err != nil {
		t.Fatal(err)
	}
	// The code block runs across the first cut: it ends the first part and
	// starts the second, a pre entity with its language in each.
	var pres []int
	for i, p := range parts {
		if n := len(utf16.Encode([]rune(p.Text))); n > TelegramLimit {
			t.Errorf("part %d has %d UTF-16 units", i, n)
		}
		for _, e := range p.Entities {
			if e.Type == "pre" {
				if e.Language != "go" {
					t.Errorf("part %d: pre entity of language %q", i, e.Language)
				}
				pres = append(pres, i)
			}
		}
		if strings.Contains(p.Text, "**") || strings.Contains(p.Text, "```") || strings.Contains(p.Text, "`go vet`") {
			t.Errorf("part %d shows Markdown: %q", i, head(p.Text))
		}
	}
	if len(pres) < 2 {
		t.Fatalf("the code block is in parts %v, want it cut in two", pres)
	}
	first, second := parts[pres[0]], parts[pres[1]]
	last := first.Entities[len(first.Entities)-1]
	if last.Type != "pre" || last.Offset+last.Length != len(utf16.Encode([]rune(first.Text))) {
		t.Errorf("part %d does not end in the code block: %+v", pres[0], last)
	}
	if e := second.Entities[0]; e.Type != "pre" || e.Offset != 0 {
		t.Errorf("part %d does not start in the code block: %+v", pres[1], e)
	}
}

func TestCheckTelegramPart(t *testing.T) {
	tests := []struct {
		name string
		part TelegramPart
		ok   bool
	}{
		{"bold in bold", TelegramPart{Text: "abc", Entities: []Entity{bold(0, 3), bold(1, 1)}}, false},
		{"nested styles", TelegramPart{Text: "abc", Entities: []Entity{bold(0, 3), italic(1, 1)}}, true},
		{"crossing", TelegramPart{Text: "abc", Entities: []Entity{bold(0, 2), italic(1, 2)}}, false},
		{"code in bold", TelegramPart{Text: "abc", Entities: []Entity{bold(0, 3), code(1, 1)}}, false},
		{"bold in a link", TelegramPart{Text: "abc", Entities: []Entity{link(0, 3, "https://a"), bold(1, 1)}}, true},
		{"code in a link", TelegramPart{Text: "abc", Entities: []Entity{link(0, 3, "https://a"), code(1, 1)}}, false},
		{"quote in a quote", TelegramPart{Text: "abc", Entities: []Entity{quote(0, 3), quote(1, 1)}}, false},
		{"pre in a quote", TelegramPart{Text: "abc", Entities: []Entity{quote(0, 3), pre(1, 1, "")}}, true},
		{"past the end", TelegramPart{Text: "😀", Entities: []Entity{bold(0, 3)}}, false},
		{"inside a surrogate pair", TelegramPart{Text: "😀", Entities: []Entity{bold(1, 1)}}, false},
		{"empty entity", TelegramPart{Text: "a", Entities: []Entity{bold(0, 0)}}, false},
		{"link without url", TelegramPart{Text: "a", Entities: []Entity{link(0, 1, "")}}, false},
		{"empty text", TelegramPart{Text: " "}, false},
		{"too long", TelegramPart{Text: strings.Repeat("😀", 2049)}, false},
		{"at the limit", TelegramPart{Text: strings.Repeat("😀", 2048)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkTelegramPart(tt.part, 0); (err == nil) != tt.ok {
				t.Errorf("checkTelegramPart = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
