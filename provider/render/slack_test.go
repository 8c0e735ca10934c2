package render

import "testing"

func TestSlack(t *testing.T) {
	const z = zwsp
	tests := []struct {
		name string
		md   string
		want string
	}{
		{"the issue's reply", "Run **make test** then `go vet`.\n\n```go\nfmt.Println(\"hi\")\n```\n\nSee [the docs](https://go.dev/doc).",
			"Run *make test* then `go vet`.\n\n```\nfmt.Println(\"hi\")\n```\n\nSee <https://go.dev/doc|the docs>."},
		{"plain text as it is", "Hello,\n\n\n  world.", "Hello,\n\n\n  world."},
		{"bold inside a word gets zero-width spaces", "he**l**lo", "he" + z + "*l*" + z + "lo"},
		{"bold after a word, then a word", "x**bold**text", "x" + z + "*bold*" + z + "text"},
		{"next to punctuation or space: no zero-width space", "(**b**), **c**.", "(*b*), *c*."},
		{"CJK has no spaces: zero-width spaces", "日本**語**です", "日本" + z + "*語*" + z + "です"},
		{"italic, strikethrough, nested", "*a* ~~c~~ **a *b* c**", "_a_ ~c~ *a _b_ c*"},
		{"a style across lines is closed and reopened per line", "**bold\nnext line**", "*bold*\n*next line*"},
		{"white space at a style's edge moves out", "**a**  \n**b**", "*a*\n*b*"},
		{"&, < and > escaped", "a & b < c > d &amp;", "a &amp; b &lt; c &gt; d &amp;"},
		{"links: escaped URL, refused scheme, autolink", "[x](https://e.com/?a=1&b=2) [y](javascript:alert(1)) <https://a.b>",
			"<https://e.com/?a=1&amp;b=2|x> y <https://a.b|https://a.b>"},
		{"a link's text takes no style; a style takes a link", "[**bold** link](https://a.b) **[in](https://c.d) bold**",
			"<https://a.b|bold link> *<https://c.d|in> bold*"},
		{"a backtick in inline code", "`` a`b ``", "`aˋb`"},
		{"three backticks in a code block", "````js\nconst t = ```;\n````", "```\nconst t = ``" + z + "`;\n```"},
		{"quotes, headings, lists", "> quote\n>\n> two\n\n# Title\n\n- a\n- b\n\n1. c",
			"> quote\n>\n> two\n\n*Title*\n\n• a\n• b\n\n1. c"},
		{"raw HTML is text", "<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slack(tt.md, 0)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("Slack(%q)\n got %q\nwant %q", tt.md, got, tt.want)
			}
		})
	}
}

func TestSlackSplit(t *testing.T) {
	testSplit(t, "Slack", Slack, slackPlan, SlackLimit, []splitCase{
		{"bold cut at a space is closed and reopened", "**aaaa bbbb cccc dddd**", 16,
			[]string{"*aaaa bbbb cccc*", "*dddd*"}},
		{"a code block cut at a line is two code blocks", "```py\naaaa\nbbbb\ncccc\ndddd\n```", 20,
			[]string{"```\naaaa\nbbbb\n```", "```\ncccc\ndddd\n```"}},
		{"a link too long to cut whole is its text and its URL", "see [the guide](https://example.com/guide/0) now", 44,
			[]string{"see the guide (https://example.com/guide/0)", "now"}},
		{"an escape is not cut", "aaaaaaaaaaaaaa&&&&", 16,
			[]string{"aaaaaaaaaaaaaa", "&amp;&amp;&amp;", "&amp;"}},
	})
}
