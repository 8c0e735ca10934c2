package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/internal/proc"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Ways in. chatbus-mcp hands the thread's updates to the agent session by
// one of two ways, whichever the session offers, and says which to the
// supervisor (busctl followers, WAY IN):
//
//   - the channel: notifications/claude/channel, when Claude Code loaded
//     chatbus as a channel (--channels or
//     --dangerously-load-development-channels naming it; a research
//     preview, for claude.ai logins). An MCP client that is not Claude
//     Code is given the channel as before: it is the client's to take.
//   - the inbox: the session's inbox socket (cross-session messaging,
//     Claude Code 2.1.224 and later), whose path Claude Code exports to
//     its children as CLAUDE_CODE_MESSAGING_SOCKET: one connection per
//     message, an optional auth line, then one user line (inbox.go).
//
// Claude Code tells an MCP server nothing of whether it registered the
// channel handler (its tools/list_changed handler is registered either
// way), so the channel is taken when the session's command line asks for
// it and Claude Code's cached feature flags do not leave channels off
// (channelsOff); --way-in forces one. With neither, updates stay held in the
// supervisor's journal (nothing is acked), the log and the thread say so
// once, and the ways are looked for again every waysPoll: a socket that
// binds late (Claude Code binds it after start when a flag refresh turns
// it on) is found at its conventional path.

// wayIn is the way in chosen, and why.
type wayIn struct {
	kind   chatbusv1.WayIn
	socket string // the inbox socket, with WAY_IN_INBOX
	// detail says why this way (with WAY_IN_NONE: why none, and what the
	// person can do); busctl followers shows it.
	detail string
	// told: the thread was told already by whoever chose this way (no
	// notice that there is no way in).
	told bool
}

// String names the way for the log.
func (w wayIn) String() string {
	return strings.ToLower(strings.TrimPrefix(w.kind.String(), "WAY_IN_"))
}

// waysPoll is how often the ways are looked for again while there is
// none.
const waysPoll = 2 * time.Second

// wayInFlags are the --way-in choices.
const (
	wayAuto    = "auto"
	wayChannel = "channel"
	wayInbox   = "inbox"
)

// ways finds the ways in a session offers. Its fields come from flags
// and the environment (main); detect reads the files and sockets they
// name each time.
type ways struct {
	// force is --way-in: "auto" (or empty), "channel" or "inbox".
	force string
	// name is the server's name in the client's MCP config, as the
	// channel flags name it ("server:<name>", "plugin:<name>@…").
	name string
	// claudeCode: the launcher is Claude Code (it sets CLAUDECODE=1 in
	// its children's environment).
	claudeCode bool
	// launcherArgs is the launching process's command line (nil if it
	// could not be read).
	launcherArgs []string
	launcherPID  int
	// socket and token are CLAUDE_CODE_MESSAGING_SOCKET and
	// CLAUDE_CODE_MESSAGING_TOKEN.
	socket, token string
	// socketDirs are where Claude Code binds an inbox it was not told the
	// path of: <dir>/<launcher pid>.sock.
	socketDirs []string
	// settings are Claude Code's settings files that may set
	// crossSessionInbound: managed first, then the user's, then the
	// project's (which may only tighten it).
	managed, user, project []string
	// globalConfig is Claude Code's ~/.claude.json (its cached feature
	// flags); "" if unknown.
	globalConfig string
}

