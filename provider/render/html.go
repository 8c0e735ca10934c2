package render

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// htmlMarkdown renders the playground's HTML: goldmark's renderer in its
// default, safe mode (it drops javascript:, vbscript:, file: and data:
// link destinations other than images; control characters in a
// destination are percent-encoded, so no scheme hides behind them), a
// line break for each line break, and htmlText for raw HTML and images.
var htmlMarkdown = goldmark.New(
	goldmark.WithExtensions(extension.Strikethrough, extension.Table, extension.Linkify, extension.TaskList),
	goldmark.WithRendererOptions(
		html.WithHardWraps(),
		renderer.WithNodeRenderers(util.Prioritized(htmlText{}, 100)),
	),
)

// HTML renders md as an HTML fragment safe to put in a page: raw HTML in
// the Markdown is shown as text (goldmark alone would drop it, and
// a person would not see the <div> an agent wrote about), links to
// dangerous schemes have no destination, and images are links to the
// image (nothing is loaded from elsewhere by showing a message).
func HTML(md string) string {
	src, _ := clean(md)
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/4)
	_ = htmlMarkdown.Convert([]byte(src), &b) // a bytes.Buffer does not fail
	return b.String()
}

// htmlText renders raw HTML as escaped text and an image as a link.
type htmlText struct{}

func (htmlText) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindRawHTML, renderRawHTML)
	r.Register(ast.KindHTMLBlock, renderHTMLBlock)
	r.Register(ast.KindImage, renderImage)
}

func renderRawHTML(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := 0; i < segs.Len(); i++ {
			seg := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(src)))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	raw := trimTrailingNewlines(htmlBlockText(n.(*ast.HTMLBlock), src))
	_, _ = w.WriteString("<p>")
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if i > 0 {
			_, _ = w.WriteString("<br>\n")
		}
		_, _ = w.Write(util.EscapeHTML(line))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func renderImage(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	img := n.(*ast.Image)
	if !entering {
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	dest := util.URLEscape(img.Destination, true)
	_, _ = w.WriteString(`<a href="`)
	if !html.IsDangerousURL(dest) {
		_, _ = w.Write(util.EscapeHTML(dest))
	}
	_, _ = w.WriteString(`">`)
	if !img.HasChildren() {
		_, _ = w.Write(util.EscapeHTML(dest))
	}
	return ast.WalkContinue, nil
}
