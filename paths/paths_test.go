package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		profile    string
		wantSocket string
		wantState  string
		wantConfig string
	}{
		{
			name:       "xdg",
			env:        map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "HOME": "/home/u"},
			profile:    "work",
			wantSocket: "/run/user/1000/chatbus/work/supervisor.sock",
			wantState:  "/s/chatbus/work",
			wantConfig: "/c/chatbus/work.yaml",
		},
		{
			name:       "home fallback",
			env:        map[string]string{"HOME": "/home/u"},
			wantSocket: "/home/u/.cache/chatbus/run/default/supervisor.sock",
			wantState:  "/home/u/.local/state/chatbus/default",
			wantConfig: "/home/u/.config/chatbus/default.yaml",
		},
		{
			name:       "tmp fallback",
			env:        map[string]string{},
			wantSocket: "/tmp/chatbus-42/default/supervisor.sock",
			wantState:  "/tmp/chatbus-42/default/state",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", "/tmp")
			p, err := Resolve(tt.profile, func(k string) string { return tt.env[k] }, 42)
			if err != nil {
				t.Fatal(err)
			}
			if p.Socket != tt.wantSocket || p.StateDir != tt.wantState || p.Config != tt.wantConfig {
				t.Errorf("got socket %q state %q config %q", p.Socket, p.StateDir, p.Config)
			}
			if p.Lock != p.Socket+".lock" || !strings.HasPrefix(p.Secret, p.StateDir) {
				t.Errorf("derived paths wrong: %+v", p)
			}
		})
	}
}

func TestResolveBadProfile(t *testing.T) {
	for _, profile := range []string{"../x", "a/b", ".hidden", strings.Repeat("a", 65)} {
		if _, err := Resolve(profile, func(string) string { return "" }, 0); !errors.Is(err, ErrBadProfile) {
			t.Errorf("profile %q: err = %v, want ErrBadProfile", profile, err)
		}
	}
}

func TestCheckSocket(t *testing.T) {
	if err := CheckSocket("/tmp/" + strings.Repeat("s", 102)); err != nil {
		t.Errorf("107 bytes refused: %v", err)
	}
	if err := CheckSocket("/tmp/" + strings.Repeat("s", 103)); err == nil {
		t.Error("108 bytes accepted")
	}
}

func TestPrivateDir(t *testing.T) {
	root := t.TempDir()
	t.Run("creates it and its parents 0700", func(t *testing.T) {
		dir := filepath.Join(root, "a", "b")
		if err := PrivateDir(dir); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, %v", dir, fi.Mode(), err)
		}
	})
	t.Run("narrows a wider mode", func(t *testing.T) {
		dir := filepath.Join(root, "wide")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := PrivateDir(dir); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("mode %v, want 0700", fi.Mode())
		}
	})
	t.Run("refuses a file", func(t *testing.T) {
		f := filepath.Join(root, "file")
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := PrivateDir(f); err == nil {
			t.Error("a file was taken for a directory")
		}
	})
	t.Run("refuses another user's directory", func(t *testing.T) {
		// As root, a directory given to nobody; as anyone else, "/".
		dir := "/"
		if os.Getuid() == 0 {
			dir = filepath.Join(root, "nobody")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		err := PrivateDir(dir)
		if err == nil || !strings.Contains(err.Error(), "owned by uid") {
			t.Errorf("PrivateDir(%s) = %v, want refused as another user's", dir, err)
		}
		if fi, _ := os.Stat(dir); os.Getuid() == 0 && fi.Mode().Perm() != 0o700 {
			t.Errorf("another user's directory was changed: %v", fi.Mode())
		}
	})
}
