// Package paths owns where chatbus keeps its files: the supervisor socket and
// its lock, the state directory (secret, store, logs) and the config file;
// and the two rules every such file follows: a Unix socket path fits in
// sun_path (CheckSocket), a directory of ours is private (PrivateDir).
// It is shared by supervisord, its clients (the client library may import
// it) and the provider children so that all sides agree without talking.
// It imports nothing of this module and reads no environment itself:
// callers pass Getenv.
package paths

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
)

// DefaultProfile is the profile used when none is named.
const DefaultProfile = "default"

var profileRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ErrBadProfile reports a profile name that cannot be used in a path.
var ErrBadProfile = errors.New("profile must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit")

// Paths are the files of one profile.
type Paths struct {
	Profile string
	// RuntimeDir holds the socket and its lock; mode 0700.
	RuntimeDir string
	Socket     string
	Lock       string
	// StateDir holds the secret, the store and the background log; mode 0700.
	StateDir string
	Secret   string
	Store    string
	Log      string
	// Config is the profile's config file; it need not exist.
	Config string
}

// Resolve returns the default paths of profile by this OS's conventions
// (layout.go: the XDG base directories on Linux; on macOS the per-user
// $TMPDIR for the socket and ~/Library/Application Support for the rest,
// XDG variables first when they are set). getenv is usually os.Getenv;
// uid is the user's id, used for the /tmp fallback.
func Resolve(profile string, getenv func(string) string, uid int) (Paths, error) {
	return resolve(nativeLayout, profile, getenv, uid)
}

func resolve(l layout, profile string, getenv func(string) string, uid int) (Paths, error) {
	if profile == "" {
		profile = DefaultProfile
	}
	if !profileRE.MatchString(profile) {
		return Paths{}, fmt.Errorf("profile %q: %w", profile, ErrBadProfile)
	}
	p := Paths{Profile: profile}
	var runtimeDir string
	runtimeDir, p.StateDir, p.Config = l(profile, getenv, uid)
	p.SetSocket(filepath.Join(runtimeDir, "supervisor.sock"))
	p.SetStateDir(p.StateDir)
	return p, nil
}

// SetSocket moves the socket (and its lock, which lives beside it).
func (p *Paths) SetSocket(socket string) {
	p.Socket = socket
	p.RuntimeDir = filepath.Dir(socket)
	p.Lock = socket + ".lock"
}

// SetStateDir moves the state directory and the files in it.
func (p *Paths) SetStateDir(dir string) {
	p.StateDir = dir
	p.Secret = filepath.Join(dir, "secret")
	p.Store = filepath.Join(dir, "state.db")
	p.Log = filepath.Join(dir, "supervisord.log")
}

// CheckSocket reports whether socket can be bound: absolute-or-relative is
// fine, but it must not be empty and must fit in sun_path (MaxSocketPath
// bytes on this OS). The error says how long the path is and what fits.
func CheckSocket(socket string) error { return checkSocket(socket, MaxSocketPath) }

func checkSocket(socket string, limit int) error {
	if socket == "" {
		return errors.New("socket path is empty")
	}
	if len(socket) > limit {
		return fmt.Errorf("socket path %q is %d bytes; Unix sockets allow at most %d here", socket, len(socket), limit)
	}
	return nil
}

// PrivateDir creates dir (and its parents, mode 0700) and makes sure dir is
// a directory owned by this user with mode 0700: a directory of another
// user is refused, a wider mode is narrowed.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not %d", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	}
	return nil
}
