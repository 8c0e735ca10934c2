package paths

import (
	"os"
	"path/filepath"
	"strconv"
)

// A layout places a profile's runtime directory (socket and lock), state
// directory and config file by one OS's conventions. Each OS's is chosen
// in layout_<os>.go; both are here, so that their tests run on any OS.
type layout func(profile string, getenv func(string) string, uid int) (runtimeDir, stateDir, config string)

// sharedTmp is the last resort: a per-user directory under the system's
// shared temporary directory (PrivateDir makes it 0700 and refuses it if
// another user made it first).
func sharedTmp(profile string, uid int) string {
	return filepath.Join(os.TempDir(), "chatbus-"+strconv.Itoa(uid), profile)
}

// xdgLayout is Linux's (the XDG base directories):
//
// Runtime dir: $XDG_RUNTIME_DIR/chatbus/<profile>, else
// $HOME/.cache/chatbus/run/<profile>, else /tmp/chatbus-<uid>/<profile>.
// State dir: $XDG_STATE_HOME/chatbus/<profile>, else
// $HOME/.local/state/chatbus/<profile>, else /tmp/chatbus-<uid>/<profile>/state.
// Config: $XDG_CONFIG_HOME/chatbus/<profile>.yaml, else
// $HOME/.config/chatbus/<profile>.yaml.
func xdgLayout(profile string, getenv func(string) string, uid int) (runtimeDir, stateDir, config string) {
	home := getenv("HOME")
	tmp := sharedTmp(profile, uid)
	switch {
	case getenv("XDG_RUNTIME_DIR") != "":
		runtimeDir = filepath.Join(getenv("XDG_RUNTIME_DIR"), "chatbus", profile)
	case home != "":
		runtimeDir = filepath.Join(home, ".cache", "chatbus", "run", profile)
	default:
		runtimeDir = tmp
	}
	stateDir, config = xdgOr(getenv, profile, tmp, home, filepath.Join(".local", "state", "chatbus"), filepath.Join(".config", "chatbus"))
	return runtimeDir, stateDir, config
}

// macOSLayout is macOS's, the XDG variables first when they are set:
//
// Runtime dir: $XDG_RUNTIME_DIR/chatbus/<profile>, else
// $TMPDIR/chatbus/<profile> ($TMPDIR is the user's own directory under
// /var/folders, mode 0700, that macOS gives every login and launchd
// agent), else /tmp/chatbus-<uid>/<profile>.
// State dir: $XDG_STATE_HOME/chatbus/<profile>, else
// ~/Library/Application Support/chatbus/<profile>, else
// /tmp/chatbus-<uid>/<profile>/state.
// Config: $XDG_CONFIG_HOME/chatbus/<profile>.yaml, else
// ~/Library/Application Support/chatbus/<profile>.yaml.
func macOSLayout(profile string, getenv func(string) string, uid int) (runtimeDir, stateDir, config string) {
	home := getenv("HOME")
	tmp := sharedTmp(profile, uid)
	switch {
	case getenv("XDG_RUNTIME_DIR") != "":
		runtimeDir = filepath.Join(getenv("XDG_RUNTIME_DIR"), "chatbus", profile)
	case getenv("TMPDIR") != "":
		runtimeDir = filepath.Join(getenv("TMPDIR"), "chatbus", profile)
	default:
		runtimeDir = tmp
	}
	appSupport := filepath.Join("Library", "Application Support", "chatbus")
	stateDir, config = xdgOr(getenv, profile, tmp, home, appSupport, appSupport)
	return runtimeDir, stateDir, config
}

// xdgOr is the state dir and config of both layouts: $XDG_STATE_HOME and
// $XDG_CONFIG_HOME when set, else under home (state, config: relative to
// it), else (no home) the state dir under tmp and no config.
func xdgOr(getenv func(string) string, profile, tmp, home, state, config string) (stateDir, configFile string) {
	switch {
	case getenv("XDG_STATE_HOME") != "":
		stateDir = filepath.Join(getenv("XDG_STATE_HOME"), "chatbus", profile)
	case home != "":
		stateDir = filepath.Join(home, state, profile)
	default:
		stateDir = filepath.Join(tmp, "state")
	}
	switch {
	case getenv("XDG_CONFIG_HOME") != "":
		configFile = filepath.Join(getenv("XDG_CONFIG_HOME"), "chatbus", profile+".yaml")
	case home != "":
		configFile = filepath.Join(home, config, profile+".yaml")
	}
	return stateDir, configFile
}
