package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// binDir holds the binaries built once for the whole package.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cb-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	build := goBuild(append([]string{"-race", "-o", dir + "/"}, binaries()...)...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goBuild is `go build args` in the product's module (the repository
// root), not this test module: the binaries under test are built with the
// product's go.mod, as a release is.
func goBuild(args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = ".."
	return cmd
}

// binaries are the commands the tests run: supervisord, busctl, every
// provider child and every follower command in cmd/ (the benchmark tools
// are not).
func binaries() []string {
	out := []string{"github.com/chatbus/chatbus/cmd/supervisord", "github.com/chatbus/chatbus/cmd/busctl"}
	dirs, _ := filepath.Glob("../cmd/*")
	for _, d := range dirs {
		name := filepath.Base(d)
		if name == "provider-bench" {
			continue
		}
		if strings.HasPrefix(name, "provider-") || strings.HasPrefix(name, "chatbus-") {
			out = append(out, "github.com/chatbus/chatbus/cmd/"+name)
		}
	}
	return out
}

// profile is one isolated set of paths: a short runtime dir for the socket
// and a HOME for everything else.
type profile struct {
	t      *testing.T
	home   string
	socket string
	state  string
}

// socketBase is where a profile's runtime dir goes: the system's
// temporary directory where its path is short, else /tmp (macOS's
// per-user $TMPDIR takes about 50 of sun_path's 103 bytes there, and a
// provider child's socket is four levels under the runtime dir).
func socketBase() string {
	if d := os.TempDir(); len(d) <= 16 {
		return d
	}
	return "/tmp"
}

func newProfile(t *testing.T) *profile {
	run, err := os.MkdirTemp(socketBase(), "cb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	home := t.TempDir()
	return &profile{
		t:      t,
		home:   home,
		socket: filepath.Join(run, "chatbus", "default", "supervisor.sock"),
		state:  filepath.Join(home, ".local", "state", "chatbus", "default"),
	}
}

// env is the environment of the profile's processes. The XDG variables
// name Linux's defaults under HOME, so that macOS (whose defaults are
// $TMPDIR and ~/Library/Application Support) puts the files where the
// tests look too.
func (p *profile) env() []string {
	return append(os.Environ(), "HOME="+p.home, "XDG_RUNTIME_DIR="+filepath.Dir(filepath.Dir(filepath.Dir(p.socket))),
		"XDG_STATE_HOME="+filepath.Join(p.home, ".local", "state"), "XDG_CONFIG_HOME="+filepath.Join(p.home, ".config"),
		// The binaries are race-built: without this each waits 1s at exit.
		"GORACE=atexit_sleep_ms=0")
}

// daemon is a running supervisord.
type daemon struct {
	cmd    *exec.Cmd
	stderr *testkit.SyncBuffer
	exited chan struct{}
	err    error
}

func (p *profile) start(args ...string) *daemon {
	p.t.Helper()
	return p.startBinary(filepath.Join(binDir, "supervisord"), nil, append([]string{"--log-format", "json", "--log-level", "debug"}, args...)...)
}

// startBinary starts the supervisord binary bin with exactly args and
// the profile's environment plus env.
func (p *profile) startBinary(bin string, env []string, args ...string) *daemon {
	p.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(p.env(), env...)
	d := &daemon{cmd: cmd, stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	go func() { d.err = cmd.Wait(); close(d.exited) }()
	p.t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-d.exited
		}
		if p.t.Failed() {
			p.t.Logf("supervisord log:\n%s", d.stderr.String())
		}
	})
	return d
}

// serveConfig writes cfg as the config file, starts supervisord with it,
// waits until it serves and dials it. It returns the config file's path.
func (p *profile) serveConfig(cfg string) (*daemon, *client.Client, string) {
	p.t.Helper()
	return p.serveConfigWith(filepath.Join(binDir, "supervisord"), cfg)
}

// serveConfigWith is serveConfig with the supervisord binary bin.
func (p *profile) serveConfigWith(bin, cfg string) (*daemon, *client.Client, string) {
	p.t.Helper()
	path := filepath.Join(p.t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		p.t.Fatal(err)
	}
	d := p.startBinary(bin, nil, "--log-format", "json", "--log-level", "debug", "--config", path)
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.Close() })
	return d, c, path
}

// waitServing waits until busctl status succeeds.
func (p *profile) waitServing(d *daemon) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.exited:
			p.t.Fatalf("supervisord exited: %v\n%s", d.err, d.stderr.String())
		default:
		}
		if _, _, code := p.busctl("status"); code == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("supervisord not serving after 15s\n%s", d.stderr.String())
}

// busctl runs busctl and returns stdout, stderr and the exit code.
func (p *profile) busctl(args ...string) (string, string, int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "busctl"), args...)
	cmd.Env = p.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			p.t.Fatalf("busctl %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

func (d *daemon) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case <-d.exited:
		return d.err
	case <-time.After(within):
		t.Fatalf("supervisord still running after %s", within)
		return nil
	}
}

// onlyProvider returns the one provider c's supervisor runs (named name,
// unless name is empty).
func onlyProvider(t *testing.T, c *client.Client, name string) *chatbusv1.ProviderInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// WaitForReady: c's connection may still be in its redial backoff
	// from a supervisor that stopped (a restart) when the next one serves.
	resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{}, grpc.WaitForReady(true))
	if err != nil || len(resp.GetProviders()) != 1 || (name != "" && resp.GetProviders()[0].GetName() != name) {
		t.Fatalf("providers: %v %v", resp, err)
	}
	return resp.GetProviders()[0]
}

// waitOnlyProvider polls onlyProvider until ok, within 30s; d's log is in
// the failure.
func waitOnlyProvider(t *testing.T, c *client.Client, d *daemon, name string, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pi := onlyProvider(t, c, name)
		if ok(pi) {
			return pi
		}
		if time.Now().After(deadline) {
			t.Fatalf("provider never %s: %v\n%s", what, pi, d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func contains(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s does not contain %q:\n%s", what, sub, s)
	}
}

// unavailable skips a test whose tool is missing, loudly (a banner on
// stderr), or fails it when the environment variable require is "1" (set
// by .ci/run, where a skip would hide a missing install step).
func unavailable(t *testing.T, require, msg string) {
	t.Helper()
	if os.Getenv(require) == "1" {
		t.Fatalf("%s (%s=1)", msg, require)
	}
	bar := strings.Repeat("!", 72)
	fmt.Fprintf(os.Stderr, "%s\nSKIPPED: %s\n%s\n", bar, msg, bar)
	t.Skip(msg)
}
