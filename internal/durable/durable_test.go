package durable

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRenameSyncsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, ".tmp"), filepath.Join(dir, "file")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	defer OnSyncDir(func(d string) { dirs = append(dirs, d) })()
	if err := Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "x" {
		t.Fatalf("after Rename: %q, %v", b, err)
	}
	if len(dirs) != 1 || dirs[0] != dir {
		t.Errorf("directories synced %v, want [%s]", dirs, dir)
	}
	if err := Rename(from, to); err == nil {
		t.Error("Rename of a file that is gone succeeded")
	}
}
