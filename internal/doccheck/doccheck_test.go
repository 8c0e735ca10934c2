package doccheck

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestLinksResolve is the check itself, over the repository's work tree:
// every relative link and #anchor of every *.md file git tracks (or would:
// not ignored) resolves.
func TestLinksResolve(t *testing.T) {
	r, root, err := gitRepo()
	if err != nil {
		t.Fatal(err)
	}
	mdFiles := r.markdownFiles()
	if !slices.Contains(mdFiles, "README.md") {
		t.Fatalf("README.md is not among the tracked Markdown files of %s: %v", root, mdFiles)
	}
	problems, err := check(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d Markdown files checked", len(mdFiles))
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ name, heading, want string }{
		{"words", "Running it", "running-it"},
		{"colon", "busctl follow: chatbus from a shell", "busctl-follow-chatbus-from-a-shell"},
		{"code span and parentheses", "Restarting a provider (doctor)", "restarting-a-provider-doctor"},
		{"em dash keeps both spaces", "Forwarded latency, durable — missed", "forwarded-latency-durable--missed"},
		{"dots and slashes go", "The journal in server/journal, v1.2", "the-journal-in-serverjournal-v12"},
		{"symbols go, letters stay", "≤ 2× the µs budget", "-2-the-µs-budget"},
		{"underscore stays", "max_total_bytes", "max_total_bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := slug(tc.heading); got != tc.want {
				t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

// TestCheckFindsBrokenLinks runs the check over small repositories, one
// link each, so that the real check above is known to be able to fail.
func TestCheckFindsBrokenLinks(t *testing.T) {
	const target = "# Guide\n\n## Running `make run` (the playground)\n\n## Notes\n\n## Notes\n"
	for _, tc := range []struct {
		name string
		link string // the Markdown in docs/a.md
		want string // in the one problem; "" = no problem
	}{
		{"file", "[g](guide.md)", ""},
		{"file up a level", "[r](../README.md)", ""},
		{"directory", "[d](../clients)", ""},
		{"directory with a slash", "[d](../clients/)", ""},
		{"root-relative", "[g](/docs/guide.md)", ""},
		{"image", "![pic](shot.png)", ""},
		{"anchor with code span", "[g](guide.md#running-make-run-the-playground)", ""},
		{"repeated heading", "[g](guide.md#notes-1)", ""},
		{"own anchor", "[s](#self)", ""},
		{"external", "[x](https://example.com/nothing.md#none)", ""},
		{"mail", "[x](mailto:someone@example.com)", ""},
		{"line anchor", "[c](../main.go#L3-L5)", ""},
		{"in a code span", "`[g](missing.md)`", ""},
		{"in a fence", "```\n[g](missing.md)\n```", ""},
		{"missing file", "[g](gude.md)", "docs/gude.md is not a file or directory of the repository"},
		{"missing image", "![pic](shot.jpg)", "docs/shot.jpg is not a file"},
		{"directory not in the repository", "[d](../server)", "server is not a file or directory"},
		{"ignored file", "[u](../other/ignored.go)", "other/ignored.go is not a file or directory"},
		{"leaves the repository", "[p](../../shared/DESIGN.md)", "leaves the repository"},
		{"missing anchor", "[g](guide.md#running)", "docs/guide.md has no heading #running"},
		{"anchor of a third repeat", "[g](guide.md#notes-2)", "has no heading #notes-2"},
		{"missing own anchor", "[s](#elsewhere)", "docs/a.md has no heading #elsewhere"},
		{"anchor into a directory", "[d](../clients#x)", "is a directory"},
		{"anchor into code", "[c](../main.go#main)", "only line anchors"},
		{"reference link", "[g][ref]\n\n[ref]: guide.md#nowhere", "has no heading #nowhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"README.md":         "# R\n",
				"main.go":           "package main\n",
				"clients/README.md": "# C\n",
				"docs/guide.md":     target,
				"docs/shot.png":     "png",
				"docs/a.md":         "# Self\n\n" + tc.link + "\n",
				"other/ignored.go":  "",
			}
			tracked := []string{}
			for f := range files {
				if f != "other/ignored.go" {
					tracked = append(tracked, f)
				}
			}
			read := func(name string) ([]byte, error) {
				if s, ok := files[name]; ok {
					return []byte(s), nil
				}
				return nil, errors.Join(fs.ErrNotExist, errors.New(name))
			}
			problems, err := check(newRepo(tracked, read))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == "" && len(problems) > 0:
				t.Errorf("want no problem, got %q", problems)
			case tc.want != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.want)):
				t.Errorf("want one problem saying %q, got %q", tc.want, problems)
			case tc.want != "" && !strings.HasPrefix(problems[0], "docs/a.md:3: "):
				t.Errorf("problem %q does not name docs/a.md:3", problems[0])
			}
		})
	}
}
