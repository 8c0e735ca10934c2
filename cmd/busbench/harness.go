//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// supSpec is one supervisor of the run: what its config file says (for
// supervisord) or what the profiled variant is given.
type supSpec struct {
	Name              string        `json:"name"`
	Socket            string        `json:"socket"`
	StateDir          string        `json:"state_dir"`
	HeartbeatInterval time.Duration `json:"heartbeat_interval"`
	StaleAfter        time.Duration `json:"stale_after"`
	// SubscribedHeartbeatInterval: followers with an open stream (0: the
	// supervisor's default, 60s).
	SubscribedHeartbeatInterval time.Duration `json:"subscribed_heartbeat_interval"`
	JournalMaxCount             int           `json:"journal_max_count"`
	JournalMaxBytes             int64         `json:"journal_max_bytes"`
	Providers                   []provSpec    `json:"providers"`
	ProfileDir                  string        `json:"profile_dir,omitempty"`
	// MemProfileRate, if set, is the profiled variant's
	// runtime.MemProfileRate (bytes per heap sample; the default 512 KiB
	// says little about a few KiB per follower).
	MemProfileRate int `json:"mem_profile_rate,omitempty"`
	// ExecTrace: the profiled variant also writes each profile's runtime
	// execution trace (<name>.trace, for go tool trace).
	ExecTrace bool   `json:"exec_trace,omitempty"`
	LogPath   string `json:"-"`
	// Cluster, if set, is the config's cluster: section (the cluster
	// phase's nodes).
	Cluster map[string]any `json:"-"`
}

// provSpec is one provider-bench child of a supervisor.
type provSpec struct {
	Name        string         `json:"name"`
	Binary      string         `json:"binary"`
	ForumChatID int64          `json:"forum_chat_id"`
	Settings    map[string]any `json:"settings"`
	// Control is the child's control socket ("" = none).
	Control string `json:"-"`
}

// configYAML is the supervisord config file for s.
func (s supSpec) configYAML() ([]byte, error) {
	provs := map[string]map[string]any{}
	for _, p := range s.Providers {
		m := map[string]any{"binary": p.Binary, "forum_chat_id": p.ForumChatID}
		for k, v := range p.Settings {
			m[k] = v
		}
		provs[p.Name] = m
	}
	doc := map[string]any{
		"socket":             s.Socket,
		"state_dir":          s.StateDir,
		"heartbeat_interval": s.HeartbeatInterval.String(),
		"stale_after":        s.StaleAfter.String(),
		"log_level":          "info",
		"log_format":         "json",
		"journal": map[string]any{"max_count": s.JournalMaxCount, "max_bytes": s.JournalMaxBytes,
			"max_total_bytes": int64(16 << 30)},
		// Measure the bus alone: no default playground, no console.
		"default_playground": false,
		"console":            map[string]any{"enabled": false},
	}
	if s.SubscribedHeartbeatInterval > 0 {
		doc["subscribed_heartbeat_interval"] = s.SubscribedHeartbeatInterval.String()
	}
	if len(provs) > 0 {
		doc["providers"] = provs
	}
	if s.Cluster != nil {
		doc["cluster"] = s.Cluster
	}
	return yaml.Marshal(doc)
}

// supervisor is a running supervisor process.
type supervisor struct {
	spec   supSpec
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
	secret string
	admin  *client.Client // the bench's own connection (admin calls, health)
}

func (s *supervisor) pid() int { return s.cmd.Process.Pid }

// startSupervisor starts supervisord (or, with -pprof, the profiled
// variant) for spec and waits until it serves and every provider child
// runs its Updates stream.
func (b *bencher) startSupervisor(ctx context.Context, spec supSpec) (*supervisor, error) {
	dir := filepath.Dir(spec.Socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	spec.LogPath = filepath.Join(dir, "supervisord.log")
	logf, err := os.Create(spec.LogPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	var cmd *exec.Cmd
	if b.opts.Pprof != "" {
		spec.ProfileDir = b.opts.Pprof
		spec.ExecTrace = b.opts.ExecTrace
		js, err := json.MarshalIndent(spec, "", "  ")
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "spec.json")
		if err := os.WriteFile(path, js, 0o600); err != nil {
			return nil, err
		}
		cmd = exec.Command(b.self, "profiled-supervisor", "-spec", path)
	} else {
		y, err := spec.configYAML()
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, y, 0o600); err != nil {
			return nil, err
		}
		cmd = exec.Command(b.opts.Supervisord, "--config", path)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &supervisor{spec: spec, cmd: cmd, exited: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(ctx); err != nil {
		s.stop()
		return nil, fmt.Errorf("supervisor %s: %w (log: %s)\n%s", spec.Name, err, spec.LogPath, tail(spec.LogPath, 20))
	}
	return s, nil
}

func (s *supervisor) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("exited: %v", s.err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("not serving after 30s")
		}
		if s.admin == nil {
			if b, err := os.ReadFile(filepath.Join(s.spec.StateDir, "secret")); err == nil && len(b) > 0 {
				if c, err := client.Dial(s.spec.Socket, client.WithSecret(strings.TrimSpace(string(b)))); err == nil {
					s.secret, s.admin = strings.TrimSpace(string(b)), c
				}
			}
		}
		if s.admin != nil && s.ready(ctx) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ready: health SERVING, every provider RUNNING, every control API up with
// its Updates stream running.
func (s *supervisor) ready(ctx context.Context) bool {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h, err := grpc_health_v1.NewHealthClient(s.admin.Conn()).Check(cctx, &grpc_health_v1.HealthCheckRequest{})
	if err != nil || h.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		return false
	}
	if len(s.spec.Providers) == 0 {
		return true
	}
	lp, err := s.admin.Admin.ListProviders(cctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		return false
	}
	running := 0
	for _, p := range lp.GetProviders() {
		if p.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && p.GetServing() {
			running++
		}
	}
	if running != len(s.spec.Providers) {
		return false
	}
	for _, p := range s.spec.Providers {
		if p.Control == "" {
			continue
		}
		st, err := newControl(p.Control).stats(cctx)
		if err != nil || !st.Running {
			return false
		}
	}
	return true
}

// profile starts (name != "") or stops (name == "") the profiled
// supervisor's profiles; a no-op without -pprof.
func (s *supervisor) profile(name string) {
	if s.spec.ProfileDir == "" {
		return
	}
	if name != "" {
		os.WriteFile(filepath.Join(s.spec.ProfileDir, "next"), []byte(name), 0o600)
		s.cmd.Process.Signal(syscall.SIGUSR1)
	} else {
		s.cmd.Process.Signal(syscall.SIGUSR2)
	}
	time.Sleep(50 * time.Millisecond) // let the signal land before the phase starts
}

// stop ends the supervisor: SIGTERM, then SIGKILL after 20s.
func (s *supervisor) stop() {
	if s.admin != nil {
		s.admin.Close()
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// control talks to a provider-bench's control API.
type control struct {
	hc *http.Client
}

func newControl(socket string) *control {
	return &control{hc: &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}},
	}}
}

