package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name       string
		layout     layout
		env        map[string]string
		profile    string
		wantSocket string
		wantState  string
		wantConfig string
	}{
		{
			name:       "xdg",
			layout:     xdgLayout,
			env:        map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "HOME": "/home/u"},
			profile:    "work",
			wantSocket: "/run/user/1000/chatbus/work/supervisor.sock",
			wantState:  "/s/chatbus/work",
			wantConfig: "/c/chatbus/work.yaml",
		},
		{
			name:       "home fallback",
			layout:     xdgLayout,
			env:        map[string]string{"HOME": "/home/u"},
			wantSocket: "/home/u/.cache/chatbus/run/default/supervisor.sock",
			wantState:  "/home/u/.local/state/chatbus/default",
			wantConfig: "/home/u/.config/chatbus/default.yaml",
		},
		{
			name:       "tmp fallback",
			layout:     xdgLayout,
			env:        map[string]string{},
			wantSocket: "/tmp/chatbus-42/default/supervisor.sock",
			wantState:  "/tmp/chatbus-42/default/state",
		},
		{
			name:       "macOS",
			layout:     macOSLayout,
			env:        map[string]string{"TMPDIR": "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/", "HOME": "/Users/u"},
			wantSocket: "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/chatbus/default/supervisor.sock",
			wantState:  "/Users/u/Library/Application Support/chatbus/default",
			wantConfig: "/Users/u/Library/Application Support/chatbus/default.yaml",
		},
		{
			name:       "macOS with XDG variables set",
			layout:     macOSLayout,
			env:        map[string]string{"XDG_RUNTIME_DIR": "/r", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "TMPDIR": "/var/folders/x/T/", "HOME": "/Users/u"},
			profile:    "work",
			wantSocket: "/r/chatbus/work/supervisor.sock",
			wantState:  "/s/chatbus/work",
			wantConfig: "/c/chatbus/work.yaml",
		},
		{
			name:       "macOS without TMPDIR",
			layout:     macOSLayout,
			env:        map[string]string{"HOME": "/Users/u"},
			wantSocket: "/tmp/chatbus-42/default/supervisor.sock",
			wantState:  "/Users/u/Library/Application Support/chatbus/default",
			wantConfig: "/Users/u/Library/Application Support/chatbus/default.yaml",
		},
		{
			name:       "macOS without HOME",
			layout:     macOSLayout,
			env:        map[string]string{"TMPDIR": "/var/folders/x/T/"},
			wantSocket: "/var/folders/x/T/chatbus/default/supervisor.sock",
			wantState:  "/tmp/chatbus-42/default/state",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", "/tmp")
			p, err := resolve(tt.layout, tt.profile, func(k string) string { return tt.env[k] }, 42)
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
	for _, tt := range []struct {
		name  string
		limit int // sizeof(sun_path) - 1
	}{
		{name: "Linux", limit: 107},
		{name: "macOS", limit: 103},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fits := "/tmp/" + strings.Repeat("s", tt.limit-5)
			if err := checkSocket(fits, tt.limit); err != nil {
				t.Errorf("%d bytes refused: %v", len(fits), err)
			}
			err := checkSocket(fits+"s", tt.limit)
			if err == nil {
				t.Fatalf("%d bytes accepted", len(fits)+1)
			}
			if want := fmt.Sprintf("is %d bytes; Unix sockets allow at most %d", len(fits)+1, tt.limit); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		})
	}
	if err := CheckSocket("/tmp/" + strings.Repeat("s", MaxSocketPath-4)); err == nil {
		t.Errorf("CheckSocket accepted %d bytes on this OS (limit %d)", MaxSocketPath+1, MaxSocketPath)
	}
}

// TestMacOSSocketFits: the macOS default socket, and a provider child's
// (the supervisor puts them in providers/ beside its own, named
// <provider>-<n>.sock), fit in its 103 bytes under a typical $TMPDIR (49
// bytes), for a profile name of up to 12 characters.
func TestMacOSSocketFits(t *testing.T) {
	const tmpdir = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/"
	for _, profile := range []string{"default", "work-project"} {
		p, err := resolve(macOSLayout, profile, func(k string) string { return map[string]string{"TMPDIR": tmpdir, "HOME": "/Users/u"}[k] }, 501)
		if err != nil {
			t.Fatal(err)
		}
		for _, socket := range []string{p.Socket,
			filepath.Join(p.RuntimeDir, "providers", "telegram-999999.sock"),
			filepath.Join(p.RuntimeDir, "providers", "playground-999999.sock")} {
			if err := checkSocket(socket, 103); err != nil {
				t.Errorf("profile %q: %v", profile, err)
			}
		}
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
