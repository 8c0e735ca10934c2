package install

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
)

const launchdLabel = "io.github.chatbus.supervisord.default"

// fakeLaunchctl is a launchctl that records its arguments, one line a
// call, and keeps launchd's state of one agent: bootstrap of a loaded agent
// fails (5, as launchd's "Input/output error"), bootout of an unloaded one
// fails (113, "Could not find service").
const fakeLaunchctl = `#!/bin/sh
dir="$(dirname "$0")"
echo "$*" >>"$dir/launchctl.log"
case "$1" in
bootstrap) [ -e "$dir/loaded" ] && exit 5; : >"$dir/loaded" ;;
bootout) [ -e "$dir/loaded" ] || exit 113; rm "$dir/loaded" ;;
*) exit 64 ;;
esac
`

// TestMakeInstallLaunchd is make install and make uninstall on macOS,
// checked here with SERVICE=launchd and a recording launchctl: the
// binaries, the LaunchAgent with every path filled in (read as a plist),
// bootout then bootstrap gui/<uid>; the agent's ProgramArguments run as
// launchd would run them (supervisord serves the default profile, logs to
// the file the docs name, and stops with exit 0 on SIGTERM, so KeepAlive
// leaves it stopped); the release archive's INSTALL lines make the same
// agent file; uninstall boots it out and removes what install put.
func TestMakeInstallLaunchd(t *testing.T) {
	root := repoRoot(t)
	home := t.TempDir()
	fake := t.TempDir()
	launchctl := filepath.Join(fake, "launchctl")
	if err := os.WriteFile(launchctl, []byte(fakeLaunchctl), 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(home, ".local")
	bin := filepath.Join(prefix, "bin")
	agents := filepath.Join(home, "Library", "LaunchAgents")
	logs := filepath.Join(home, "Library", "Logs", "chatbus")
	vars := []string{"SERVICE=launchd", "PREFIX=" + prefix, "LAUNCHAGENTS=" + agents, "LOGDIR=" + logs, "LAUNCHCTL=" + launchctl}
	runMake(t, root, append([]string{"install"}, vars...)...)

	plistPath := filepath.Join(agents, launchdLabel+".plist")
	var want []string
	for _, c := range commands(t, root) {
		want = append(want, filepath.Join(".local", "bin", c))
	}
	want = append(want, filepath.Join("Library", "LaunchAgents", launchdLabel+".plist"))
	slices.Sort(want)
	if got := files(t, home); !slices.Equal(got, want) {
		t.Fatalf("installed files:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if fi, err := os.Stat(logs); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Errorf("log dir %s: %v, %v", logs, err, fi)
	}
	uid := strconv.Itoa(os.Getuid())
	checkCalls(t, fake, "bootout gui/"+uid+"/"+launchdLabel, "bootstrap gui/"+uid+" "+plistPath)

	installed, err := os.ReadFile(plistPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(installed, []byte("@")) {
		t.Errorf("an @placeholder@ is left in the agent:\n%s", installed)
	}
	agent, err := parsePlist(installed)
	if err != nil {
		t.Fatalf("the installed agent is no plist: %v\n%s", err, installed)
	}
	wantAgent := map[string]any{
		"Label":             launchdLabel,
		"ProgramArguments":  []any{filepath.Join(bin, "supervisord"), "--profile", "default", "--log-file", filepath.Join(logs, "default.log"), "--log-format", "json"},
		"RunAtLoad":         true,
		"KeepAlive":         map[string]any{"SuccessfulExit": false},
		"ThrottleInterval":  int64(10),
		"ExitTimeOut":       int64(15),
		"ProcessType":       "Standard",
		"Umask":             int64(0o077),
		"StandardOutPath":   filepath.Join(logs, "default.stderr.log"),
		"StandardErrorPath": filepath.Join(logs, "default.stderr.log"),
	}
	if !reflect.DeepEqual(agent, wantAgent) {
		t.Errorf("the installed agent:\n%#v\nwant:\n%#v", agent, wantAgent)
	}

	t.Run("the agent's ProgramArguments run", func(t *testing.T) {
		runAgent(t, home, bin, logs, agent["ProgramArguments"].([]any))
	})

	t.Run("the archive's INSTALL makes the same agent", func(t *testing.T) {
		other := t.TempDir()
		unpacked := filepath.Join(other, "chatbus")
		for _, d := range []string{"bin", "launchd"} {
			if err := os.MkdirAll(filepath.Join(unpacked, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		testkit.CopyFile(t, filepath.Join(root, "deploy", "launchd", "supervisord.plist"), filepath.Join(unpacked, "launchd", "supervisord.plist"), 0o644)
		testkit.CopyFile(t, filepath.Join(bin, "busctl"), filepath.Join(unpacked, "bin", "busctl"), 0o755)
		lines := installLines(t, filepath.Join(root, "deploy", "dist", "INSTALL.darwin"))
		sh := exec.Command("/bin/sh", "-ec", strings.Join(lines, "\n"))
		sh.Dir = unpacked
		fake2 := t.TempDir() // a launchd of its own: this HOME's
		testkit.CopyFile(t, launchctl, filepath.Join(fake2, "launchctl"), 0o755)
		sh.Env = []string{"HOME=" + other, "PATH=" + fake2 + ":/usr/bin:/bin"}
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("INSTALL.darwin's lines:\n%s\n: %v\n%s", strings.Join(lines, "\n"), err, out)
		}
		made, err := os.ReadFile(filepath.Join(other, "Library", "LaunchAgents", launchdLabel+".plist"))
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ReplaceAll(string(installed), home, other); string(made) != want {
			t.Errorf("INSTALL.darwin made:\n%s\nmake install made (with its HOME):\n%s", made, want)
		}
		if _, err := os.Stat(filepath.Join(other, ".local", "bin", "busctl")); err != nil {
			t.Error(err)
		}
		checkCalls(t, fake2, "bootstrap gui/"+uid+" "+filepath.Join(other, "Library", "LaunchAgents", launchdLabel+".plist"))
	})

	os.Remove(filepath.Join(fake, "launchctl.log"))
	runMake(t, root, append([]string{"uninstall"}, vars...)...)
	checkCalls(t, fake, "bootout gui/"+uid+"/"+launchdLabel)
	// What supervisord made (its state, its log) stays, as on Linux.
	for _, f := range files(t, home) {
		if slices.Contains(want, f) {
			t.Errorf("left after make uninstall: %s", f)
		}
	}
}

// checkCalls: the recording launchctl was called exactly so.
func checkCalls(t *testing.T, dir string, want ...string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "launchctl.log"))
	if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("launchctl calls:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// runAgent runs argv as launchd runs an agent (no shell, the user's HOME,
// launchd's PATH, no XDG variables): supervisord serves the default
// profile and writes its log to the file the agent names; busctl reaches
// it; SIGTERM stops it with exit 0.
func runAgent(t *testing.T, home, bin, logs string, argv []any) {
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = a.(string)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "XPC_SERVICE_NAME=" + launchdLabel}
	var stderr testkit.SyncBuffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, "/", &stderr, &stderr
	sup := testkit.Start(t, cmd, "supervisord's stderr", &stderr)
	logFile := filepath.Join(logs, "default.log")
	testkit.Eventually(t, "busctl status to reach the agent's supervisord", func() bool {
		if testkit.Closed(sup.Done()) {
			t.Fatalf("supervisord exited: %v", sup.Err())
		}
		st := exec.Command(filepath.Join(bin, "busctl"), "status")
		st.Env = env
		return st.Run() == nil
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sup.Done():
		if err := sup.Err(); err != nil {
			t.Errorf("supervisord exited with %v: launchd would restart it", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("supervisord still running 15s after SIGINT")
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	n := 0
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			t.Errorf("%s: a line that is not JSON: %q", logFile, sc.Text())
		}
		n++
	}
	if n == 0 || !bytes.Contains(b, []byte("serving")) {
		t.Errorf("%s (%d lines) does not say it serves:\n%s", logFile, n, b)
	}
}

// installLines are the command lines of INSTALL's "Install for your user"
// paragraph (the indented lines, continuations joined), without the lines
// that only show the log.
func installLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "\nInstall for your user")
	if !ok {
		t.Fatalf("%s has no paragraph \"Install for your user\"", file)
	}
	var lines []string
	in, cont := false, false
	for _, l := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(l, "  "):
			in = true
			cmd, _, _ := strings.Cut(strings.TrimSpace(l), "   #")
			if cont {
				lines[len(lines)-1] += "\n" + cmd
			} else if !strings.HasPrefix(cmd, "tail ") {
				lines = append(lines, cmd)
			}
			cont = strings.HasSuffix(cmd, "\\")
		case in:
			return lines
		}
	}
	return lines
}

// parsePlist decodes an XML property list into Go values: dict
// map[string]any, array []any, string, integer int64, true and false bool.
func parsePlist(b []byte) (map[string]any, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "plist" {
				return nil, fmt.Errorf("root element %s, want plist", se.Name.Local)
			}
			v, err := plistValue(dec)
			if err != nil {
				return nil, err
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("the plist holds %T, want a dict", v)
			}
			return m, nil
		}
	}
}

