package doccheck

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// repo is what the link check sees of a repository: its files
// (slash-separated paths from the root), the directories they imply, and
// how to read a file.
type repo struct {
	files map[string]bool
	dirs  map[string]bool
	read  func(name string) ([]byte, error)
}

func newRepo(tracked []string, read func(string) ([]byte, error)) *repo {
	r := &repo{files: map[string]bool{}, dirs: map[string]bool{".": true}, read: read}
	for _, f := range tracked {
		r.files[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			r.dirs[d] = true
		}
	}
	return r
}

// gitRepo is the repository the test runs in: the files of its work tree
// that git tracks or would track (not ignored), as they are on disk, so a
// new page is checked, and found, before it is added.
func gitRepo() (*repo, string, error) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, "", fmt.Errorf("git rev-parse --show-toplevel: %w", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, "", fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f))); err == nil { // not deleted since
			files = append(files, f)
		}
	}
	read := func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	}
	return newRepo(files, read), root, nil
}

// markdownFiles are the tracked *.md files, sorted.
func (r *repo) markdownFiles() []string {
	var md []string
	for f := range r.files {
		if strings.HasSuffix(f, ".md") {
			md = append(md, f)
		}
	}
	sort.Strings(md)
	return md
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// page is one parsed Markdown file: its heading slugs and its links.
type page struct {
	slugs map[string]bool
	links []link
}

type link struct {
	dest string
	line int
}

func parse(src []byte) page {
	p := page{slugs: map[string]bool{}}
	seen := map[string]int{}
	doc := md.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			s := slug(inlineText(n, src))
			// GitHub numbers a repeated slug: x, x-1, x-2, …
			if k := seen[s]; k > 0 {
				seen[s] = k + 1
				s = fmt.Sprintf("%s-%d", s, k)
			} else {
				seen[s] = 1
			}
			p.slugs[s] = true
		case *ast.Link:
			p.links = append(p.links, link{string(n.Destination), lineOf(n, src)})
		case *ast.Image:
			p.links = append(p.links, link{string(n.Destination), lineOf(n, src)})
		}
		return ast.WalkContinue, nil
	})
	return p
}

// inlineText is a heading's text as GitHub renders it: what is inside
// code spans and links kept, the Markdown around them gone.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// slug is GitHub's anchor for a heading's text: lower case, each space a
// hyphen, and every character that is not a letter, a number, a mark, a
// hyphen or a connector such as _ left out (so `a.b` → ab, "x — y" →
// x--y).
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsMark(r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineOf is the 1-based line of an inline node: the first line of the
// block it sits in (inline nodes carry no position of their own).
func lineOf(n ast.Node, src []byte) int {
	for ; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return bytes.Count(src[:n.Lines().At(0).Start], []byte("\n")) + 1
		}
	}
	return 0
}

// lineAnchor is GitHub's anchor into a source file's lines (#L10, #L10-L20).
var lineAnchor = regexp.MustCompile(`^L\d+(-L\d+)?$`)

// check returns one line per link of the repository's Markdown that does
// not resolve: a relative path that names no file of the repository, one that leaves the
// repository, or an #anchor that names no heading of its Markdown page.
// Links with a scheme (https:, mailto:) are not followed.
func check(r *repo) ([]string, error) {
	pages := map[string]page{}
	load := func(name string) (page, error) {
		if p, ok := pages[name]; ok {
			return p, nil
		}
		src, err := r.read(name)
		if err != nil {
			return page{}, fmt.Errorf("reading %s: %w", name, err)
		}
		p := parse(src)
		pages[name] = p
		return p, nil
	}
	var problems []string
	for _, file := range r.markdownFiles() {
		p, err := load(file)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			why, err := resolve(r, load, file, l.dest)
			if err != nil {
				return nil, err
			}
			if why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s", file, l.line, l.dest, why))
			}
		}
	}
	return problems, nil
}

// resolve says why dest, a link in file, does not resolve ("" if it does).
func resolve(r *repo, load func(string) (page, error), file, dest string) (string, error) {
	u, err := url.Parse(dest)
	if err != nil {
		return fmt.Sprintf("not a URL: %v", err), nil
	}
	if u.Scheme != "" || u.Host != "" {
		return "", nil
	}
	target := file
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			target = path.Clean(strings.TrimPrefix(u.Path, "/"))
		} else {
			target = path.Join(path.Dir(file), u.Path)
		}
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leaves the repository", nil
		}
		if !r.files[target] && !r.dirs[target] {
			return fmt.Sprintf("%s is not a file or directory of the repository", target), nil
		}
	}
	if u.Fragment == "" {
		return "", nil
	}
	switch {
	case r.dirs[target]:
		return fmt.Sprintf("#%s: %s is a directory, it has no anchors", u.Fragment, target), nil
	case strings.HasSuffix(target, ".md"):
		p, err := load(target)
		if err != nil {
			return "", err
		}
		if !p.slugs[u.Fragment] {
			return fmt.Sprintf("%s has no heading #%s", target, u.Fragment), nil
		}
	case !lineAnchor.MatchString(u.Fragment):
		return fmt.Sprintf("#%s: only line anchors (#L10) point into %s", u.Fragment, target), nil
	}
	return "", nil
}
