package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/chatbus/chatbus/server/control"
)

// Template is a launch template of the config file: the one program a
// person may start from the chat, and where.
type Template struct {
	// Name is what the person types (new <name> <project>).
	Name string
	// Argv is the program and its arguments, run as they are: no shell,
	// nothing from the chat added.
	Argv []string
	// Dirs are project directories named one by one; a project is named
	// by its directory's base name.
	Dirs []string
	// Roots are directories whose immediate subdirectories are the
	// projects (hidden ones left out).
	Roots []string
	// Env is added to the session's environment.
	Env map[string]string
	// Max bounds the sessions of the template running at once. If zero, 1.
	Max int
	// StopKeys are typed into the session to end it the agent's own way
	// (tmux key names or text, one element at a time: "/exit", "Enter").
	// If empty, C-c.
	StopKeys []string
	// StopTimeout is how long each step of a stop (the keys, SIGTERM)
	// waits for the session to end before the next. If zero, 10s.
	StopTimeout time.Duration
	// RegisterTimeout is how long a start waits for the session's
	// follower to register. If zero, 60s.
	RegisterTimeout time.Duration
	// Answers are typed into a starting session when its screen shows
	// their text, once each, until its follower registers (a prompt the
	// template's author has decided to answer, such as Claude Code's
	// development-channel warning).
	Answers []Answer
}

// Answer is keys typed when the screen shows a text.
type Answer struct {
	Screen string
	Keys   []string
}

// Defaults of a template's unset fields.
const (
	DefaultMax             = 1
	DefaultStopTimeout     = 10 * time.Second
	DefaultRegisterTimeout = 60 * time.Second
)

func (t Template) max() int {
	if t.Max > 0 {
		return t.Max
	}
	return DefaultMax
}

func (t Template) stopTimeout() time.Duration { return orDefault(t.StopTimeout, DefaultStopTimeout) }

func (t Template) registerTimeout() time.Duration {
	return orDefault(t.RegisterTimeout, DefaultRegisterTimeout)
}
func (t Template) stopKeys() []string {
	if len(t.StopKeys) == 0 {
		return []string{"C-c"}
	}
	return t.StopKeys
}

func orDefault(v, def time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return def
}

// EnvLaunchID names the environment variable that carries a launched
// session's launch id; its follower sends it when it registers.
const EnvLaunchID = "CHATBUS_LAUNCH_ID"

// Problem is one thing wrong with a template, in the config file's words:
// Key is the template's key ("argv", "dirs") or "" for the template.
type Problem struct {
	Template string
	Key      string
	Why      string
}

