package auth

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadOrCreateSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "secret")
	s1, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %#o, want 0600", fi.Mode().Perm())
	}
	s2, err := LoadOrCreateSecret(path)
	if err != nil || s1 != s2 {
		t.Fatalf("second load = %q, %v; want %q", s2, err, s1)
	}
	if !Equal(s1, s2) || Equal(s1, s1+"x") || Equal("", s1) {
		t.Error("Equal is wrong")
	}
}

func TestSecretRefused(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
	}{
		{name: "world readable", content: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n", mode: 0o644},
		{name: "garbage", content: "not a secret", mode: 0o600},
		{name: "short", content: "AAAA", mode: 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(path, []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadOrCreateSecret(path); err == nil {
				t.Fatal("accepted")
			}
			b, _ := os.ReadFile(path)
			if string(b) != tt.content {
				t.Error("secret file was overwritten")
			}
		})
	}
	_, err := ReadSecret(filepath.Join(t.TempDir(), "none"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestConcurrentCreate: supervisors started at the same instant create the
// secret at once; none may read it half written, and all agree on it.
func TestConcurrentCreate(t *testing.T) {
	for round := range 50 {
		path := filepath.Join(t.TempDir(), "state", "secret")
		const n = 8
		secrets, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { secrets[i], errs[i] = LoadOrCreateSecret(path) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d, creator %d: %v", round, i, errs[i])
			}
			if secrets[i] != secrets[0] {
				t.Fatalf("round %d: creators disagree: %q vs %q", round, secrets[i], secrets[0])
			}
		}
		if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(matches) != 1 {
			t.Fatalf("round %d: state dir holds %v, want the secret only", round, matches)
		}
	}
}