var errEnd = errors.New("end of container")

// plistValue reads the next value; errEnd at its container's end tag.
func plistValue(dec *xml.Decoder) (any, error) {
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.EndElement:
			return nil, errEnd
		case xml.StartElement:
			switch tok.Name.Local {
			case "dict":
				m := map[string]any{}
				for {
					k, err := plistValue(dec)
					if err == errEnd {
						return m, nil
					}
					if err != nil {
						return nil, err
					}
					key, ok := k.(plistKey)
					if !ok {
						return nil, fmt.Errorf("dict: %v where a key belongs", k)
					}
					v, err := plistValue(dec)
					if err != nil {
						return nil, fmt.Errorf("dict key %s: %v", key, err)
					}
					if _, dup := m[string(key)]; dup {
						return nil, fmt.Errorf("dict key %s twice", key)
					}
					m[string(key)] = v
				}
			case "array":
				var a []any
				for {
					v, err := plistValue(dec)
					if err == errEnd {
						return a, nil
					}
					if err != nil {
						return nil, err
					}
					a = append(a, v)
				}
			case "true", "false":
				if err := dec.Skip(); err != nil {
					return nil, err
				}
				return tok.Name.Local == "true", nil
			case "key", "string", "integer":
				var s string
				if err := dec.DecodeElement(&s, &tok); err != nil {
					return nil, err
				}
				switch tok.Name.Local {
				case "key":
					return plistKey(s), nil
				case "integer":
					return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
				}
				return s, nil
			default:
				return nil, fmt.Errorf("element %s is not handled", tok.Name.Local)
			}
		}
	}
}

type plistKey string