// newWays reads what detection needs from the environment.
func newWays(force, name, cwd string, getenv func(string) string) *ways {
	w := &ways{
		force: force, name: name,
		claudeCode:  getenv("CLAUDECODE") == "1",
		launcherPID: os.Getppid(),
		socket:      getenv("CLAUDE_CODE_MESSAGING_SOCKET"),
		token:       getenv("CLAUDE_CODE_MESSAGING_TOKEN"),
	}
	w.launcherArgs, _ = proc.Args(w.launcherPID)
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		w.socketDirs = append(w.socketDirs, filepath.Join(d, "cc-socks"))
	}
	tmp := getenv("CLAUDE_CODE_TMPDIR")
	if tmp == "" {
		tmp = os.TempDir()
	}
	w.socketDirs = append(w.socketDirs, filepath.Join(tmp, "cc-socks"), filepath.Join("/tmp", "cc-socks-"+strconv.Itoa(os.Getuid())))
	config := getenv("CLAUDE_CONFIG_DIR")
	if config == "" {
		if home := getenv("HOME"); home != "" {
			config = filepath.Join(home, ".claude")
		}
	}
	if config != "" {
		w.user = []string{filepath.Join(config, "settings.json")}
	}
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		w.globalConfig = filepath.Join(d, ".claude.json")
	} else if home := getenv("HOME"); home != "" {
		w.globalConfig = filepath.Join(home, ".claude.json")
	}
	w.managed = []string{"/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json"}
	project := getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	w.project = []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json")}
	return w
}

// detect finds the best way in the session offers now.
func (w *ways) detect() wayIn {
	switch w.force {
	case wayChannel:
		return wayIn{kind: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "--way-in channel"}
	case wayInbox:
		if in, ok := w.inbox(); ok {
			in.detail = "--way-in inbox: " + in.detail
			return in
		} else {
			return wayIn{kind: chatbusv1.WayIn_WAY_IN_NONE, detail: "--way-in inbox, but " + in.detail}
		}
	}
	if !w.claudeCode {
		return wayIn{kind: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "the MCP client is not Claude Code: notifications/claude/channel"}
	}
	flag, asked := w.channelFlag()
	off := asked && w.channelsOff()
	if asked && !off {
		return wayIn{kind: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "Claude Code's channel (started with " + flag + ")"}
	}
	in, ok := w.inbox()
	if off {
		// Claude Code skips the channel ("channels feature is not
		// currently available"): what it would be sent would be lost.
		why := fmt.Sprintf("started with %s, but Claude Code's channels are off (its cached feature flags in %s do not turn them on: an API key, or not yet fetched)", flag, w.globalConfig)
		if ok {
			in.detail += "; " + why
			return in
		}
		return wayIn{kind: chatbusv1.WayIn_WAY_IN_NONE, detail: fmt.Sprintf("Claude Code offers no way in: %s, and %s. Messages wait in the thread until a session of this profile key has one", why, in.detail)}
	}
	if ok {
		return in
	}
	return wayIn{kind: chatbusv1.WayIn_WAY_IN_NONE, detail: fmt.Sprintf("Claude Code offers no way in: chatbus is not a channel of this session (no --channels or --dangerously-load-development-channels server:%s) and %s. "+
		"Messages wait in the thread until a session of this profile key has one", w.name, in.detail)}
}

// channelFlag finds the launcher's flag that loads this server as a
// channel: "--channels <list>" or "--dangerously-load-development-channels
// <list>" (also "--flag=<list>"), the list naming "server:<name>" or
// "plugin:<name>@<marketplace>".
func (w *ways) channelFlag() (string, bool) {
	args := w.launcherArgs
	for i, a := range args {
		for _, flag := range []string{"--channels", "--dangerously-load-development-channels"} {
			var vals []string
			switch {
			case a == flag:
				// The flag takes the arguments up to the next flag.
				for _, v := range args[i+1:] {
					if strings.HasPrefix(v, "-") {
						break
					}
					vals = append(vals, v)
				}
			case strings.HasPrefix(a, flag+"="):
				vals = []string{strings.TrimPrefix(a, flag+"=")}
			default:
				continue
			}
			for _, v := range vals {
				for _, e := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
					if e == "server:"+w.name || strings.HasPrefix(e, "plugin:"+w.name+"@") {
						return flag + " " + e, true
					}
				}
			}
		}
	}
	return "", false
}

