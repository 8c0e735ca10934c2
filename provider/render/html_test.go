package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestHTML(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"styles, code, a link", "Run **make test** then `go vet`; [docs](https://go.dev/doc).",
			"<p>Run <strong>make test</strong> then <code>go vet</code>; <a href=\"https://go.dev/doc\">docs</a>.</p>\n"},
		{"a line break is a line break", "one\ntwo", "<p>one<br>\ntwo</p>\n"},
		{"a javascript: link has no destination", "[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) <javascript:alert(1)>",
			"<p><a href=\"\">x</a> <a href=\"\">y</a> <a href=\"\">javascript:alert(1)</a></p>\n"},
		{"vbscript:, data: and file: links neither", "[a](vbscript:msgbox) [b](data:text/html;base64,PHNjcmlwdD4=) [c](file:///etc/passwd)",
			"<p><a href=\"\">a</a> <a href=\"\">b</a> <a href=\"\">c</a></p>\n"},
		{"a scheme behind a tab or a reference is percent-encoded", "[x](java&#9;script:alert(1)) [y](<java\tscript:alert(1)>)",
			"<p><a href=\"java%09script:alert(1)\">x</a> <a href=\"java%09script:alert(1)\">y</a></p>\n"},
		{"a script block is text", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"},
		{"inline HTML is text", "a <img src=x onerror=alert(1)> b", "<p>a &lt;img src=x onerror=alert(1)&gt; b</p>\n"},
		{"an HTML block is text, line by line", "<div>\nhi\n</div>", "<p>&lt;div&gt;<br>\nhi<br>\n&lt;/div&gt;</p>\n"},
		{"an image is a link to it", "![logo *x*](https://x.y/l.png) ![](https://x.y/e.png) ![i](javascript:alert(1))",
			"<p><a href=\"https://x.y/l.png\">logo <em>x</em></a> <a href=\"https://x.y/e.png\">https://x.y/e.png</a> <a href=\"\">i</a></p>\n"},
		{"a fenced block names its language", "```go\nx := 1 < 2\n```", "<pre><code class=\"language-go\">x := 1 &lt; 2\n</code></pre>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HTML(tt.md)
			if got != tt.want {
				t.Errorf("HTML(%q)\n got %q\nwant %q", tt.md, got, tt.want)
			}
			if err := checkSafeHTML(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// The elements and attributes the playground's HTML may hold.
var (
	safeElements = []string{"p", "br", "strong", "em", "del", "code", "pre", "a", "ul", "ol", "li",
		"blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "thead", "tbody", "tr", "th", "td", "input"}
	safeAttrs = []string{"href", "title", "class", "style", "start", "checked", "disabled", "type"}
)

// checkSafeHTML parses s as a browser would and reports an element or an
// attribute outside the safe sets, or a link whose scheme runs script.
func checkSafeHTML(s string) error {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return nil
			}
			return z.Err()
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			tok := z.Token()
			if !slices.Contains(safeElements, tok.Data) {
				return fmt.Errorf("element <%s> in %q", tok.Data, s)
			}
			for _, a := range tok.Attr {
				if !slices.Contains(safeAttrs, a.Key) {
					return fmt.Errorf("attribute %s on <%s> in %q", a.Key, tok.Data, s)
				}
				if a.Key == "href" {
					// A browser drops tabs and line breaks from a URL and
					// ignores leading spaces and controls.
					u := strings.Map(func(r rune) rune {
						if r == '\t' || r == '\n' || r == '\r' {
							return -1
						}
						return r
					}, a.Val)
					u = strings.ToLower(strings.TrimLeft(u, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "))
					for _, bad := range []string{"javascript:", "vbscript:", "data:text", "file:"} {
						if strings.HasPrefix(u, bad) {
							return fmt.Errorf("link to %q in %q", a.Val, s)
						}
					}
				}
			}
		}
	}
}
