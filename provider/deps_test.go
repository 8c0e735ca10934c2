package provider_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the SDK's import rules true:
//
//   - the kit (provider) and the runtime (provider/child) depend on no
//     package of this module but the provider proto and the leaf packages
//     the supervisor shares with them (internal/proc, internal/contract,
//     internal/suggest, internal/enumtab, paths, and internal/version for
//     --version), so that a provider never builds the supervisor in;
//   - the runtime imports the kit, never the reverse: what a platform
//     implements is read in one package, without the child process's
//     gRPC service, pump, fence and main;
//   - a platform package (provider/<name>) imports the kit, not the
//     runtime: only its cmd/provider-<name> main runs it.
func TestDeps(t *testing.T) {
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
		mod + "provider/child":            true,
		mod + "provider/providertest":     true,
	}
	for _, pkg := range []string{mod + "provider", mod + "provider/child", mod + "provider/providertest"} {
		for _, dep := range deps(t, pkg) {
			if strings.HasPrefix(dep, mod) && !allowed[dep] {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
	for _, dep := range deps(t, mod+"provider") {
		if dep == mod+"provider/child" {
			t.Errorf("provider imports provider/child: the runtime imports the kit, never the reverse")
		}
	}
	for _, pkg := range []string{"telegram", "slack", "discord", "playground", "minimal"} {
		for _, dep := range deps(t, mod+"provider/"+pkg) {
			if dep == mod+"provider/child" {
				t.Errorf("provider/%s imports provider/child: a platform implements the kit; its cmd main runs it", pkg)
			}
		}
	}
}

// deps lists pkg and every package it depends on.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go tool not found: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}
