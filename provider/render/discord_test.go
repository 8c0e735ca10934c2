package render

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiscord(t *testing.T) {
	fence := func(lines ...string) string {
		return "```go\n" + strings.Join(lines, "\n") + "\n```"
	}
	var code []string
	for i := range 8 {
		code = append(code, fmt.Sprintf("fmt.Println(%d)", i))
	}
	testSplit(t, "Discord", Discord, func(md string, _ int) *layout { return discordPlan(md) }, DiscordLimit, []splitCase{
		{"Markdown is kept as it is", "Run **make test** then `go vet`.\n\n" + fence(code[0]), 0,
			[]string{"Run **make test** then `go vet`.\n\n" + fence(code[0])}},
		{"plain text as it is; CR LF is a line feed", "line one\r\nline two 😀", 0,
			[]string{"line one\nline two 😀"}},
		{"a fenced block cut in two is closed and reopened with its language", "Intro.\n\n" + fence(code...) + "\n\nOutro.", 60,
			[]string{
				"Intro.\n\n" + fence(code[0], code[1]),
				fence(code[2], code[3], code[4]),
				fence(code[5], code[6], code[7]),
				"Outro.",
			}},
		{"a fence in a quote is reopened in the quote", "> ```sh\n> aaaa\n> bbbb\n> cccc\n> ```", 24,
			[]string{"> ```sh\n> aaaa\n> ```", "> ```sh\n> bbbb\n> ```", "> ```sh\n> cccc\n> ```"}},
		{"emphasis cut at a space is closed and reopened", "**aaaa bbbb cccc dddd**", 16,
			[]string{"**aaaa bbbb**", "**cccc dddd**"}},
		{"inline code is not cut", "aa `bb cc dd ee gg` ff", 17,
			[]string{"aa", "`bb cc dd ee gg`", "ff"}},
		{"a link is not cut", "see [a long text](https://x.y) end", 28,
			[]string{"see", "[a long text](https://x.y)", "end"}},
	})
}
