// Command provider-bench is the benchmark provider child of supervisord: a
// provider.Platform that injects synthetic Telegram-like updates at a
// controlled rate through the real provider contract, so that cmd/busbench
// can measure the supervisor's forwarding path without a network.
//
// Like every provider it is started by supervisord (env
// CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, settings as JSON on
// stdin, one handshake line on stdout). Its settings, beside the
// supervisor's name and forum_chat_id:
//
//	control      Unix socket of the control API (optional; see below)
//	inject       what to inject from the start (bench.Injection; default: nothing)
//	thread_base  first thread id Provision hands out, minus one (default: the
//	             start time in microseconds, so successive children never
//	             hand out the same id)
//	pprof_dir    where POST /pprof/start?name=N writes provider-N.cpu.pprof
//	paced        declare rate limits far above any load (default: none)
//
// The control API is HTTP on that socket: PUT /inject with a
// bench.Injection switches what is injected at run time; GET /stats
// answers bench.ProviderStats; POST /pprof/start?name=N and /pprof/stop
// take a CPU profile.
//
// Each update's text carries its send time (bench.SentAt). Provision
// returns sequential thread ids; Call echoes its params.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/provider/child"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider-bench:", err)
		os.Exit(1)
	}
}

// settings is the JSON on stdin.
type settings struct {
	Name        string          `json:"name"`
	ForumChatID int64           `json:"forum_chat_id"`
	Control     string          `json:"control"`
	Inject      bench.Injection `json:"inject"`
	ThreadBase  int64           `json:"thread_base"`
	PprofDir    string          `json:"pprof_dir"`
	// Paced declares rate limits far above any load (so the supervisor's
	// outbound scheduler counts every call against them and never holds
	// one back); false declares none.
	Paced bool `json:"paced"`
}

// readSettings reads and checks the settings on stdin.
func readSettings(r io.Reader) (secret string, s settings, err error) {
	raw, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return "", s, fmt.Errorf("read settings from stdin: %w", err)
	}
	secret, rest, err := child.SplitSettings(raw)
	if err != nil {
		return "", s, err
	}
	if err := json.Unmarshal(rest, &s); err != nil {
		return "", s, fmt.Errorf("settings: %w", err)
	}
	if s.ForumChatID == 0 {
		return "", s, errors.New("forum_chat_id: required")
	}
	return secret, s, nil
}

func checkSettings(r io.Reader) error {
	_, _, err := readSettings(r)
	return err
}

func run(ctx context.Context) error {
	if len(os.Args) > 1 && (os.Args[1] == "-h" || os.Args[1] == "--help") {
		fmt.Println(`provider-bench: the benchmark provider child of supervisord (see cmd/busbench).

Started by supervisord for a providers entry with binary: .../provider-bench.
Contract: env CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, settings as
JSON on stdin (forum_chat_id, control, inject, thread_base, pprof_dir, paced), one
handshake line "1|unix|<socket>|grpc" on stdout.`)
		return nil
	}
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("provider-bench", version.String())
		return nil
	}
	if len(os.Args) > 1 && os.Args[1] == child.CheckFlag {
		// Check mode (provider/README.md): the settings, nothing served.
		if err := checkSettings(os.Stdin); err != nil {
			fmt.Println(strings.Join(strings.Fields(err.Error()), " "))
			os.Exit(1)
		}
		return nil
	}
	socket := os.Getenv(child.EnvSocket)
	if socket == "" {
		return errors.New(child.EnvSocket + " is not set: this binary is started by supervisord (see --help)")
	}
	name := os.Getenv(child.EnvName)
	if name == "" {
		name = "bench"
	}
	secret, s, err := readSettings(os.Stdin)
	if err != nil {
		return err
	}
	if s.ThreadBase == 0 {
		s.ThreadBase = time.Now().UnixMicro()
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	p := newPlatform(s.ForumChatID, s.ThreadBase, s.Inject)
	p.paced = s.Paced
	if s.Control != "" {
		ctl := &control{p: p, path: s.Control, pprofDir: s.PprofDir, log: log.With().Str("component", "control").Logger()}
		stop := ctl.start(ctx)
		defer stop()
	}
	return child.Serve(ctx, child.Config{
		Name:     name,
		Socket:   socket,
		Platform: p,
		Secret:   secret,
		Logger:   log,
	})
}
