//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/internal/version"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The main supervisor's provider.
const (
	benchProvider = "bench"
	benchChat     = int64(-1009000000001)
)

// results is the JSON file.
type results struct {
	Meta    meta           `json:"meta"`
	Figures []figure       `json:"figures"`
	Scaling []scalingRow   `json:"scaling,omitempty"`
	DiskUse []diskRow      `json:"disk_use,omitempty"`
	Details map[string]any `json:"details"`
	Checks  []string       `json:"checks"`
}

type meta struct {
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	Version  string    `json:"version"`
	Go       string    `json:"go"`
	CPUs     int       `json:"cpus"`
	CPU      string    `json:"cpu"`
	Kernel   string    `json:"kernel"`
	// Profiled: the supervisor was busbench's profiled variant (-pprof).
	Profiled bool `json:"profiled"`
	// StateFS is the filesystem type of the state root; Durable is false
	// where it does not survive a power loss (tmpfs): the "durable"
	// figures are then without the disk.
	StateFS string `json:"state_fs"`
	Durable bool   `json:"durable"`
	// BusyCoresBefore is how many cores other processes kept busy during
	// the second before the run: the benchmark's figures assume an idle
	// machine.
	BusyCoresBefore float64 `json:"busy_cores_before"`
	Options         options `json:"options"`
}

// bencher runs one benchmark.
type bencher struct {
	opts           options
	stdout, stderr io.Writer
	self           string // the busbench executable
	root           string // run dir: sockets, configs, logs (short: socket paths ≤ 107 bytes)
	stateRoot      string // the supervisors' state dirs
	started        time.Time
	results        results
	lat            atomic.Pointer[recorder] // the latency recorder while one is on
	failedChecks   int
	sat1           float64 // forwarded/s saturated with 1 follower, once measured
	raw1           float64 // the raw server-stream baseline of that figure
}

func newBencher(o options, stdout, stderr io.Writer) *bencher {
	return &bencher{opts: o, stdout: stdout, stderr: stderr, results: results{Details: map[string]any{}, Checks: []string{}}}
}

func (b *bencher) logf(format string, args ...any) {
	fmt.Fprintf(b.stderr, "[%6.1fs] %s\n", time.Since(b.started).Seconds(), fmt.Sprintf(format, args...))
}

// check records a sanity check (exact counts the run verified).
func (b *bencher) check(ok bool, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !ok {
		msg = "FAILED: " + msg
		b.logf("%s", msg)
		b.failedChecks++
	}
	b.results.Checks = append(b.results.Checks, msg)
}

func (b *bencher) run(ctx context.Context) (err error) {
	b.started = time.Now()
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	raiseNoFile(b)
	if b.root, err = os.MkdirTemp("", "cbb"); err != nil {
		return err
	}
	if b.stateRoot, err = os.MkdirTemp(b.opts.StateRoot, "cbb-state"); err != nil {
		return err
	}
	defer func() {
		if b.opts.Keep {
			b.logf("kept %s and %s", b.root, b.stateRoot)
			return
		}
		os.RemoveAll(b.root)
		os.RemoveAll(b.stateRoot)
	}()
	b.results.Meta = meta{
		Started: b.started.UTC(), Version: version.Get().Version, Go: runtime.Version(), CPUs: runtime.NumCPU(),
		CPU: cpuModel(), Kernel: strings.TrimSpace(readFile("/proc/sys/kernel/osrelease")),
		Profiled: b.opts.Pprof != "", Options: b.opts,
	}
	b.results.Meta.StateFS, b.results.Meta.Durable = fsType(b.stateRoot)
	if !b.results.Meta.Durable {
		b.logf("NOT DURABLE: the state root %s is a %s; the durable figures are measured without the disk", b.stateRoot, b.results.Meta.StateFS)
	}
	if s0, err := bench.ReadSystem(); err == nil {
		time.Sleep(time.Second)
		if s1, err := bench.ReadSystem(); err == nil {
			b.results.Meta.BusyCoresBefore = bench.BusyCores(s0, s1)
			if b.results.Meta.BusyCoresBefore > 0.1 {
				b.logf("WARNING: the machine is not idle: %.2f cores busy before the run (see top); every figure shares the CPUs with that. "+
					"Stop it, or (Linux autogroups) give this session the larger share: echo -10 > /proc/self/autogroup", b.results.Meta.BusyCoresBefore)
			}
		}
	}
	b.logf("busbench %s: %s run, phases %s; run dir %s, state under %s", version.Get().Version,
		pick(b.opts.Quick, "quick", "full"), strings.Join(b.opts.Phases, ","), b.root, b.stateRoot)

	err = b.phases(ctx)
	b.results.Meta.Duration = time.Since(b.started).Round(time.Second).String()
	b.printTable(b.stdout)
	if werr := b.writeJSON(); werr != nil && err == nil {
		err = werr
	}
	if err == nil {
		fmt.Fprintf(b.stdout, "\nJSON: %s\n", b.opts.JSONPath)
		if b.failedChecks > 0 {
			err = fmt.Errorf("%d checks failed (see above)", b.failedChecks)
		}
	}
	return err
}