var (
	templateName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	envName      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Check says what is wrong with templates, each problem naming the
// template and the key: names, the program (found with lookPath, as
// exec.LookPath), the directories (absolute, existing), the projects'
// names (no two alike), the environment, the bounds, the stop keys and
// answers; and tmux, which runs them (found with lookPath too).
func Check(templates []Template, lookPath func(string) (string, error)) []Problem {
	var probs []Problem
	seen := map[string]bool{}
	for _, t := range templates {
		add := func(key, why string, args ...any) {
			probs = append(probs, Problem{Template: t.Name, Key: key, Why: fmt.Sprintf(why, args...)})
		}
		switch {
		case !templateName.MatchString(t.Name):
			add("", "a template name is lower-case letters, digits, '-' and '_', at most 32 (the person types it)")
		case seen[t.Name]:
			add("", "a second template of this name")
		}
		seen[t.Name] = true
		switch {
		case len(t.Argv) == 0:
			add("argv", "empty: name the program and its arguments, e.g. [claude, --dangerously-load-development-channels, server:chatbus]")
		case t.Argv[0] == "":
			add("argv", "the program (the first element) is empty")
		default:
			if _, err := lookPath(t.Argv[0]); err != nil {
				add("argv", "%q: no such program on PATH (install it, or name it by its full path)", t.Argv[0])
			}
		}
		for i, a := range t.Argv {
			if strings.ContainsRune(a, 0) {
				add("argv", "element %d holds a NUL byte", i)
			}
		}
		if len(t.Dirs) == 0 && len(t.Roots) == 0 {
			add("", "no projects: name dirs (project directories) or roots (directories whose subdirectories are the projects)")
		}
		names := map[string]string{}
		for key, dirs := range map[string][]string{"dirs": t.Dirs, "roots": t.Roots} {
			for _, d := range dirs {
				if why := checkDir(d); why != "" {
					add(key, "%s", why)
					continue
				}
				if key == "dirs" {
					base := filepath.Base(filepath.Clean(d))
					if other, ok := names[base]; ok {
						add("dirs", "%s and %s are both project %q: a project is named by its directory's base name", other, d, base)
					}
					names[base] = d
				}
			}
		}
		envKeys := make([]string, 0, len(t.Env))
		for k := range t.Env {
			envKeys = append(envKeys, k)
		}
		sort.Strings(envKeys)
		for _, k := range envKeys {
			switch {
			case !envName.MatchString(k):
				add("env", "%q is not an environment variable name (letters, digits, '_')", k)
			case k == EnvLaunchID:
				add("env", "%s is chatbus's own: it tells the session's follower which launch it is", k)
			case strings.ContainsRune(t.Env[k], 0):
				add("env", "%s holds a NUL byte", k)
			}
		}
		if t.Max < 0 {
			add("max_running", "%d is out of range: at least 1", t.Max)
		}
		if t.StopTimeout < 0 || t.RegisterTimeout < 0 {
			add("", "a timeout is negative")
		}
		for i, k := range t.StopKeys {
			if k == "" {
				add("stop_keys", "element %d is empty", i)
			}
		}
		for i, a := range t.Answers {
			if a.Screen == "" {
				add("answers", "answer %d: screen is empty (the text it answers)", i)
			}
			if len(a.Keys) == 0 || slices.Contains(a.Keys, "") {
				add("answers", "answer %d: keys: name the keys to type, none empty", i)
			}
		}
	}
	if len(templates) > 0 {
		if _, err := lookPath("tmux"); err != nil {
			probs = append(probs, Problem{Why: "launched sessions run in tmux, which is not installed (apt-get install tmux, brew install tmux)"})
		}
	}
	return probs
}

// checkDir says what is wrong with d as a project directory or root.
func checkDir(d string) string {
	if !filepath.IsAbs(d) {
		return fmt.Sprintf("%q: want an absolute path", d)
	}
	fi, err := os.Stat(d)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: %v", d, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Sprintf("%s: not a directory", d)
	}
	return ""
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Projects lists the template's projects by name, in order: its dirs,
// then each root's subdirectories (sorted; hidden ones, and those that
// lead outside their root, left out).
func (t Template) Projects() []string {
	var out []string
	for _, d := range t.Dirs {
		out = append(out, filepath.Base(filepath.Clean(d)))
	}
	for _, r := range t.Roots {
		ents, err := os.ReadDir(r)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") || slices.Contains(out, name) {
				continue
			}
			if _, err := inRoot(r, name); err == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

// Project finds the directory of project name (as the person typed it)
// among the template's, resolved (symbolic links followed). Anything but
// a name of the list is a *control.Refusal saying why: a path, "..", a
// name not there, a subdirectory of a root that leads outside it.
func (t Template) Project(name string) (string, error) {
	refuse := func(why string, args ...any) error {
		return &control.Refusal{Reason: fmt.Sprintf(why, args...) + t.listing()}
	}
	if name == "" {
		var err error
		if name, err = t.defaultProject(); err != nil {
			return "", err
		}
	}
	switch {
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", refuse("project %q: a project is a name", name)
	case filepath.IsAbs(name) || strings.ContainsAny(name, `/\`):
		return "", refuse("project %q: a project is a name, not a path", name)
	case name == "." || name == ".." || strings.HasPrefix(name, "."):
		return "", refuse("project %q: not a project name", name)
	}
	for _, d := range t.Dirs {
		if filepath.Base(filepath.Clean(d)) == name {
			real, err := filepath.EvalSymlinks(d)
			if err != nil {
				return "", refuse("project %s: its directory %s is gone (%v)", name, d, unwrapPath(err))
			}
			return real, nil
		}
	}
	var escaped string
	for _, r := range t.Roots {
		dir, err := inRoot(r, name)
		if err == nil {
			return dir, nil
		}
		if err == errEscapes {
			escaped = r
		}
	}
	if escaped != "" {
		return "", refuse("project %s: its directory leads outside %s (a symbolic link), so it is not one of the projects", name, escaped)
	}
	return "", refuse("template %s has no project %q", t.Name, name)
}

// defaultProject is the project of a new that names none: the first of
// dirs, else the only one of the roots.
func (t Template) defaultProject() (string, error) {
	projects := t.Projects()
	if len(t.Dirs) > 0 || len(projects) == 1 {
		return projects[0], nil
	}
	return "", &control.Refusal{Reason: fmt.Sprintf("template %s: name a project", t.Name) + t.listing()}
}

// listing ends a refusal with the template's projects.
func (t Template) listing() string {
	p := t.Projects()
	if len(p) == 0 {
		return fmt.Sprintf("; template %s has no project directory now", t.Name)
	}
	return fmt.Sprintf("; the projects of template %s: %s", t.Name, strings.Join(p, ", "))
}

var (
	errEscapes = fmt.Errorf("leads outside its root")
	errNoDir   = fmt.Errorf("no such project directory")
)

// inRoot resolves root/name: a directory that, its symbolic links
// followed, is inside root (itself resolved).
func inRoot(root, name string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", errNoDir
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, name))
	if err != nil {
		return "", errNoDir
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errEscapes
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", errNoDir
	}
	return real, nil
}
