//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	rtrace "runtime/trace"
	"strings"
	"sync"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/store"
)

// runProfiledSupervisor is `busbench profiled-supervisor -spec FILE`: the
// supervisor built the way cmd/supervisord builds it (server.New with the
// same Config a config file gives), in a process that can be profiled.
// SIGUSR1 starts a CPU profile named by <profile dir>/next; SIGUSR2 stops
// it and writes the heap, mutex and block profiles of the same name
// (and, with -trace, the execution trace it started with it).
// supervisord itself has no profiling endpoint, so -pprof runs this
// instead; the figures of a profiled run carry the profiler's overhead.
func runProfiledSupervisor(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) != 2 || args[0] != "-spec" {
		return errors.New("usage: busbench profiled-supervisor -spec FILE")
	}
	raw, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	var spec supSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if spec.MemProfileRate > 0 { // before the server allocates
		runtime.MemProfileRate = spec.MemProfileRate
	}
	log := zerolog.New(stderr).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	var specs []providers.Spec
	for _, p := range spec.Providers {
		settings := map[string]any{"forum_chat_id": p.ForumChatID}
		for k, v := range p.Settings {
			settings[k] = v
		}
		specs = append(specs, providers.Spec{Name: p.Name, Binary: p.Binary, Settings: settings})
	}
	trace := &stageTrace{}
	srv, err := server.New(server.Config{
		Profile:                     spec.Name,
		Socket:                      spec.Socket,
		StateDir:                    spec.StateDir,
		HeartbeatInterval:           spec.HeartbeatInterval,
		StaleAfter:                  spec.StaleAfter,
		SubscribedHeartbeatInterval: spec.SubscribedHeartbeatInterval,
		Providers:                   specs,
		Journal:                     store.Limits{MaxCount: spec.JournalMaxCount, MaxBytes: spec.JournalMaxBytes, TotalBytes: 16 << 30},
		Version:                     "busbench-profiled",
		Console:                     server.ConsoleConfig{Off: true},
		Logger:                      log,
		Trace:                       trace,
	})
	if err != nil {
		return err
	}
	runtime.SetMutexProfileFraction(100)
	runtime.SetBlockProfileRate(int(100 * 1000)) // one sample per 100µs blocked
	p := &profiler{dir: spec.ProfileDir, prefix: spec.Name, log: log, trace: trace, execTrace: spec.ExecTrace}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			if s == syscall.SIGUSR1 {
				p.start()
			} else {
				p.stop()
			}
		}
	}()
	defer p.stop()
	return srv.Run(ctx)
}

type profiler struct {
	mu          sync.Mutex // guards name, cpu
	dir, prefix string
	log         zerolog.Logger
	name        string
	cpu         *os.File
	trace       *stageTrace
	execTrace   bool             // write a runtime execution trace beside the CPU profile
	execOut     *os.File         // the execution trace being written
	rt          []metrics.Sample // the runtime's metrics as the profile started
}

var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func (p *profiler) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	b, err := os.ReadFile(filepath.Join(p.dir, "next"))
	if err != nil {
		p.log.Error().Err(err).Msg("profile name")
		return
	}
	p.name = p.prefix + "-" + safeName.ReplaceAllString(strings.TrimSpace(string(b)), "_")
	f, err := os.Create(filepath.Join(p.dir, p.name+".cpu.pprof"))
	if err != nil {
		p.log.Error().Err(err).Msg("cpu profile")
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		p.log.Error().Err(err).Msg("cpu profile")
		return
	}
	p.cpu = f
	if p.execTrace {
		if tf, err := os.Create(filepath.Join(p.dir, p.name+".trace")); err == nil {
			if err := rtrace.Start(tf); err != nil {
				tf.Close()
				p.log.Error().Err(err).Msg("execution trace")
			} else {
				p.execOut = tf
			}
		}
	}
	p.trace.start()
	p.rt = readRuntime()
}

func (p *profiler) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
}

func (p *profiler) stopLocked() {
	if p.cpu == nil {
		return
	}
	pprof.StopCPUProfile()
	p.cpu.Close()
	p.cpu = nil
	if p.execOut != nil {
		rtrace.Stop()
		p.execOut.Close()
		p.execOut = nil
	}
	writeRuntime(filepath.Join(p.dir, p.name+".runtime.json"), p.rt) // before the stages, which the reader waits for
	p.trace.stop(filepath.Join(p.dir, p.name+".stages.json"))
	// The phase's figures were read before the profile stops: the GC in
	// writeMemStats makes the heap profile show what is live, not the
	// last cycle's.
	writeMemStats(filepath.Join(p.dir, p.name+".memstats.json"))
	for _, kind := range []string{"heap", "mutex", "block", "goroutine"} {
		f, err := os.Create(filepath.Join(p.dir, p.name+"."+kind+".pprof"))
		if err != nil {
			continue
		}
		pprof.Lookup(kind).WriteTo(f, 0)
		f.Close()
	}
}

// writeMemStats writes the runtime's memory statistics to path as JSON:
// as they were (what the phase's RSS reading saw: garbage not collected,
// stacks not shrunk since the last cycle) under "before_gc", then the same
// after a collection (which also shrinks stacks that use less than a
// quarter of theirs, once).
func writeMemStats(path string) {
	stats := func() map[string]any {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return map[string]any{
			"goroutines": runtime.NumGoroutine(), "heap_alloc": ms.HeapAlloc, "heap_inuse": ms.HeapInuse, "heap_idle": ms.HeapIdle,
			"heap_released": ms.HeapReleased, "stack_inuse": ms.StackInuse, "sys": ms.Sys, "next_gc": ms.NextGC, "num_gc": ms.NumGC,
			"mspan_inuse": ms.MSpanInuse, "other_sys": ms.OtherSys, "gc_sys": ms.GCSys,
		}
	}
	before := stats()
	runtime.GC()
	after := stats()
	after["before_gc"] = before
	js, err := json.MarshalIndent(after, "", "  ")
	if err == nil {
		os.WriteFile(path, js, 0o644)
	}
}
