package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDesignNamesEveryPackage keeps docs/design.md's package table whole:
// every package of the module (go list ./...) is named, in backticks, in
// the first cell of a table row of its "Code layout and boundaries"
// section, and every name there is a package or directory of the module.
func TestDesignNamesEveryPackage(t *testing.T) {
	_, root, err := gitRepo()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	mod := exec.Command("go", "list", "-m")
	mod.Dir = root
	modPath, err := mod.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	prefix := strings.TrimSpace(string(modPath)) + "/"
	design, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	const section = "## Code layout and boundaries"
	layout, ok := sectionOf(string(design), section)
	if !ok {
		t.Fatalf("docs/design.md has no section %q", section)
	}
	named := tableNames(layout)
	pkgs := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(p, prefix)
		pkgs[rel] = true
		if !named[rel] {
			t.Errorf("docs/design.md: the package table does not name `%s` (a row: | `%s` | what it owns |)", rel, rel)
		}
	}
	for n := range named {
		if pkgs[n] {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(n))); err == nil && fi.IsDir() {
			continue // a directory of no Go package (clients/ts, deploy, …)
		}
		t.Errorf("docs/design.md: the package table names `%s`, which is no package or directory of the module", n)
	}
}

var firstCell = regexp.MustCompile(`^\|([^|]*)\|`)
var backticked = regexp.MustCompile("`([^`]+)`")

// tableNames are the backticked names in the first cell of the rows of
// every table of a Markdown page.
func tableNames(page string) map[string]bool {
	names := map[string]bool{}
	for _, line := range strings.Split(page, "\n") {
		m := firstCell.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, b := range backticked.FindAllStringSubmatch(m[1], -1) {
			names[b[1]] = true
		}
	}
	return names
}

// sectionOf is the text under the heading line h, up to the next heading
// of the same level.
func sectionOf(page, h string) (string, bool) {
	i := strings.Index(page, "\n"+h+"\n")
	if i < 0 {
		return "", false
	}
	rest := page[i+len(h)+2:]
	level := h[:strings.Index(h, " ")+1]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest, true
}
