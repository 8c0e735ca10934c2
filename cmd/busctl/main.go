// Command busctl is the operator's CLI for a chatbus supervisor.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := newRoot(os.Stdout, os.Stderr, os.Getenv).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "busctl:", err)
		os.Exit(exitCode(err))
	}
}
