// Command busctl is the operator's CLI for a chatbus supervisor.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/chatbus/chatbus/client"
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

// Exit codes: 1 for errors in general, 3 when the supervisor is not running
// (like systemctl status), 4 when it refused the caller.
func exitCode(err error) int {
	var oe *outcomeError
	switch {
	case errors.As(err, &oe):
		return oe.code
	case errors.Is(err, client.ErrNotRunning):
		return 3
	case errors.Is(err, client.ErrUnauthenticated), errors.Is(err, client.ErrPermissionDenied):
		return 4
	}
	return 1
}
