package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/launch"
)

// TestLaunchTemplatesConfig: launch_templates as the config file says
// them, and each refusal of --check-config as one line naming the key.
func TestLaunchTemplatesConfig(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed on PATH (launched sessions run in it): apt-get install tmux")
	}
	dir := t.TempDir()
	web := filepath.Join(dir, "web")
	if err := os.Mkdir(web, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	good := "launch_templates:\n  claude:\n    argv: [" + exe + ", --dangerously-load-development-channels, server:chatbus]\n    dirs: [" + web + "]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{name: "good", yaml: good},
		{name: "not a mapping", yaml: "launch_templates: [claude]\n", want: "line 1: launch_templates: want a mapping of template names"},
		{name: "template not a mapping", yaml: "launch_templates:\n  claude: yes\n", want: "line 2: launch_templates.claude: want a mapping of the template's keys"},
		{name: "unknown key", yaml: good + "    argvv: [x]\n", want: "line 5: launch_templates.claude.argvv: unknown key; did you mean argv?"},
		{name: "duplicate name", yaml: good + "  claude:\n    argv: [x]\n", want: "line 5: launch_templates.claude: a second template of this name (the first is at line 2)"},
		{name: "bad name", yaml: strings.Replace(good, "claude:", "Claude Code:", 1), want: "line 2: launch_templates.Claude Code: a template name is lower-case letters"},
		{name: "empty argv", yaml: "launch_templates:\n  claude:\n    argv: []\n    dirs: [" + web + "]\n", want: "line 3: launch_templates.claude.argv: empty: name the program"},
		{name: "argv not a list", yaml: "launch_templates:\n  claude:\n    argv: claude --x\n", want: "line 3: launch_templates.claude.argv: want a list of strings"},
		{name: "program not on PATH", yaml: strings.Replace(good, exe, "claude-not-installed", 1), want: `line 3: launch_templates.claude.argv: "claude-not-installed": no such program on PATH`},
		{name: "no projects", yaml: "launch_templates:\n  claude:\n    argv: [" + exe + "]\n", want: "line 2: launch_templates.claude: no projects"},
		{name: "missing dir", yaml: strings.Replace(good, web, filepath.Join(dir, "gone"), 1), want: "line 4: launch_templates.claude.dirs: " + filepath.Join(dir, "gone") + ": no such file or directory"},
		{name: "relative root", yaml: good + "    roots: [src]\n", want: `line 5: launch_templates.claude.roots: "src": want an absolute path`},
		{name: "env not a mapping", yaml: good + "    env: [A=1]\n", want: "line 5: launch_templates.claude.env: want a mapping of names to strings"},
		{name: "env launch id", yaml: good + "    env: {CHATBUS_LAUNCH_ID: x}\n", want: "line 5: launch_templates.claude.env: CHATBUS_LAUNCH_ID is chatbus's own"},
		{name: "limit zero", yaml: good + "    max_running: 0\n", want: "line 5: launch_templates.claude.max_running: 0 is out of range: at least 1"},
		{name: "limit negative", yaml: good + "    max_running: -2\n", want: "line 5: launch_templates.claude.max_running: -2 is out of range: at least 1"},
		{name: "stop timeout zero", yaml: good + "    stop_timeout: 0s\n", want: "line 5: launch_templates.claude.stop_timeout: 0s is out of range"},
		{name: "stop timeout not a duration", yaml: good + "    stop_timeout: soon\n", want: `line 5: launch_templates.claude.stop_timeout: "soon" is not a duration`},
		{name: "answer not a mapping", yaml: good + "    answers: [Enter]\n", want: "line 5: launch_templates.claude.answers: want a list of mappings"},
		{name: "answer unknown key", yaml: good + "    answers:\n      - screen: x\n        key: [Enter]\n", want: "line 7: launch_templates.claude.answers.0.key: unknown key; did you mean keys?"},
		{name: "answer without keys", yaml: good + "    answers:\n      - screen: x\n", want: "line 5: launch_templates.claude.answers: answer 0: keys: name the keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &config{path: "c.yaml", lines: map[string]int{}, found: true}
			err := c.parse([]byte(tt.yaml))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("taken (%v), want %q", err, tt.want)
			}
			var lines []string
			for _, p := range ce.Problems {
				lines = append(lines, p.String())
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) {
				t.Errorf("problems %q, want one: %q", lines, tt.want)
			}
		})
	}

	// A full template, as the server takes it.
	full := good + `    roots: [` + dir + `]
    env: {CHATBUS_ACK_REACTION: "👀"}
    max_running: 2
    stop_keys: [/exit, Enter]
    stop_timeout: 5s
    register_timeout: 2m
    answers:
      - screen: I am using this for local development
        keys: [Enter]
  shell:
    argv: [` + exe + `]
    dirs: [` + web + `]
`
	c := &config{path: "c.yaml", lines: map[string]int{}, found: true}
	if err := c.parse([]byte(full)); err != nil {
		t.Fatal(err)
	}
	ts := c.launchServer().Templates
	if len(ts) != 2 || ts[0].Name != "claude" || ts[1].Name != "shell" {
		t.Fatalf("templates %+v", ts)
	}
	want := launch.Template{Name: "claude", Argv: []string{exe, "--dangerously-load-development-channels", "server:chatbus"},
		Dirs: []string{web}, Roots: []string{dir}, Env: map[string]string{"CHATBUS_ACK_REACTION": "👀"}, Max: 2,
		StopKeys: []string{"/exit", "Enter"}, StopTimeout: 5 * time.Second, RegisterTimeout: 2 * time.Minute,
		Answers: []launch.Answer{{Screen: "I am using this for local development", Keys: []string{"Enter"}}}}
	got := ts[0]
	if got.Name != want.Name || !slices.Equal(got.Argv, want.Argv) || !slices.Equal(got.Dirs, want.Dirs) || !slices.Equal(got.Roots, want.Roots) ||
		got.Env["CHATBUS_ACK_REACTION"] != "👀" || got.Max != 2 || !slices.Equal(got.StopKeys, want.StopKeys) ||
		got.StopTimeout != want.StopTimeout || got.RegisterTimeout != want.RegisterTimeout ||
		len(got.Answers) != 1 || got.Answers[0].Screen != want.Answers[0].Screen || !slices.Equal(got.Answers[0].Keys, want.Answers[0].Keys) {
		t.Errorf("template %+v, want %+v", got, want)
	}
}