// channelsOff reports whether Claude Code's cached feature flags (in
// ~/.claude.json) leave its channels feature off: Claude Code registers
// no channel then, whatever the flags of the session ask (it logs
// "Channel notifications skipped: channels feature is not currently
// available"). An unreadable or absent file says nothing: false.
func (w *ways) channelsOff() bool {
	if w.globalConfig == "" {
		return false
	}
	b, err := os.ReadFile(w.globalConfig)
	if err != nil {
		return false
	}
	var cfg struct {
		Features map[string]json.RawMessage `json:"cachedGrowthBookFeatures"`
		Legacy   map[string]json.RawMessage `json:"cachedFeatureFlags"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return false
	}
	flags := cfg.Features
	if flags == nil {
		flags = cfg.Legacy
	}
	return string(flags["tengu_harbor"]) != "true"
}

// inbox finds the session's inbox socket: the exported one, else one
// bound late at the conventional path. ok false: none, and detail says
// why.
func (w *ways) inbox() (in wayIn, ok bool) {
	policy, from := w.crossSessionInbound()
	if policy == "refuse" {
		return wayIn{detail: fmt.Sprintf("its inbox refuses messages (crossSessionInbound is \"refuse\" in %s: set it to \"accept\")", from)}, false
	}
	candidates := []string{}
	if w.socket != "" {
		candidates = append(candidates, w.socket)
	}
	for _, d := range w.socketDirs {
		candidates = append(candidates, filepath.Join(d, strconv.Itoa(w.launcherPID)+".sock"))
	}
	for _, path := range candidates {
		if !answers(path) {
			continue
		}
		in = wayIn{kind: chatbusv1.WayIn_WAY_IN_INBOX, socket: path, detail: "the session's inbox socket " + path}
		if policy == "hold" {
			in.detail += fmt.Sprintf(" (crossSessionInbound is \"hold\" in %s: each message waits for approval at the terminal)", from)
		}
		return in, true
	}
	why := "it has no inbox socket (CLAUDE_CODE_MESSAGING_SOCKET is not set: Claude Code before 2.1.224, Bedrock, Vertex or Foundry, or cross-session messaging turned off)"
	if w.socket != "" {
		why = fmt.Sprintf("its inbox socket %s does not answer", w.socket)
	}
	return wayIn{detail: why}, false
}

// answers reports whether a Unix socket at path takes a connection. The
// connection is closed at once with nothing written (Claude Code closes
// its end and forgets it).
func answers(path string) bool {
	if st, err := os.Stat(path); err != nil || st.Mode().Type() != fs.ModeSocket {
		return false
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// crossSessionInbound is the crossSessionInbound setting Claude Code
// applies ("accept", "hold", "refuse"; "" if none is set) and the file
// that set it: the managed settings' or else the user's, tightened by the
// project's (a project may only tighten it).
func (w *ways) crossSessionInbound() (policy, from string) {
	rank := map[string]int{"": 0, "accept": 0, "hold": 1, "refuse": 2}
	for _, files := range [][]string{w.managed, w.user} {
		for _, f := range files {
			if v := settingOf(f); v != "" && policy == "" {
				policy, from = v, f
			}
		}
	}
	for _, f := range w.project {
		if v := settingOf(f); rank[v] > rank[policy] {
			policy, from = v, f
		}
	}
	return policy, from
}

// settingOf reads crossSessionInbound from a settings file ("" if the
// file or the key is absent, or unreadable).
func settingOf(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var s struct {
		CrossSessionInbound string `json:"crossSessionInbound"`
	}
	if json.Unmarshal(b, &s) != nil {
		return ""
	}
	switch s.CrossSessionInbound {
	case "accept", "hold", "refuse":
		return s.CrossSessionInbound
	}
	return ""
}

// errNoWayIn ends an update stream when the way in went away mid-stream:
// the update is left unacked, and the ways are looked for again.
var errNoWayIn = errors.New("the way in to the session went away")
