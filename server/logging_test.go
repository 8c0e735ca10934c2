package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/servertest"
)

// finishedCalls returns the "finished call" records of method in the JSON
// log lines written to logs, in order.
func finishedCalls(t *testing.T, logs *testkit.SyncBuffer, method string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["message"] == "finished call" && rec["grpc.method"] == method {
			out = append(out, rec)
		}
	}
	return out
}

// TestCallLogging: at info, a successful call leaves no line and a failed
// one is logged at warn with its method, code, error and caller pid; at
// debug, successful calls are logged too.
func TestCallLogging(t *testing.T) {
	for _, lvl := range []zerolog.Level{zerolog.InfoLevel, zerolog.DebugLevel} {
		t.Run(lvl.String(), func(t *testing.T) {
			logs := &testkit.SyncBuffer{}
			sup := servertest.Start(t, server.Config{Logger: zerolog.New(logs).Level(lvl)})
			c := sup.Dial(t)
			r := register(t, c, "a")
			if _, err := c.Bus.Heartbeat(ctxT(t), &chatbusv1.HeartbeatRequest{Session: r.GetSession()}); err != nil {
				t.Fatal(err)
			}
			bad := &chatbusv1.Session{InstanceId: "a", Token: "not-the-token-of-anyone"}
			if _, err := c.Bus.Heartbeat(ctxT(t), &chatbusv1.HeartbeatRequest{Session: bad}); status.Code(err) != codes.NotFound {
				t.Fatalf("heartbeat with a wrong token: %v", err)
			}
			sup.Stop(t)

			got := finishedCalls(t, logs, "Heartbeat")
			want := 1
			if lvl == zerolog.DebugLevel {
				want = 2
			}
			if len(got) != want {
				t.Fatalf("%d Heartbeat lines at %s, want %d: %v", len(got), lvl, want, got)
			}
			if lvl == zerolog.DebugLevel {
				if ok := got[0]; ok["level"] != "debug" || ok["grpc.code"] != "OK" || ok["grpc.error"] != nil {
					t.Errorf("successful call logged as %v", ok)
				}
			}
			fail := got[len(got)-1]
			for k, v := range map[string]any{
				"level": "warn", "grpc.service": "chatbus.v1.BusService", "grpc.method_type": "unary",
				"grpc.code": "NotFound", "peer.pid": float64(os.Getpid()),
			} {
				if fail[k] != v {
					t.Errorf("failed call: %s = %v, want %v (%v)", k, fail[k], v, fail)
				}
			}
			if e, _ := fail["grpc.error"].(string); !strings.Contains(e, "session unknown") {
				t.Errorf("failed call: grpc.error %q", e)
			}
			if _, ok := fail["grpc.time_ms"].(float64); !ok {
				t.Errorf("failed call has no duration: %v", fail)
			}
		})
	}
}

// TestRefusalsDoNotFloodTheLog: thousands of calls with a wrong secret
// leave a handful of log lines per second, the last saying how many were
// held back; each refused call is logged once, never also as a finished
// call.
func TestRefusalsDoNotFloodTheLog(t *testing.T) {
	logs := &testkit.SyncBuffer{}
	sup := servertest.Start(t, server.Config{Logger: zerolog.New(logs).Level(zerolog.InfoLevel)})
	c, err := client.Dial(sup.Config.Socket, client.WithSecret("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := strings.Count(logs.String(), "\n")

	refuse := func() {
		if _, err := c.Info(ctxT(t)); !errors.Is(err, client.ErrUnauthenticated) {
			t.Fatalf("call with a wrong secret: %v", err)
		}
	}
	calls := 3000
	start := time.Now()
	for range calls {
		refuse()
	}
	// Held-back refusals are counted in the next line that gets through:
	// keep being refused until one does.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), `"suppressed"`); calls++ {
		if time.Now().After(deadline) {
			t.Fatal("no auth_refused line ever said how many were suppressed")
		}
		refuse()
	}
	elapsed := time.Since(start)
	sup.Stop(t)

	all := strings.Split(strings.TrimSpace(logs.String()), "\n")[before:]
	var refused, finished, suppressed int
	for _, line := range all {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		switch {
		case rec["event"] == "auth_refused":
			refused++
			if s, ok := rec["suppressed"].(string); ok {
				n, _ := strconv.Atoi(s)
				suppressed += n
			}
		case rec["message"] == "finished call":
			finished++
		}
	}
	// At most refusalBurst (3) per started second for this one peer.
	bound := 3 * (int(elapsed/time.Second) + 1)
	if refused == 0 || refused > bound {
		t.Errorf("%d auth_refused lines for %d refusals in %s; want 1..%d", refused, calls, elapsed, bound)
	}
	if finished != 0 {
		t.Errorf("%d refused calls also logged as finished calls", finished)
	}
	if refused+suppressed > calls || suppressed == 0 {
		t.Errorf("reported %d + suppressed %d, of %d refusals", refused, suppressed, calls)
	}
	var watched int
	for _, e := range sup.Events().Recent() {
		if e.Kind == events.AuthRefused {
			watched++
		}
	}
	if watched != refused {
		t.Errorf("%d auth_refused events, %d logged", watched, refused)
	}
}
