package supervise

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Helper-process modes (CHATBUS_HELPER=<mode>): the test binary re-executes
// itself as a fake provider.
const (
	modeGood            = "good"              // serves SERVING until SIGTERM; logs its config to stderr
	modeCrashAfterReady = "crash-after-ready" // exits 3 right after the handshake
	modeNoHandshake     = "no-handshake"      // prints garbage, then sleeps
	modeSlowHandshake   = "slow-handshake"    // prints nothing, sleeps
	modeExitOnRequest   = "exit-on-request"   // like good; exits 0 on SIGUSR1 (a doctor commit)
	modeNotServing      = "not-serving"       // health NOT_SERVING
	modeIgnoreTerm      = "ignore-term"       // like good, but ignores SIGTERM
	modeCustomLine      = "custom-line"       // prints CHATBUS_HELPER_LINE (%s = socket), then sleeps
	modeExitEarly       = "exit-early"        // exits 1 at once, printing nothing
)

// Other helper environment.
const (
	envHelper = "CHATBUS_HELPER"
	envStarts = "CHATBUS_HELPER_STARTS" // file: one line per start
	envLine   = "CHATBUS_HELPER_LINE"
)

// longLine is the length of the over-long stderr line the good helper
// writes.
const longLine = 70000

// structuredLine is a structured log record the good helper writes to
// stderr, as the Go SDK's logger does.
const structuredLine = `{"level":"error","provider":"inner","error":"boom","n":3,"time":"2026-01-01T00:00:00Z","message":"structured"}`

// TestHelperProcess is not a test: it is the fake provider.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envHelper)
	if mode == "" {
		return
	}
	os.Exit(helperMain(mode))
}

func helperMain(mode string) int {
	name, sock := os.Getenv(EnvName), os.Getenv(EnvSocket)
	if f := os.Getenv(envStarts); f != "" {
		fd, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(fd, os.Getpid())
		fd.Close()
	}
	switch mode {
	case modeNoHandshake:
		// stderr first: the supervisor kills it once it read stdout.
		fmt.Fprintln(os.Stderr, "usage: no token given")
		fmt.Println("hello, I am not a provider")
		time.Sleep(time.Hour)
		return 1
	case modeSlowHandshake:
		time.Sleep(time.Hour)
		return 1
	case modeCustomLine:
		fmt.Println(strings.ReplaceAll(os.Getenv(envLine), "%s", sock))
		time.Sleep(time.Hour)
		return 1
	case modeExitEarly:
		return 1
	}

	cfg, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read stdin:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "config: %s\n", cfg)
	if mode == modeGood {
		fmt.Fprintln(os.Stderr, strings.Repeat("x", longLine))
		fmt.Fprintln(os.Stderr, structuredLine)
	}

	lis, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen:", err)
		return 1
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	st := healthpb.HealthCheckResponse_SERVING
	if mode == modeNotServing {
		st = healthpb.HealthCheckResponse_NOT_SERVING
	}
	hs.SetServingStatus(name, st)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGUSR1)
	go srv.Serve(lis)

	fmt.Printf("1|unix|%s|grpc\n", sock)
	if mode == modeCrashAfterReady {
		for i := range TailLines + 2 {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "panic: oh no")
		return 3
	}
	fmt.Println("stdout after handshake")
	fmt.Fprintln(os.Stderr, "stderr-done pid "+strconv.Itoa(os.Getpid()))
	for sig := range sigs {
		switch {
		// Stop like the provider SDK: NOT_SERVING, then a graceful stop,
		// which waits for every open RPC (unbounded here).
		case sig == syscall.SIGTERM && mode != modeIgnoreTerm:
			fmt.Fprintln(os.Stderr, "got SIGTERM")
			hs.Shutdown()
			srv.GracefulStop()
			return 0
		case sig == syscall.SIGUSR1 && mode == modeExitOnRequest:
			fmt.Fprintln(os.Stderr, "exiting on request")
			hs.Shutdown()
			srv.GracefulStop()
			return 0
		}
	}
	return 1
}
