package render

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// BenchmarkRender measures each renderer on a typical 2 KB answer and on
// a 9 KB one (a code block across 4,096), beside a raw baseline in the
// same run: goldmark parsing alone, and goldmark's own HTML rendering.
// Plain text of the same sizes shows the path that parses nothing.
//
//	go test -run '^$' -bench . -benchmem ./provider/render
func BenchmarkRender(b *testing.B) {
	a2k, err := os.ReadFile("testdata/answer-2k.md")
	if err != nil {
		b.Fatal(err)
	}
	plain := strings.Repeat("A plain line of an answer, with no Markdown in it at all.\n", 160)
	inputs := []struct{ name, md string }{
		{"2KB", string(a2k)},
		{"9KB", answer9k()},
		{"plain-2KB", plain[:2048]},
		{"plain-9KB", plain[:9216]},
	}
	gfm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, in := range inputs {
		src := []byte(in.md)
		run := func(name string, f func()) {
			b.Run(name+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
			})
		}
		run("baseline-goldmark-parse", func() { parse(src) })
		run("baseline-goldmark-html", func() {
			var out bytes.Buffer
			_ = gfm.Convert(src, &out)
		})
		run("telegram", func() { Telegram(in.md, 0) })
		run("slack", func() { Slack(in.md, 0) })
		run("discord", func() { Discord(in.md, 0) })
		run("html", func() { HTML(in.md) })
	}
}