func (b *bencher) phases(ctx context.Context) error {
	o := &b.opts
	if o.has("doctor") || o.has("register") || o.has("heartbeat") || o.has("latency") || o.has("throughput") || o.has("openloop") {
		if err := b.mainPhases(ctx); err != nil {
			return err
		}
	}
	if o.has("outbound") {
		if err := b.outboundPhase(ctx); err != nil {
			return fmt.Errorf("outbound: %w", err)
		}
	}
	if o.has("scaling") {
		if err := b.scalingPhase(ctx); err != nil {
			return fmt.Errorf("scaling: %w", err)
		}
	}
	if o.has("diskuse") {
		if err := b.diskUsePhase(ctx); err != nil {
			return fmt.Errorf("disk use: %w", err)
		}
	}
	if o.has("memory") {
		if err := b.memoryPhase(ctx); err != nil {
			return fmt.Errorf("memory: %w", err)
		}
	}
	if o.has("scale") {
		if err := b.scalePhase(ctx); err != nil {
			return fmt.Errorf("scale: %w", err)
		}
	}
	if o.has("disk") {
		if err := b.diskPhase(); err != nil {
			return fmt.Errorf("disk: %w", err)
		}
	}
	if o.has("encoder") {
		if err := b.encoderPhase(ctx); err != nil {
			return fmt.Errorf("encoder: %w", err)
		}
	}
	if o.has("cluster") {
		if err := b.clusterPhase(ctx); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
	}
	return nil
}

// mainPhases run against one supervisor with one provider-bench child.
func (b *bencher) mainPhases(ctx context.Context) error {
	o := &b.opts
	dir := filepath.Join(b.root, "main")
	settings := map[string]any{"control": filepath.Join(dir, "bench.ctl")}
	if o.Pprof != "" {
		settings["pprof_dir"] = o.Pprof
	}
	spec := b.supSpec("main", []provSpec{{
		Name: benchProvider, Binary: o.Provider, ForumChatID: benchChat, Settings: settings,
		Control: filepath.Join(dir, "bench.ctl"),
	}})
	b.logf("starting supervisor %q with provider-bench", spec.Name)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	defer sup.stop()
	ctl := newControl(spec.Providers[0].Control)

	// The doctor restarts an idle provider: before any follower attaches.
	if o.has("doctor") {
		if err := b.doctorPhase(ctx, sup, ctl); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
	}
	if o.has("register") {
		if err := b.registerPhase(ctx, sup, ctl); err != nil {
			return fmt.Errorf("register: %w", err)
		}
	}
	n := 0
	if o.has("heartbeat") {
		n = max(n, o.HBFollowers)
	}
	if o.has("latency") || o.has("openloop") {
		n = max(n, 1)
	}
	if o.has("throughput") {
		for _, k := range o.SatFollowers {
			n = max(n, k)
		}
	}
	if n == 0 {
		return nil
	}
	b.logf("registering %d followers (own connection each, stream open, acking)", n)
	fls, closeFollowers, err := startFollowers(ctx, sup, n, true, func(i int) followerOpts {
		return followerOpts{ProfileKey: fmt.Sprintf("bench:f%d", i), InstanceID: fmt.Sprintf("f-%d", i),
			Subscribe: true, Ack: true, Latency: &b.lat}
	})
	defer closeFollowers()
	if err != nil {
		return err
	}
	if o.has("heartbeat") {
		if err := b.heartbeatPhase(ctx, sup, fls[:o.HBFollowers]); err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
	}
	var bp *baselineProc // the raw hops and streams of the floors
	if o.has("latency") || o.has("throughput") || o.has("openloop") {
		if bp, err = b.startBaseline(ctx, filepath.Join(b.root, "hop.sock")); err != nil {
			return err
		}
		defer bp.stop()
	}
	if o.has("latency") || o.has("throughput") {
		if o.has("latency") {
			if err := b.latencyPhase(ctx, sup, ctl, bp, fls[0]); err != nil {
				return fmt.Errorf("latency: %w", err)
			}
		}
		if o.has("throughput") {
			for _, k := range o.SatFollowers {
				if err := b.throughputPhase(ctx, sup, ctl, bp, fls[:k]); err != nil {
					return fmt.Errorf("throughput (%d followers): %w", k, err)
				}
			}
		}
	}
	if o.has("openloop") {
		if err := b.openLoopPhase(ctx, sup, ctl, bp, fls[0]); err != nil {
			return fmt.Errorf("open loop: %w", err)
		}
	}
	var anomalies uint64
	for _, f := range fls {
		anomalies += f.anomalies.Load()
	}
	b.check(anomalies == 0, "followers saw %d seq gaps or repeats (want 0)", anomalies)
	return nil
}

