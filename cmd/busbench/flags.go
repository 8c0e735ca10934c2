//go:build linux

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// phases in the order they run.
var allPhases = []string{"doctor", "register", "heartbeat", "latency", "throughput", "openloop", "outbound", "scaling", "memory", "scale", "diskuse", "disk", "encoder"}

// extraPhases run only when -phases names them (make bench-cluster).
var extraPhases = []string{"cluster"}

// options are busbench's flags.
type options struct {
	Quick    bool     `json:"quick"`
	JSONPath string   `json:"-"`
	Phases   []string `json:"phases"`

	Supervisord string `json:"-"`
	Provider    string `json:"-"`
	EtcdMember  string `json:"-"`
	StateRoot   string `json:"state_root"`
	Pprof       string `json:"pprof,omitempty"`
	ExecTrace   bool   `json:"exec_trace,omitempty"`
	Keep        bool   `json:"-"`

	RegisterSamples int `json:"register_samples"`

	HBFollowers int           `json:"heartbeat_followers"`
	HBDuration  time.Duration `json:"heartbeat_duration_ns"`
	HBRounds    int           `json:"heartbeat_rounds"`

	LatencyRate     float64       `json:"latency_rate"`
	LatencyDuration time.Duration `json:"latency_duration_ns"`

	SatFollowers []int         `json:"saturated_followers"`
	SatBatch     int           `json:"saturated_batch"`
	SatWarmup    time.Duration `json:"saturated_warmup_ns"`
	SatDuration  time.Duration `json:"saturated_duration_ns"`

	OpenRate     float64       `json:"open_loop_rate"`
	OpenDuration time.Duration `json:"open_loop_duration_ns"`

	ScalingFollowers []int `json:"scaling_followers"`

	DiskUseCounts []int `json:"disk_use_counts"`

	MemFollowers int `json:"memory_followers"`

	ScaleFollowers int           `json:"scale_followers"`
	ScaleSettle    time.Duration `json:"scale_settle_ns"`
	ScaleWindow    time.Duration `json:"scale_window_ns"`
	ScaleInterval  time.Duration `json:"scale_heartbeat_interval_ns"`

	Restarts int `json:"restarts"`

	OutFollowers int           `json:"outbound_followers"`
	OutRounds    int           `json:"outbound_rounds"`
	OutDuration  time.Duration `json:"outbound_duration_ns"`

	ClusterDuration time.Duration `json:"cluster_duration_ns"`
	ClusterTxns     int           `json:"cluster_raw_txns"`
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("busbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `busbench: benchmark chatbus against raw gRPC baselines measured in the same run.

Usage: busbench [-quick] [flags]

Starts a real supervisord with the provider-bench child and real follower
connections, prints one table (chatbus value, baseline, ratio, target) and
writes the details as JSON. See docs/performance.md.

Flags (durations like 5s; counts of the full run, -quick lowers them unless set):
`)
		fs.PrintDefaults()
	}
	var o options
	var phases, satFollowers, scalingFollowers, diskCounts string
	fs.BoolVar(&o.Quick, "quick", false, "small counts, under a minute, no thresholds (what CI runs)")
	fs.StringVar(&o.JSONPath, "json", "", "write the results here (default bench-results/latest.json; bench-results/quick.json with -quick)")
	fs.StringVar(&phases, "phases", strings.Join(allPhases, ","), "phases to run, comma-separated: "+strings.Join(allPhases, ",")+" (and "+strings.Join(extraPhases, ",")+", only when named)")
	fs.StringVar(&o.Supervisord, "supervisord", "", "supervisord binary (default: beside busbench)")
	fs.StringVar(&o.Provider, "provider", "", "provider-bench binary (default: beside busbench)")
	fs.StringVar(&o.EtcdMember, "etcd-member", "", "etcd-member binary of the cluster phase (default: beside busbench; make bench-cluster builds it from e2e/etcd-member)")
	fs.StringVar(&o.StateRoot, "state-root", os.TempDir(), "where the supervisors' state dirs (the bbolt journal) are made; /dev/shm takes the disk out")
	fs.StringVar(&o.Pprof, "pprof", "", "profile into this dir: the supervisor runs as busbench's in-process variant (server.New) with per-phase CPU, heap and mutex profiles; provider-bench writes CPU profiles")
	fs.BoolVar(&o.ExecTrace, "trace", false, "with -pprof: the profiled supervisor also writes each phase's runtime execution trace (<phase>.trace; go tool trace), large at high rates")
	fs.BoolVar(&o.Keep, "keep", false, "keep the run directory (configs, supervisord logs)")
	fs.IntVar(&o.RegisterSamples, "register-samples", 0, "register (reuse) calls measured, and as many health checks (default 5000; quick 300)")
	fs.IntVar(&o.HBFollowers, "hb-followers", 32, "concurrent followers for the heartbeat throughput")
	fs.DurationVar(&o.HBDuration, "hb-duration", 0, "length of one heartbeat round (default 4s; quick 1s)")
	fs.IntVar(&o.HBRounds, "hb-rounds", 0, "heartbeat rounds, each a baseline round and a chatbus round (default 3; quick 1)")
	fs.Float64Var(&o.LatencyRate, "latency-rate", 200, "updates per second for the forwarding latency (low rate: one update per Deliver)")
	fs.DurationVar(&o.LatencyDuration, "latency-duration", 0, "forwarding latency measurement (default 20s; quick 2s), after a 1s warm-up")
	fs.StringVar(&satFollowers, "sat-followers", "1,16", "follower counts of the saturated throughput")
	fs.IntVar(&o.SatBatch, "sat-batch", 2048, "updates per Deliver in the saturated throughput")
	fs.DurationVar(&o.SatWarmup, "sat-warmup", 0, "saturated throughput warm-up (default 2s; quick 1s)")
	fs.DurationVar(&o.SatDuration, "sat-duration", 0, "saturated throughput measurement (default 6s; quick 2s)")
	fs.Float64Var(&o.OpenRate, "open-rate", 0, "updates per second of the open-loop latency (default: half of the 1-follower saturation measured in the run)")
	fs.DurationVar(&o.OpenDuration, "open-duration", 0, "open-loop latency window (default 10s; quick 2s), after a 1s warm-up")
	fs.StringVar(&scalingFollowers, "scaling-followers", "", "follower counts of the scaling table (default 1,16,64,256,1000; quick 1,16,64)")
	fs.StringVar(&diskCounts, "disk-use-counts", "", "unacknowledged updates held for the disk-use table (default 10000,50000,200000; quick 2000,10000)")
	fs.IntVar(&o.MemFollowers, "mem-followers", 0, "followers with open streams for the memory figure (default 1000; quick 100)")
	fs.IntVar(&o.ScaleFollowers, "scale-followers", 0, "followers heartbeating at 1 Hz for the CPU figure (default 10000; quick 500)")
	fs.DurationVar(&o.ScaleSettle, "scale-settle", 0, "wait after the last follower connected (default 10s; quick 2s)")
	fs.DurationVar(&o.ScaleWindow, "scale-window", 0, "CPU measurement window (default 30s; quick 4s)")
	fs.DurationVar(&o.ScaleInterval, "scale-interval", 0, "heartbeat interval of the scale phase's followers, which keep their streams open (default 60s: the subscribed_heartbeat_interval the supervisor tells them)")
	fs.DurationVar(&o.ClusterDuration, "cluster-duration", 0, "cluster phase: latency and throughput measurement each (default 10s; quick 3s)")
	fs.IntVar(&o.ClusterTxns, "cluster-txns", 0, "cluster phase: raw fenced etcd transactions measured (default 2000; quick 300)")
	fs.IntVar(&o.Restarts, "restarts", 0, "doctor restarts and bare starts measured (default 7; quick 2)")
	fs.IntVar(&o.OutFollowers, "out-followers", 8, "followers per provider making calls in the outbound phase")
	fs.IntVar(&o.OutRounds, "out-rounds", 0, "outbound rounds, each one of every kind of call (default 3; quick 1)")
	fs.DurationVar(&o.OutDuration, "out-duration", 0, "length of one outbound round (default 4s; quick 1s)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args())
	}
	def := func(p *int, full, quick int) {
		if *p == 0 {
			*p = pick(o.Quick, quick, full)
		}
	}
	defDur := func(p *time.Duration, full, quick time.Duration) {
		if *p == 0 {
			*p = pick(o.Quick, quick, full)
		}
	}
	def(&o.RegisterSamples, 5000, 300)
	defDur(&o.HBDuration, 4*time.Second, time.Second)
	def(&o.HBRounds, 3, 1)
	defDur(&o.LatencyDuration, 20*time.Second, 2*time.Second)
	defDur(&o.SatWarmup, 2*time.Second, time.Second)
	defDur(&o.SatDuration, 6*time.Second, 2*time.Second)
	def(&o.MemFollowers, 1000, 100)
	defDur(&o.OpenDuration, 10*time.Second, 2*time.Second)
	if scalingFollowers == "" {
		scalingFollowers = pick(o.Quick, "1,16,64", "1,16,64,256,1000")
	}
	if diskCounts == "" {
		diskCounts = pick(o.Quick, "2000,10000", "10000,50000,200000")
	}
	var err error
	if o.ScalingFollowers, err = counts("-scaling-followers", scalingFollowers); err != nil {
		return nil, err
	}
	if o.DiskUseCounts, err = counts("-disk-use-counts", diskCounts); err != nil {
		return nil, err
	}
	def(&o.ScaleFollowers, 10000, 500)
	defDur(&o.ScaleSettle, 10*time.Second, 2*time.Second)
	defDur(&o.ScaleWindow, 30*time.Second, 4*time.Second)
	def(&o.Restarts, 7, 2)
	def(&o.OutRounds, 3, 1)
	defDur(&o.OutDuration, 4*time.Second, time.Second)
	defDur(&o.ClusterDuration, 10*time.Second, 3*time.Second)
	def(&o.ClusterTxns, 2000, 300)
	if o.JSONPath == "" {
		o.JSONPath = filepath.Join("bench-results", pick(o.Quick, "quick.json", "latest.json"))
	}
	for p := range strings.SplitSeq(phases, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(allPhases, p) && !slices.Contains(extraPhases, p) {
			return nil, fmt.Errorf("-phases: unknown phase %q (have %s)", p, strings.Join(append(allPhases, extraPhases...), ","))
		}
		o.Phases = append(o.Phases, p)
	}
	for s := range strings.SplitSeq(satFollowers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sat-followers: %q is not a positive count", s)
		}
		o.SatFollowers = append(o.SatFollowers, n)
	}
	if o.LatencyRate <= 0 {
		return nil, errors.New("-latency-rate must be positive")
	}
	if o.HBFollowers < 1 || o.SatBatch < 1 {
		return nil, errors.New("-hb-followers and -sat-batch must be positive")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if o.Supervisord == "" {
		o.Supervisord = filepath.Join(filepath.Dir(exe), "supervisord")
	}
	if o.Provider == "" {
		o.Provider = filepath.Join(filepath.Dir(exe), "provider-bench")
	}
	if o.EtcdMember == "" {
		o.EtcdMember = filepath.Join(filepath.Dir(exe), "etcd-member")
	}
	for _, p := range []*string{&o.Supervisord, &o.Provider, &o.EtcdMember, &o.StateRoot} {
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, err
		}
	}
	for _, bin := range []string{o.Supervisord, o.Provider} {
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("%s: not found; build it first (make bench does: go build -o bin/ ./cmd/supervisord ./cmd/provider-bench ./cmd/busbench)", bin)
		}
	}
	if o.has("cluster") {
		if fi, err := os.Stat(o.EtcdMember); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("%s: not found; build it first (make bench-cluster does: go build -C e2e -o ../bin/ ./etcd-member)", o.EtcdMember)
		}
	}
	if o.Pprof != "" {
		if o.Pprof, err = filepath.Abs(o.Pprof); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(o.Pprof, 0o755); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// counts parses a comma-separated list of positive counts.
func counts(flag, s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive count", flag, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func pick[T any](cond bool, yes, no T) T {
	if cond {
		return yes
	}
	return no
}

func (o *options) has(phase string) bool { return slices.Contains(o.Phases, phase) }
