// Package depcheck holds the test that keeps the module's import
// boundaries true: who may import whom among this module's packages (the
// SDK never builds the supervisor in, the supervisor never the client, the
// CLI never the server).
package depcheck

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/chatbus/chatbus/"

type pkg struct {
	ImportPath string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	out, err := exec.Command("go", "list", "-deps=false", "-json", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []pkg
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rules: a package under prefix may depend (transitively) only on the
// module packages that allowed says yes to.
var rules = []struct {
	prefix  string
	allowed func(dep string) bool
}{
	{"proto/", func(dep string) bool { return strings.HasPrefix(dep, "proto/") }},
	// paths: a leaf holding the socket-path limit and the private-dir rule
	// that the client, the supervisor and the providers share;
	// internal/backoff: the one backoff, a leaf over its library.
	{"client", func(dep string) bool { return dep == "proto/chatbus/v1" || dep == "paths" || dep == "internal/backoff" }},
	{"provider", func(dep string) bool {
		// internal/webauth: the guard of the loopback pages (the playground's).
		// internal/contract, internal/suggest, internal/enumtab,
		// internal/backoff, internal/durable, paths: leaves shared with
		// the supervisor.
		return strings.HasPrefix(dep, "provider") || strings.HasPrefix(dep, "proto/chatbus/provider/") ||
			dep == "internal/proc" || dep == "internal/webauth" || dep == "internal/contract" || dep == "internal/suggest" ||
			dep == "internal/enumtab" || dep == "internal/backoff" || dep == "internal/durable" || dep == "paths"
	}},
	{"server", func(dep string) bool { return dep != "client" && !strings.HasPrefix(dep, "cmd/") }},
	{"cmd/busctl", func(dep string) bool { return !strings.HasPrefix(dep, "server") }},
	{"paths", func(string) bool { return false }},
	{"internal/webauth", func(string) bool { return false }},
	{"internal/contract", func(string) bool { return false }},
	{"internal/suggest", func(string) bool { return false }},
	{"internal/enumtab", func(string) bool { return false }},
	{"internal/backoff", func(string) bool { return false }},
	{"internal/durable", func(string) bool { return false }},
}

func TestImportBoundaries(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 5 {
		t.Fatalf("only %d packages listed", len(pkgs))
	}
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, mod)
		for _, r := range rules {
			if name != r.prefix && !strings.HasPrefix(name, strings.TrimSuffix(r.prefix, "/")+"/") {
				continue
			}
			if name == "server/servertest" { // test harness: starts a server, dials a client
				continue
			}
			for _, d := range p.Deps {
				if !strings.HasPrefix(d, mod) {
					continue
				}
				dep := strings.TrimPrefix(d, mod)
				if strings.HasPrefix(dep, "internal/version") || dep == name {
					continue
				}
				if !r.allowed(dep) {
					t.Errorf("%s imports %s: not allowed by the module's import boundaries", name, dep)
				}
			}
		}
	}
}
