package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exitCodes are the values of the exit… constants of this package: the
// codes busctl can exit with.
func exitCodes(t *testing.T) []int {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var codes []int
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "exit") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.INT {
						n, _ := strconv.Atoi(lit.Value)
						codes = append(codes, n)
					}
				}
			}
		}
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// TestOneExitCodeTable: the exit codes busctl uses (its exit… constants)
// are the ones docs/busctl.md's table and busctl --help list, no more, no
// fewer.
func TestOneExitCodeTable(t *testing.T) {
	used := exitCodes(t)
	if len(used) < 10 {
		t.Fatalf("found only exit codes %v", used)
	}

	doc, err := os.ReadFile("../../docs/busctl.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Exit codes")
	if !ok {
		t.Fatal("docs/busctl.md has no Exit codes section")
	}
	var documented []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		documented = append(documented, n)
	}
	if !slices.Equal(documented, used) {
		t.Errorf("docs/busctl.md documents exit codes %v, busctl uses %v", documented, used)
	}

	var helped []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+)(?:-(\d+))?  `).FindAllStringSubmatch(rootLong, -1) {
		lo, _ := strconv.Atoi(m[1])
		hi := lo
		if m[2] != "" {
			hi, _ = strconv.Atoi(m[2])
		}
		for n := lo; n <= hi; n++ {
			helped = append(helped, n)
		}
	}
	if !slices.Equal(helped, used) {
		t.Errorf("busctl --help lists exit codes %v, busctl uses %v", helped, used)
	}
}
