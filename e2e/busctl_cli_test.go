package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// bgBusctl is a busctl that keeps running (a watch, events --follow).
type bgBusctl struct {
	cmd            *exec.Cmd
	stdout, stderr *testkit.SyncBuffer
	exited         chan struct{}
	code           int
}

func (p *profile) busctlBG(args ...string) *bgBusctl {
	p.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "busctl"), args...)
	cmd.Env = p.env()
	b := &bgBusctl{cmd: cmd, stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = b.stdout, b.stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			b.code = ee.ExitCode()
		} else if err != nil {
			b.code = -1
		}
		close(b.exited)
	}()
	t := p.t
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-b.exited
		if t.Failed() {
			t.Logf("busctl %v stdout:\n%s\nstderr:\n%s", args, b.stdout.String(), b.stderr.String())
		}
	})
	return b
}

// waitOut waits until ok(stdout) holds, within 20s.
func (b *bgBusctl) waitOut(t *testing.T, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok(b.stdout.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("busctl %v never printed %s:\n%s\nstderr:\n%s", b.cmd.Args[1:], what, b.stdout.String(), b.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for busctl to exit, within 20s, and returns its code.
func (b *bgBusctl) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-b.exited:
		return b.code
	case <-time.After(20 * time.Second):
		t.Fatalf("busctl %v still running:\n%s", b.cmd.Args[1:], b.stderr.String())
		return 0
	}
}

// dial connects a Go client to p's supervisor.
func (p *profile) dial() *client.Client {
	p.t.Helper()
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.Close() })
	return c
}

// servePlayground starts supervisord with the default playground, waits
// until the playground serves, and dials it.
func (p *profile) servePlayground() (*daemon, *client.Client) {
	p.t.Helper()
	d := p.start()
	p.waitServing(d)
	c := p.dial()
	waitOnlyProvider(p.t, c, d, "playground", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetServing() && pi.GetPlatform() != ""
	}, "serving")
	return d, c
}

