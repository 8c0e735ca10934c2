package provider_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the SDK's import rule true: it depends on no package of
// this module but the provider proto and the leaf packages the supervisor
// shares with it (internal/proc, internal/contract, internal/suggest,
// internal/enumtab, paths, and internal/version for --version), so that a
// provider never builds the supervisor in.
func TestDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go tool not found: %v", err)
	}
	const mod = "github.com/chatbus/chatbus/"
	allowed := map[string]bool{
		mod + "proto/chatbus/provider/v1": true,
		mod + "internal/proc":             true,
		mod + "internal/contract":         true,
		mod + "internal/suggest":          true,
		mod + "internal/enumtab":          true,
		mod + "internal/version":          true,
		mod + "paths":                     true,
		mod + "provider":                  true,
		mod + "provider/providertest":     true,
	}
	for _, pkg := range []string{mod + "provider", mod + "provider/providertest"} {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, mod) && !allowed[dep] {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
