package main

import (
	"fmt"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/launch"
)

// launchTemplateConfig is one template of the config file's
// launch_templates section (docs/launch.md): what an allowed user may
// start from the chat, and where. Off while there is none.
type launchTemplateConfig struct {
	// Argv is the program and its arguments, run as they are (no shell).
	Argv []string `yaml:"argv"`
	// Dirs are project directories; Roots, directories whose immediate
	// subdirectories are the projects.
	Dirs  []string `yaml:"dirs"`
	Roots []string `yaml:"roots"`
	// Env is added to the session's environment.
	Env map[string]string `yaml:"env"`
	// MaxRunning bounds the template's sessions at once. If unset, 1.
	MaxRunning int `yaml:"max_running"`
	// StopKeys end the session the agent's own way ("/exit", "Enter");
	// if unset, C-c. Then SIGTERM, then SIGKILL, StopTimeout apart.
	StopKeys    []string `yaml:"stop_keys"`
	StopTimeout duration `yaml:"stop_timeout"`
	// RegisterTimeout bounds the wait for the session's follower. If
	// unset, 60s.
	RegisterTimeout duration `yaml:"register_timeout"`
	// Answers are typed when a starting session's screen shows them.
	Answers []launchAnswerConfig `yaml:"answers"`
}

type launchAnswerConfig struct {
	Screen string   `yaml:"screen"`
	Keys   []string `yaml:"keys"`
}

// checkLaunchTemplates checks the launch_templates section's shape: a
// mapping of template names, each a mapping of the template's keys (each
// name once). What the values mean is checkLaunch's.
func checkLaunchTemplates(m *yaml.Node, lines map[string]int) []problem {
	if m.Kind != yaml.MappingNode {
		return []problem{{line: m.Line, key: "launch_templates", why: "want a mapping of template names (e.g. claude:), got " + nodeKind(m)}}
	}
	var probs []problem
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "launch_templates." + k.Value
		if first, ok := seen[k.Value]; ok {
			probs = append(probs, problem{line: k.Line, key: key, why: fmt.Sprintf("a second template of this name (the first is at line %d)", first)})
			continue
		}
		seen[k.Value] = k.Line
		lines[key] = k.Line
		if v.Kind != yaml.MappingNode {
			probs = append(probs, problem{line: v.Line, key: key, why: "want a mapping of the template's keys (argv, dirs or roots, …), got " + nodeKind(v)})
			continue
		}
		probs = append(probs, checkStruct(v, reflect.TypeOf(launchTemplateConfig{}), key+".", lines)...)
	}
	return probs
}

// launchTemplates returns the templates in the file's order.
func (c *config) launchTemplates() []launch.Template {
	names := make([]string, 0, len(c.LaunchTemplates))
	for name := range c.LaunchTemplates {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		return c.lines["launch_templates."+names[i]] < c.lines["launch_templates."+names[j]]
	})
	out := make([]launch.Template, 0, len(names))
	for _, name := range names {
		tc := c.LaunchTemplates[name]
		t := launch.Template{Name: name, Argv: tc.Argv, Dirs: tc.Dirs, Roots: tc.Roots, Env: tc.Env, Max: tc.MaxRunning,
			StopKeys: tc.StopKeys, StopTimeout: time.Duration(tc.StopTimeout), RegisterTimeout: time.Duration(tc.RegisterTimeout)}
		for _, a := range tc.Answers {
			t.Answers = append(t.Answers, launch.Answer{Screen: a.Screen, Keys: a.Keys})
		}
		out = append(out, t)
	}
	return out
}

// checkLaunch checks the templates' values (launch.Check: the program on
// PATH, the directories, the projects' names, …) and the bounds written.
func (c *config) checkLaunch() []problem {
	if _, present := c.lines["launch_templates"]; !present {
		return nil
	}
	var probs []problem
	add := func(key, why string) {
		probs = append(probs, problem{line: c.line(key), key: key, why: why})
	}
	ts := c.launchTemplates()
	for _, t := range ts {
		key := "launch_templates." + t.Name + "."
		if _, ok := c.lines[key+"max_running"]; ok && t.Max == 0 {
			add(key+"max_running", "0 is out of range: at least 1 (leave it out for 1)")
		}
		for k, d := range map[string]time.Duration{"stop_timeout": t.StopTimeout, "register_timeout": t.RegisterTimeout} {
			if _, ok := c.lines[key+k]; ok && d == 0 {
				add(key+k, "0s is out of range: more than 0")
			}
		}
	}
	for _, p := range launch.Check(ts, exec.LookPath) {
		key := "launch_templates"
		if p.Template != "" {
			key += "." + p.Template
		}
		if p.Key != "" {
			key += "." + p.Key
		}
		add(key, p.Why)
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].line < probs[j].line })
	return probs
}

// launchServer is the section as the server takes it.
func (c *config) launchServer() server.LaunchConfig {
	return server.LaunchConfig{Templates: c.launchTemplates()}
}

// launchStartOnly renders the templates for a reload's comparison: a
// change needs a restart.
func (c *config) launchStartOnly() string {
	var b strings.Builder
	for _, t := range c.launchTemplates() {
		fmt.Fprintf(&b, "%+v;", t)
	}
	return b.String()
}