// supSpec is a supervisor of the run: 1s heartbeats (followers are told
// so), stale after 10s (a loaded machine must not prune), journals large
// enough that no phase hits a bound.
func (b *bencher) supSpec(name string, provs []provSpec) supSpec {
	return supSpec{
		Name:              name,
		Socket:            filepath.Join(b.root, name, "sup.sock"),
		StateDir:          filepath.Join(b.stateRoot, name),
		HeartbeatInterval: time.Second,
		StaleAfter:        10 * time.Second,
		JournalMaxCount:   10_000_000,
		JournalMaxBytes:   8 << 30,
		Providers:         provs,
	}
}

// waitSubscribed waits until n followers have their update stream open.
func waitSubscribed(ctx context.Context, sup *supervisor, n int) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		resp, err := sup.admin.Admin.ListFollowers(cctx, &chatbusv1.ListFollowersRequest{})
		cancel()
		got := 0
		if err == nil {
			for _, f := range resp.GetFollowers() {
				if f.GetSubscribed() {
					got++
				}
			}
			if got >= n {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d followers subscribed after 3m (last error %v)", got, n, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// raiseNoFile lifts RLIMIT_NOFILE for the thousands of connections of the
// scale phase; children (supervisord) inherit it.
func raiseNoFile(b *bencher) {
	want := uint64(1 << 17)
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return
	}
	if rl.Cur >= want {
		return
	}
	nl := syscall.Rlimit{Cur: want, Max: max(want, rl.Max)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &nl); err != nil {
		nl = syscall.Rlimit{Cur: rl.Max, Max: rl.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &nl); err != nil {
			b.logf("cannot raise RLIMIT_NOFILE (%d): %v", rl.Cur, err)
			return
		}
	}
	// Each process has its own limit: n connections and a few files.
	if nl.Cur < uint64(b.opts.ScaleFollowers)+256 && b.opts.has("scale") {
		b.logf("warning: RLIMIT_NOFILE %d may be too low for %d followers", nl.Cur, b.opts.ScaleFollowers)
	}
}

// fsType names the filesystem under dir and says whether it is durable
// (not memory: tmpfs, ramfs).
func fsType(dir string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "unknown filesystem", true
	}
	switch st.Type {
	case 0x01021994:
		return "tmpfs", false
	case 0x858458f6:
		return "ramfs", false
	case 0xEF53:
		return "ext4", true
	case 0x58465342:
		return "xfs", true
	case 0x9123683E:
		return "btrfs", true
	}
	return fmt.Sprintf("filesystem 0x%x", st.Type), true
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func cpuModel() string {
	for line := range strings.Lines(readFile("/proc/cpuinfo")) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// medianRSS samples a process's RSS n times, 100ms apart.
func medianRSS(pid, n int) (int64, error) {
	var v []time.Duration // reuse the duration summary for the median
	for i := range n {
		s, err := bench.ReadProc(pid)
		if err != nil {
			return 0, err
		}
		v = append(v, time.Duration(s.RSS))
		if i < n-1 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	return int64(bench.Summarize(v).P50), nil
}

// cpuMeter measures the CPU of a few processes over an interval.
type cpuMeter struct {
	pids  map[string]int
	start map[string]bench.ProcSample
}

func newCPUMeter(pids map[string]int) *cpuMeter {
	m := &cpuMeter{pids: pids, start: map[string]bench.ProcSample{}}
	for name, pid := range pids {
		if s, err := bench.ReadProc(pid); err == nil {
			m.start[name] = s
		}
	}
	return m
}

// percent returns each process's CPU since newCPUMeter, in percent of one core.
func (m *cpuMeter) percent() map[string]float64 {
	out := map[string]float64{}
	for name, pid := range m.pids {
		s0, ok := m.start[name]
		if !ok {
			continue
		}
		if s1, err := bench.ReadProc(pid); err == nil {
			out[name] = bench.CPUPercent(s0, s1)
		}
	}
	return out
}

func cpuString(m map[string]float64) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", n, m[n]))
	}
	return strings.Join(parts, ", ")
}
