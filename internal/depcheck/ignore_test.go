package depcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandBinariesIgnored keeps `go build ./cmd/<name>` at the module
// root from leaving a binary git would add: every command's name is
// ignored there.
func TestCommandBinariesIgnored(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Fatalf("the module root %s is not a git checkout: %v", root, err)
	}
	cmds, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cmds {
		if !c.IsDir() {
			continue
		}
		n++
		check := exec.Command("git", "check-ignore", "-q", "--no-index", c.Name())
		check.Dir = root
		if err := check.Run(); err != nil {
			t.Errorf("a binary %q built at the module root is not ignored by .gitignore (git check-ignore: %v)", c.Name(), err)
		}
	}
	if n == 0 {
		t.Fatal("no commands under cmd/")
	}
}
