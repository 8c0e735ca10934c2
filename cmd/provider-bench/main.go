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
	"time"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
)

const usage = `provider-bench: the benchmark provider child of supervisord (see cmd/busbench).

Started by supervisord for a providers entry with binary: .../provider-bench.
Contract: env CHATBUS_PROVIDER_SOCKET and CHATBUS_PROVIDER_NAME, settings as
JSON on stdin (forum_chat_id, control, inject, thread_base, pprof_dir, paced), one
handshake line "1|unix|<socket>|grpc" on stdout.`

// program is the child: the kit's runtime reads the settings and serves.
var program = child.Program{Name: "bench", Usage: usage, Build: build}

func main() { child.Exec(program) }

// settings are the platform's settings (the runtime takes out the
// supervisor's keys).
type settings struct {
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

// parseSettings decodes and checks the settings.
func parseSettings(raw json.RawMessage) (settings, error) {
	var s settings
	if err := provider.DecodeSettings(raw, &s); err != nil {
		return s, err
	}
	if s.ForumChatID == 0 {
		return s, provider.Settingf("forum_chat_id", "required")
	}
	return s, nil
}

// build makes the platform and, unless in check mode, serves its control
// API until the runtime closes the platform after serving.
func build(b child.BuildContext) (provider.Platform, error) {
	s, err := parseSettings(b.Settings)
	if err != nil {
		return nil, err
	}
	if s.ThreadBase == 0 {
		s.ThreadBase = time.Now().UnixMicro()
	}
	p := newPlatform(s.ForumChatID, s.ThreadBase, s.Inject)
	p.paced = s.Paced
	if s.Control != "" && !b.Check {
		ctl := &control{p: p, path: s.Control, pprofDir: s.PprofDir, log: b.Logger.With().Str("component", "control").Logger()}
		p.stopControl = ctl.start(context.Background())
	}
	return p, nil
}
