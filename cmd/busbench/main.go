//go:build linux

// Command busbench benchmarks chatbus on this machine: it starts a real
// supervisord with the provider-bench child (updates injected through the
// real provider contract) and real follower connections, measures each
// figure of docs/performance.md together with a raw baseline in the same
// run (a bare gRPC server, or the supervisor's own health service on the
// same socket), and prints one table; the details go to a JSON file.
// It runs on Linux only: it reads the processes' CPU time and memory, and
// the machine's, from /proc, and ties its children to it with Pdeathsig.
//
//	busbench            full run (a few minutes)
//	busbench -quick     small counts, under a minute, no thresholds (CI)
//	busbench -h         every flag
//
// It is built and run by `make bench` and `make bench-quick`. The
// supervisord and provider-bench binaries (and the cluster phase's
// etcd-member) are found beside busbench unless -supervisord, -provider
// (and -etcd-member) say otherwise.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/chatbus/chatbus/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "busbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// Helper processes: busbench re-executes itself for them, so that the
	// baseline server (and, with -pprof, the profiled supervisor) is a
	// process of its own, measured from the outside like supervisord.
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Fprintln(stdout, "busbench", version.String())
		return nil
	}
	if len(args) > 0 {
		switch args[0] {
		case "baseline-server":
			return runBaselineServer(ctx, args[1:], stdout)
		case "profiled-supervisor":
			return runProfiledSupervisor(ctx, args[1:], stderr)
		}
	}
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if opts == nil { // -h
		return nil
	}
	return newBencher(*opts, stdout, stderr).run(ctx)
}