func (c *control) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://provider-bench"+path, rd)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(msg)))
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

func (c *control) stats(ctx context.Context) (bench.ProviderStats, error) {
	var st bench.ProviderStats
	err := c.do(ctx, http.MethodGet, "/stats", nil, &st)
	return st, err
}

func (c *control) inject(ctx context.Context, inj bench.Injection) error {
	return c.do(ctx, http.MethodPut, "/inject", inj, nil)
}

func (c *control) pause(ctx context.Context) error {
	return c.inject(ctx, bench.Injection{Rate: -1})
}

// baselineProc is the bare gRPC server, a busbench child process.
type baselineProc struct {
	cmd    *exec.Cmd
	socket string
	exited chan struct{}
}

// startBaseline starts `busbench baseline-server` on socket and waits for
// its "ready" line.
func (b *bencher) startBaseline(ctx context.Context, socket string) (*baselineProc, error) {
	return b.startBaselineRate(ctx, socket, 0)
}

// startBaselineRate is startBaseline with the bare server's
// runtime.MemProfileRate (0: the default), for its heap profile.
func (b *bencher) startBaselineRate(ctx context.Context, socket string, memProfileRate int) (*baselineProc, error) {
	args := []string{"baseline-server", "-socket", socket}
	if memProfileRate > 0 {
		args = append(args, "-mem-profile-rate", strconv.Itoa(memProfileRate))
	}
	cmd := exec.Command(b.self, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &baselineProc{cmd: cmd, socket: socket, exited: make(chan struct{})}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, out)
		cmd.Wait()
		close(p.exited)
	}()
	select {
	case l := <-line:
		if l != "ready" {
			p.stop()
			return nil, fmt.Errorf("baseline server: %q instead of ready", l)
		}
	case <-time.After(10 * time.Second):
		p.stop()
		return nil, errors.New("baseline server not ready after 10s")
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	return p, nil
}

func (p *baselineProc) pid() int { return p.cmd.Process.Pid }

func (p *baselineProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// dialRaw opens a plain gRPC connection on a Unix socket (no secret).
func dialRaw(socket string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	return grpc.NewClient("unix://"+socket, append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(bench.MaxMessageBytes))}, opts...)...)
}

// bearer sends "authorization: Bearer <secret>" on every call.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// runBaselineServer is `busbench baseline-server -socket PATH`: it serves
// the bare server until SIGTERM, after printing "ready".
func runBaselineServer(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("baseline-server", flag.ContinueOnError)
	socket := fs.String("socket", "", "socket to serve on")
	rate := fs.Int("mem-profile-rate", 0, "runtime.MemProfileRate (0: the default)")
	if err := fs.Parse(args); err != nil || *socket == "" || fs.NArg() > 0 {
		return errors.New("usage: busbench baseline-server -socket PATH [-mem-profile-rate N]")
	}
	if *rate > 0 {
		runtime.MemProfileRate = *rate
	}
	// SIGUSR1 writes the memory statistics and the heap and goroutine
	// profiles beside the socket, for comparison with the profiled
	// supervisor's.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			writeMemStats(*socket + ".memstats.json")
			for _, kind := range []string{"heap", "goroutine"} {
				if f, err := os.Create(*socket + "." + kind + ".pprof"); err == nil {
					pprof.Lookup(kind).WriteTo(f, 0)
					f.Close()
				}
			}
		}
	}()
	os.Remove(*socket)
	ln, err := net.Listen("unix", *socket)
	if err != nil {
		return err
	}
	gs := bench.NewBaselineServer()
	errc := make(chan error, 1)
	go func() { errc <- gs.Serve(ln) }()
	fmt.Fprintln(stdout, "ready")
	select {
	case <-ctx.Done():
		gs.Stop()
		return nil
	case err := <-errc:
		return err
	}
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// profile starts (name != "") or stops (name == "") a provider CPU
// profile; a no-op without -pprof (the child then has no pprof_dir).
func (c *control) profile(ctx context.Context, name string) {
	if name == "" {
		c.do(ctx, http.MethodPost, "/pprof/stop", nil, nil)
		return
	}
	c.do(ctx, http.MethodPost, "/pprof/start?name="+name, nil, nil)
}
