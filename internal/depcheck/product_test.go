package depcheck

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCommandsLinkNoTestPackages: no binary under cmd/ links one of the
// module's test packages (a package whose name ends in "test": etcdtest,
// providertest, storetest, the platform stand-ins), on Linux or macOS.
func TestCommandsLinkNoTestPackages(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, mod+"cmd/...")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		n := 0
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			n++
			for _, dep := range f[1:] {
				if strings.HasPrefix(dep, mod) && strings.HasSuffix(dep, "test") {
					t.Errorf("GOOS=%s: %s links the test package %s", goos, f[0], dep)
				}
			}
		}
		if n < 5 {
			t.Fatalf("GOOS=%s: only %d commands listed", goos, n)
		}
	}
}

// TestProductModuleGraph: the product's module requires only what the
// product links. The etcd server (and its raft), the browser driver and
// the pty library are for tests alone: they belong to the e2e module.
func TestProductModuleGraph(t *testing.T) {
	out, err := exec.Command("go", "mod", "graph").Output()
	if err != nil {
		t.Fatalf("go mod graph: %v", err)
	}
	if !strings.Contains(string(out), "go.etcd.io/etcd/client/v3@") {
		t.Fatalf("go mod graph lists no etcd client: not the product's graph?\n%.500s", out)
	}
	testOnly := []string{"go.etcd.io/raft", "go.etcd.io/etcd/server", "github.com/chromedp/", "github.com/creack/pty"}
	for line := range strings.Lines(string(out)) {
		for _, m := range testOnly {
			if strings.Contains(line, m) {
				t.Errorf("the product's module graph holds %s (a test-only module; require it in e2e/go.mod): %s", m, strings.TrimSpace(line))
				break
			}
		}
	}
}