// register registers a follower that reads nothing; closing it
// unregisters it.
func register(t *testing.T, c *client.Client, key string) *client.Follower {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := c.Register(ctx, client.Registration{ProfileKey: key, Cwd: "/w/" + key, InstanceID: key + "-1", ThreadName: "t-" + key})
	if err != nil {
		t.Fatalf("register %s: %v", key, err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

// sameTree fails unless the JSON document j and the YAML document y hold
// the same tree, less the top-level or per-item fields named in volatile.
func sameTree(t *testing.T, what string, j, y string, volatile ...string) {
	t.Helper()
	var fromJSON, fromYAML any
	if err := json.Unmarshal([]byte(j), &fromJSON); err != nil {
		t.Fatalf("%s -o json: %v\n%s", what, err, j)
	}
	if err := yaml.Unmarshal([]byte(y), &fromYAML); err != nil {
		t.Fatalf("%s -o yaml: %v\n%s", what, err, y)
	}
	b, _ := json.Marshal(fromYAML)
	var again any
	json.Unmarshal(b, &again)
	drop := func(v any) any {
		if l, ok := v.([]any); ok {
			for _, x := range l {
				if m, ok := x.(map[string]any); ok {
					for _, k := range volatile {
						delete(m, k)
					}
				}
			}
		}
		return v
	}
	if !reflect.DeepEqual(drop(fromJSON), drop(again)) {
		t.Errorf("%s: -o json and -o yaml differ:\n%s\n---\n%s", what, j, y)
	}
}

// TestBusctlOutputFormats: -o json|yaml|wide|name beside --json on a
// real supervisor: json and yaml are the same record, --json is -o json,
// name prints the names, wide adds columns, the platform column is there,
// and a format a command cannot print is a usage error (exit 2).
func TestBusctlOutputFormats(t *testing.T) {
	p := newProfile(t)
	_, c := p.servePlayground()
	register(t, c, "manual:fmt")

	for _, verb := range []string{"providers", "bindings", "followers", "status", "updates manual:fmt", "console", "paths", "doctor status"} {
		t.Run(verb, func(t *testing.T) {
			args := strings.Fields(verb)
			j, errOut, code := p.busctl(append(args, "-o", "json")...)
			if code != 0 {
				t.Fatalf("-o json: exit %d: %s", code, errOut)
			}
			y, errOut, code := p.busctl(append(args, "-o", "yaml")...)
			if code != 0 {
				t.Fatalf("-o yaml: exit %d: %s", code, errOut)
			}
			legacy, _, code := p.busctl(append(args, "--json")...)
			if code != 0 {
				t.Fatalf("--json: exit %d", code)
			}
			// A follower's heartbeat and the playground's start moves
			// between two calls; the rest is the same record.
			sameTree(t, verb, j, y, "last_heartbeat")
			sameTree(t, verb+" (--json)", legacy, j, "last_heartbeat")
		})
	}

	names := []struct{ verb, want string }{
		{"providers", "playground\n"},
		{"bindings", "manual:fmt\n"},
		{"followers", "manual:fmt-1\n"},
	}
	for _, tt := range names {
		out, errOut, code := p.busctl(tt.verb, "-o", "name")
		if code != 0 || out != tt.want {
			t.Errorf("%s -o name = %q (exit %d, %s), want %q", tt.verb, out, code, errOut, tt.want)
		}
	}

	header := func(out string) []string {
		return regexp.MustCompile(`\s{2,}`).Split(strings.SplitN(out, "\n", 2)[0], -1)
	}
	for _, tt := range []struct {
		verb     string
		want     []string // in the table
		wideOnly []string
	}{
		{"followers", []string{"INSTANCE", "PLATFORM", "PROFILE KEY"}, []string{"CWD"}},
		{"bindings", []string{"PROFILE KEY", "PLATFORM", "STATUS"}, []string{"OWNER", "LAST SEQ"}},
		{"providers", []string{"NAME", "PLATFORM", "STATE", "HEALTH"}, []string{"ACCOUNT", "HEALTH SINCE", "PAGE"}},
	} {
		out, _, _ := p.busctl(tt.verb)
		wide, _, _ := p.busctl(tt.verb, "-o", "wide")
		for _, h := range tt.want {
			if !slices.Contains(header(out), h) || !slices.Contains(header(wide), h) {
				t.Errorf("%s: no %s column:\n%s\n%s", tt.verb, h, out, wide)
			}
		}
		for _, h := range tt.wideOnly {
			if slices.Contains(header(out), h) || !slices.Contains(header(wide), h) {
				t.Errorf("%s: %s should be a -o wide column only:\n%s\n%s", tt.verb, h, out, wide)
			}
		}
		if !strings.Contains(strings.SplitN(out, "\n", 3)[1], "playground") {
			t.Errorf("%s: the row names no platform:\n%s", tt.verb, out)
		}
	}
	out, _, _ := p.busctl("followers", "-o", "wide")
	contains(t, "followers -o wide", out, "/w/manual:fmt")

	// The health summary.
	out, _, _ = p.busctl("status")
	if !regexp.MustCompile(`(?m)^providers\s+1 serving$`).MatchString(out) {
		t.Errorf("status has no provider summary:\n%s", out)
	}

	// Events: one JSON object a line, one YAML document each.
	out, _, _ = p.busctl("events", "-o", "yaml")
	dec := yaml.NewDecoder(strings.NewReader(out))
	kinds := map[string]bool{}
	for {
		var e struct{ Kind string }
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("events -o yaml: %v\n%s", err, out)
		}
		kinds[e.Kind] = true
	}
	if !kinds["EVENT_KIND_SUPERVISOR_STARTED"] || !kinds["EVENT_KIND_FOLLOWER_REGISTERED"] {
		t.Errorf("events -o yaml kinds %v", kinds)
	}

	usage := []struct {
		args []string
		want string
	}{
		{[]string{"status", "-o", "name"}, "busctl status has no names to print"},
		{[]string{"providers", "-o", "xml"}, `unknown output format "xml": want json, yaml, wide, name`},
		{[]string{"providers", "--json", "-o", "yaml"}, "contradict"},
	}
	for _, tt := range usage {
		_, errOut, code := p.busctl(tt.args...)
		if code != 2 {
			t.Errorf("busctl %v: exit %d, want 2", tt.args, code)
		}
		contains(t, "stderr", errOut, tt.want)
	}
}

// waitProviderNamed waits, within 30s, until the provider named name (of
// several) satisfies ok.
func waitProviderNamed(t *testing.T, c *client.Client, d *daemon, name string, ok func(*chatbusv1.ProviderInfo) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, pi := range resp.GetProviders() {
			if pi.GetName() == name && ok(pi) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("provider %s never %s: %v\n%s", name, what, resp, d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBusctlWatchRedrawsOnChange: followers, bindings and providers -w
// print again when the supervisor says something changed, and exit 3
// when it goes away (killed); events --follow too.
func TestBusctlWatchRedrawsOnChange(t *testing.T) {
	p := newProfile(t)
	d, c := p.servePlayground()

	fw := p.busctlBG("followers", "-w")
	bw := p.busctlBG("bindings", "-w", "-o", "yaml")
	pw := p.busctlBG("providers", "--watch", "-o", "json")
	ev := p.busctlBG("events", "--follow")
	fw.waitOut(t, "the first table", func(s string) bool { return strings.Contains(s, "(no followers)") })
	bw.waitOut(t, "the first document", func(s string) bool { return strings.Contains(s, "bindings: []") })
	pw.waitOut(t, "the first document", func(s string) bool { return strings.Contains(s, `"playground"`) })

	f := register(t, c, "manual:w")
	fw.waitOut(t, "the follower", func(s string) bool { return strings.Contains(s, "manual:w-1") })
	bw.waitOut(t, "the binding", func(s string) bool { return strings.Contains(s, "profile_key: manual:w") })
	f.Close(context.Background())
	fw.waitOut(t, "the follower gone", func(s string) bool {
		i := strings.LastIndex(s, "INSTANCE")
		return strings.Contains(s, "manual:w-1") && i > strings.Index(s, "manual:w-1") && strings.Contains(s[i:], "(no followers)")
	})
	// Every snapshot is a table of its own, a blank line apart.
	if out := fw.stdout.String(); strings.Count(out, "INSTANCE") < 3 || strings.Count(out, "\n\nINSTANCE") != strings.Count(out, "INSTANCE")-1 {
		t.Errorf("followers -w snapshots:\n%s", out)
	}

	// A provider restart changes the providers listing.
	if out, errOut, code := p.busctl("doctor", "restart", "playground", "--drain", "10s", "--deadline", "40s"); code != 0 {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	pids := func(s string) map[float64]bool {
		got := map[float64]bool{}
		dec := json.NewDecoder(strings.NewReader(s))
		for {
			var doc struct{ Providers []struct{ Pid float64 } }
			if dec.Decode(&doc) != nil {
				return got
			}
			for _, pr := range doc.Providers {
				if pr.Pid != 0 {
					got[pr.Pid] = true
				}
			}
		}
	}
	pw.waitOut(t, "the successor's pid", func(s string) bool { return len(pids(s)) >= 2 })

	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*bgBusctl{fw, bw, pw, ev} {
		if code := b.waitExit(t); code != 3 {
			t.Errorf("busctl %v after the supervisor was killed: exit %d, want 3\n%s", b.cmd.Args[1:], code, b.stderr.String())
		}
		contains(t, "stderr", b.stderr.String(), "the supervisor went away")
	}
	contains(t, "events --follow", ev.stdout.String(), "follower_registered")
}

// TestBusctlWatchInterrupted: Ctrl-C ends a watch with exit 0.
func TestBusctlWatchInterrupted(t *testing.T) {
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	for _, args := range [][]string{{"providers", "-w"}, {"events", "-f"}} {
		b := p.busctlBG(args...)
		b.waitOut(t, "something", func(s string) bool { return strings.Contains(s, "playground") })
		b.cmd.Process.Signal(syscall.SIGINT)
		if code := b.waitExit(t); code != 0 {
			t.Errorf("busctl %v interrupted: exit %d, want 0: %s", args, code, b.stderr.String())
		}
	}
}

// TestBusctlStop: stop is graceful (supervisord exits 0 by itself, the
// stream of events ends with supervisor_stopping), waits until it has
// exited, and keeps the exit-code table: 3 when there is nothing to stop.
func TestBusctlStop(t *testing.T) {
	p := newProfile(t)
	d := p.start()
	p.waitServing(d)
	ev := p.busctlBG("events", "--follow")
	ev.waitOut(t, "the start", func(s string) bool { return strings.Contains(s, "supervisor_started") })

	out, errOut, code := p.busctl("stop", "-o", "json")
	if code != 0 {
		t.Fatalf("stop: exit %d: %s", code, errOut)
	}
	var st struct {
		Stopped bool   `json:"stopped"`
		PID     int    `json:"pid"`
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || !st.Stopped || st.PID != d.cmd.Process.Pid || st.Profile != "default" {
		t.Errorf("stop -o json = %s (%v)", out, err)
	}
	// stop returned once the process had exited: it has, with status 0.
	select {
	case <-d.exited:
	default:
		t.Fatal("busctl stop returned before supervisord exited")
	}
	if d.err != nil {
		t.Errorf("supervisord exited with %v, want a clean exit", d.err)
	}
	if code := ev.waitExit(t); code != 3 {
		t.Errorf("events --follow after stop: exit %d, want 3", code)
	}
	lines := strings.Split(strings.TrimSpace(ev.stdout.String()), "\n")
	if !strings.Contains(lines[len(lines)-1], "supervisor_stopping") {
		t.Errorf("events --follow did not end with supervisor_stopping:\n%s", ev.stdout.String())
	}

	for _, args := range [][]string{{"status"}, {"stop"}} {
		_, errOut, code := p.busctl(args...)
		if code != 3 {
			t.Errorf("busctl %v after stop: exit %d, want 3: %s", args, code, errOut)
		}
	}
	_, errOut, _ = p.busctl("stop")
	contains(t, "stop twice", errOut, "nothing to stop")
}

// TestBusctlStopTimeout: a supervisord still stopping after --timeout
// (its provider ignores SIGTERM, so it waits out its grace) is exit 1 and
// said so; it then finishes stopping by itself.
func TestBusctlStopTimeout(t *testing.T) {
	p := newProfile(t)
	stubborn := filepath.Join(t.TempDir(), "provider-stubborn")
	// Accepts its settings (--check), then ignores SIGTERM and hangs
	// (exec keeps the ignored disposition) until SIGKILLed.
	os.WriteFile(stubborn, []byte("#!/bin/sh\n[ \"$1\" = --check ] && exit 0\ntrap '' TERM\nexec sleep 60\n"), 0o700)
	cfg := fmt.Sprintf("providers:\n  telegram:\n    binary: %s\n    forum_chat_id: %d\n    start_timeout: 30s\n", stubborn, forumChat)
	d, c, _ := p.serveConfig(cfg)
	waitOnlyProvider(t, c, d, "telegram", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetPid() != 0 }, "started")

	out, errOut, code := p.busctl("stop", "--timeout", "300ms")
	if code != 1 {
		t.Errorf("stop --timeout 300ms: exit %d, want 1\n%s%s", code, out, errOut)
	}
	contains(t, "stop stderr", errOut, fmt.Sprintf("supervisord (pid %d) has not exited 300ms after SIGTERM: it is still stopping", d.cmd.Process.Pid))
	if err := d.wait(t, 20*time.Second); err != nil {
		t.Errorf("supervisord exited with %v, want a clean exit once its grace ran out", err)
	}
}

// TestBusctlProviderHealth: a provider that cannot start is FATAL and
// not serving; providers says why and since when under its row, status
// sums the providers' health up.
func TestBusctlProviderHealth(t *testing.T) {
	p := newProfile(t)
	dies := filepath.Join(t.TempDir(), "provider-dies")
	os.WriteFile(dies, []byte("#!/bin/sh\n[ \"$1\" = --check ] && exit 0\necho 'cannot reach the platform' >&2\nexit 1\n"), 0o700)
	cfg := fmt.Sprintf("providers:\n  playground: {}\n  telegram:\n    binary: %s\n    forum_chat_id: %d\n    start_limit: 1\n", dies, forumChat)
	d, c, _ := p.serveConfig(cfg)
	waitProviderNamed(t, c, d, "telegram", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_FATAL
	}, "FATAL")
	waitProviderNamed(t, c, d, "playground", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "serving")

	out, _, code := p.busctl("providers")
	if code != 0 {
		t.Fatalf("providers: exit %d", code)
	}
	if !regexp.MustCompile(`(?m)^telegram\s+-\s+FATAL\s.*not-serving`).MatchString(out) {
		t.Errorf("providers has no FATAL, not-serving telegram row:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^    not serving: .+ \(since \d\d:\d\d\)$`).MatchString(out) {
		t.Errorf("providers does not say why telegram does not serve, and since when:\n%s", out)
	}
	// Whatever stderr lines the supervisor kept for a child, the table
	// shows under its row.
	js, _, _ := p.busctl("providers", "-o", "json")
	var list struct {
		Providers []struct {
			Name       string
			StderrTail []string `json:"stderr_tail"`
		}
	}
	if err := json.Unmarshal([]byte(js), &list); err != nil {
		t.Fatal(err)
	}
	for _, pr := range list.Providers {
		for _, l := range pr.StderrTail {
			contains(t, "providers ("+pr.Name+"'s stderr)", out, "\n      "+l+"\n")
		}
	}
	out, _, _ = p.busctl("status")
	if !regexp.MustCompile(`(?m)^providers\s+1 serving, 1 not serving \(telegram: .+ since \d\d:\d\d\)$`).MatchString(out) {
		t.Errorf("status does not sum up the providers' health:\n%s", out)
	}
	out, _, _ = p.busctl("status", "-o", "json")
	var st struct {
		Providers struct {
			Total, Serving int
			NotServing     []struct{ Name, Detail string } `json:"not_serving"`
		}
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Providers.Total != 2 || st.Providers.Serving != 1 ||
		len(st.Providers.NotServing) != 1 || st.Providers.NotServing[0].Name != "telegram" || st.Providers.NotServing[0].Detail == "" {
		t.Errorf("status -o json providers = %s (%v)", out, err)
	}
}

// TestBusctlCompletion: the completion scripts call busctl __complete,
// which answers from the live supervisor (provider names, binding keys)
// and the machine's profiles; bash, given the script, completes with them.
func TestBusctlCompletion(t *testing.T) {
	p := newProfile(t)
	d, c := p.servePlayground()
	register(t, c, "manual:comp")
	// A second profile with only a config file.
	os.MkdirAll(filepath.Join(p.home, ".config", "chatbus"), 0o700)
	os.WriteFile(filepath.Join(p.home, ".config", "chatbus", "other.yaml"), []byte("{}\n"), 0o600)

	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _, code := p.busctl("completion", shell)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s (exit %d) does not call __complete:\n%.300s", shell, code, out)
		}
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"doctor", "restart", ""}, []string{"playground\tplayground, RUNNING"}},
		{[]string{"doctor", "status", "pl"}, []string{"playground\tplayground, RUNNING"}},
		{[]string{"updates", ""}, []string{"manual:comp\tt-manual:comp, active"}},
		{[]string{"follow", "--provider", ""}, []string{"playground\tplayground, RUNNING"}},
		{[]string{"--profile", ""}, []string{"default\trunning", "other\tnot running"}},
		{[]string{"providers", "-o", ""}, []string{"json", "yaml", "wide", "name"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := p.busctl(append([]string{"__complete"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			// cobra's protocol: the candidates, then :<directive>; 4 is
			// "no file completion".
			if got := lines[:len(lines)-1]; !reflect.DeepEqual(got, tt.want) || lines[len(lines)-1] != ":4" {
				t.Errorf("__complete %v = %q, want %q then :4", tt.args, lines, tt.want)
			}
		})
	}

	// The bash script itself, as bash runs it on TAB.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	script, _, _ := p.busctl("completion", "bash")
	file := filepath.Join(t.TempDir(), "busctl.bash")
	os.WriteFile(file, []byte(script), 0o600)
	// The script needs bash-completion's _get_comp_words_by_ref; where
	// that package is not installed, a stand-in with its meaning for a
	// line without '=' or ':' (the words, the current one, its index).
	cmd := exec.Command(bash, "--norc", "-c", `if [ -r /usr/share/bash-completion/bash_completion ]; then
  source /usr/share/bash-completion/bash_completion
else
  _get_comp_words_by_ref() { words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
fi
source "$1"; COMP_LINE="busctl doctor restart "; COMP_POINT=${#COMP_LINE}
COMP_WORDS=(busctl doctor restart ""); COMP_CWORD=3; __start_busctl; printf '%s\n' "${COMPREPLY[@]}"`, "bash", file)
	cmd.Env = append(p.env(), "PATH="+binDir+":"+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash completion: %v\n%s", err, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "playground" {
		t.Errorf("bash completes busctl doctor restart with %q, want playground\n%s", got, stderr.String())
	}

	// No supervisor: nothing to complete, and no error in the shell.
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.wait(t, 20*time.Second)
	out, errOut, code := p.busctl("__complete", "doctor", "restart", "")
	if code != 0 || strings.TrimSpace(out) != ":4" {
		t.Errorf("__complete without a supervisor = %q (exit %d, %s)", out, code, errOut)
	}
}
