package launch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatbus/chatbus/server/control"
)

// TestCheck: each refusal of a template names the template, the key and
// why; a good template has none.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	web := mkdir(t, dir, "src", "web")
	other := mkdir(t, dir, "elsewhere", "web")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	lookPath := func(name string) (string, error) {
		if name == "claude" || name == "tmux" {
			return "/usr/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
	good := func() Template {
		return Template{Name: "claude", Argv: []string{"claude", "--dangerously-load-development-channels", "server:chatbus"}, Dirs: []string{web}}
	}
	tests := []struct {
		name      string
		edit      func(*Template)
		second    *Template
		lookPath  func(string) (string, error)
		key, want string
	}{
		{name: "good", edit: func(*Template) {}},
		{name: "name", edit: func(t *Template) { t.Name = "Claude Code" }, want: "a template name is lower-case letters"},
		{name: "duplicate name", edit: func(*Template) {}, second: &Template{Name: "claude", Argv: []string{"claude"}, Dirs: []string{web}}, want: "a second template of this name"},
		{name: "empty argv", edit: func(t *Template) { t.Argv = nil }, key: "argv", want: "empty: name the program"},
		{name: "empty program", edit: func(t *Template) { t.Argv = []string{"", "x"} }, key: "argv", want: "the program (the first element) is empty"},
		{name: "program not on PATH", edit: func(t *Template) { t.Argv = []string{"claud"} }, key: "argv", want: `"claud": no such program on PATH`},
		{name: "NUL in an argument", edit: func(t *Template) { t.Argv = append(t.Argv, "a\x00b") }, key: "argv", want: "element 3 holds a NUL byte"},
		{name: "no projects", edit: func(t *Template) { t.Dirs = nil }, want: "no projects: name dirs"},
		{name: "relative dir", edit: func(t *Template) { t.Dirs = []string{"src/web"} }, key: "dirs", want: `"src/web": want an absolute path`},
		{name: "missing dir", edit: func(t *Template) { t.Dirs = []string{filepath.Join(dir, "gone")} }, key: "dirs", want: "no such file or directory"},
		{name: "dir is a file", edit: func(t *Template) { t.Dirs = []string{file} }, key: "dirs", want: "not a directory"},
		{name: "missing root", edit: func(t *Template) { t.Roots = []string{filepath.Join(dir, "gone")} }, key: "roots", want: "no such file or directory"},
		{name: "two projects of one name", edit: func(t *Template) { t.Dirs = append(t.Dirs, other) }, key: "dirs", want: `are both project "web"`},
		{name: "env name", edit: func(t *Template) { t.Env = map[string]string{"A-B": "1"} }, key: "env", want: `"A-B" is not an environment variable name`},
		{name: "env launch id", edit: func(t *Template) { t.Env = map[string]string{EnvLaunchID: "x"} }, key: "env", want: "CHATBUS_LAUNCH_ID is chatbus's own"},
		{name: "max", edit: func(t *Template) { t.Max = -1 }, key: "max_running", want: "-1 is out of range: at least 1"},
		{name: "empty stop key", edit: func(t *Template) { t.StopKeys = []string{"/exit", ""} }, key: "stop_keys", want: "element 1 is empty"},
		{name: "answer without screen", edit: func(t *Template) { t.Answers = []Answer{{Keys: []string{"Enter"}}} }, key: "answers", want: "answer 0: screen is empty"},
		{name: "answer without keys", edit: func(t *Template) { t.Answers = []Answer{{Screen: "Continue?"}} }, key: "answers", want: "answer 0: keys: name the keys"},
		{name: "no tmux", edit: func(*Template) {}, lookPath: func(name string) (string, error) {
			if name == "tmux" {
				return "", exec.ErrNotFound
			}
			return lookPath(name)
		}, want: "launched sessions run in tmux, which is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := good()
			tt.edit(&tmpl)
			ts := []Template{tmpl}
			if tt.second != nil {
				ts = append(ts, *tt.second)
			}
			lp := lookPath
			if tt.lookPath != nil {
				lp = tt.lookPath
			}
			probs := Check(ts, lp)
			if tt.want == "" {
				if len(probs) > 0 {
					t.Fatalf("problems with a good template: %+v", probs)
				}
				return
			}
			if len(probs) != 1 {
				t.Fatalf("problems %+v, want one: %s", probs, tt.want)
			}
			if p := probs[0]; p.Key != tt.key || !strings.Contains(p.Why, tt.want) {
				t.Errorf("problem %+v, want key %q and %q", p, tt.key, tt.want)
			}
		})
	}
}

// TestProject: a project is a name of the template's list; a path, "..",
// a hidden directory, a name not there and a symbolic link leading out of
// its root are refused (a *control.Refusal naming the projects), and a
// link that stays inside its root is followed.
func TestProject(t *testing.T) {
	dir := t.TempDir()
	root := mkdir(t, dir, "src")
	web := mkdir(t, root, "web")
	mkdir(t, root, "api")
	mkdir(t, root, ".hidden")
	outside := mkdir(t, dir, "secret")
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret", filepath.Join(root, "relescape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(web, filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	tmpl := Template{Name: "claude", Argv: []string{"claude"}, Roots: []string{root}}
	if got, want := strings.Join(tmpl.Projects(), ","), "alias,api,web"; got != want {
		t.Errorf("projects %s, want %s (hidden and escaping ones left out)", got, want)
	}
	tests := []struct {
		name, project, dir, refusal string
	}{
		{name: "a project", project: "web", dir: web},
		{name: "a link inside the root", project: "alias", dir: web},
		{name: "none named, several", project: "", refusal: "template claude: name a project; the projects of template claude: alias, api, web"},
		{name: "dot dot", project: "..", refusal: `project "..": not a project name`},
		{name: "dot dot path", project: "../secret", refusal: `project "../secret": a project is a name, not a path`},
		{name: "absolute", project: "/etc", refusal: `project "/etc": a project is a name, not a path`},
		{name: "subdirectory", project: "web/sub", refusal: "a project is a name, not a path"},
		{name: "hidden", project: ".hidden", refusal: "not a project name"},
		{name: "control character", project: "we\nb", refusal: "a project is a name"},
		{name: "not there", project: "nope", refusal: `template claude has no project "nope"; the projects of template claude: alias, api, web`},
		{name: "symbolic link escape", project: "escape", refusal: "project escape: its directory leads outside " + root},
		{name: "relative symbolic link escape", project: "relescape", refusal: "leads outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tmpl.Project(tt.project)
			if tt.refusal == "" {
				real, _ := filepath.EvalSymlinks(tt.dir)
				if err != nil || got != real {
					t.Fatalf("Project(%q) = %q, %v; want %q", tt.project, got, err, real)
				}
				return
			}
			var r *control.Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tt.refusal) {
				t.Fatalf("Project(%q) = %q, %v; want a refusal saying %q", tt.project, got, err, tt.refusal)
			}
		})
	}

	// Named dirs: the first is the default; a dir named twice by base
	// name is the config's problem (Check), not a choice here.
	named := Template{Name: "pi", Argv: []string{"pi"}, Dirs: []string{web, outside}}
	if name, d, err := named.project(""); err != nil || name != "web" || d != web {
		t.Errorf("the default project: %q %q %v, want web", name, d, err)
	}
	if _, err := named.Project("api"); err == nil {
		t.Errorf("a project of no dir was found")
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
