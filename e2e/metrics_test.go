package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
	"github.com/chatbus/chatbus/server/metrics/metricstest"
)

// scraper fetches the supervisor's /metrics and parses it with
// prometheus/common's text parser, as a Prometheus server would.
type scraper struct {
	url string
	hc  *http.Client
}

func (s *scraper) scrape(t *testing.T) metricstest.Scrape {
	t.Helper()
	resp, err := s.hc.Get(s.url)
	if err != nil {
		t.Fatalf("scrape %s: %v", s.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", s.url, resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("scrape content type %q, want the text format", ct)
	}
	sc, err := metricstest.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// metricsSocket is a path for a metrics Unix socket in a short directory
// of its own (a socket path has at most 107 bytes), removed at cleanup.
func metricsSocket(t *testing.T) string {
	t.Helper()
	run, err := os.MkdirTemp("", "cbm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	return filepath.Join(run, "metrics.sock")
}

// unixScraper scrapes over the Unix socket at path.
func unixScraper(t *testing.T, path string) *scraper {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &scraper{url: "http://supervisord/metrics", hc: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// metricsURLFromLog waits for supervisord's "metrics: serving on" line and
// returns its url: how an operator learns a port picked at start.
func metricsURLFromLog(t *testing.T, d *daemon) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(d.stderr.String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Message string `json:"message"`
				URL     string `json:"url"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && strings.HasPrefix(line.Message, "metrics: serving on ") {
				return line.URL
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no metrics line in the log:\n%s", d.stderr.String())
	return ""
}

// delta is a scrape's value less the baseline's.
func delta(after, before metricstest.Scrape, name string, labels ...string) float64 {
	return after.Get(name, labels...) - before.Get(name, labels...)
}

// waitMetric scrapes until ok holds, within 20s.
func waitMetric(t *testing.T, s *scraper, d *daemon, what string, ok func(metricstest.Scrape) bool) metricstest.Scrape {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		sc := s.scrape(t)
		if ok(sc) {
			return sc
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never showed %s\n%s", what, d.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMetricsAfterARealFlow: supervisord with the real Telegram provider
// against the stand-in, metrics served on a Unix socket and on 127.0.0.1
// with a port picked at start. A health flip, updates in (routed, unrouted,
// from a stranger), delivered and acked, calls (answered, repeated by key,
// rate limited, refused) and a doctor restart move the metrics by exactly
// what happened; the Grafana dashboard uses only metrics the scrape has.
func TestMetricsAfterARealFlow(t *testing.T) {
	for _, mode := range []string{"unix", "tcp"} {
		t.Run(mode, func(t *testing.T) {
			run, err := os.MkdirTemp("", "cbm")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(run) })
			sock := filepath.Join(run, "metrics.sock")
			listen := "unix://" + sock
			if mode == "tcp" {
				listen = "127.0.0.1:0"
			}
			b := startTelegramBus(t, "metrics:\n  listen: "+listen+"\n")
			s := unixScraper(t, sock)
			if mode == "tcp" {
				s = &scraper{url: metricsURLFromLog(t, b.d), hc: &http.Client{Timeout: 10 * time.Second}}
				if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/metrics$`).MatchString(s.url) {
					t.Fatalf("logged metrics url %q does not name the port taken", s.url)
				}
			} else {
				fi, err := os.Stat(sock)
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("metrics socket: %v, %v; want 0600", fi, err)
				}
			}
			metricsFlow(t, b, s)
			if mode == "unix" {
				// The socket goes with the supervisor.
				b.d.cmd.Process.Signal(os.Interrupt)
				if err := b.d.wait(t, 20*time.Second); err != nil {
					t.Fatalf("supervisord stop: %v", err)
				}
				if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("metrics socket left after stop: %v", err)
				}
			}
		})
	}
}

func metricsFlow(t *testing.T, b *tgBus, s *scraper) {
	const tg = "telegram"
	base := s.scrape(t)
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "chatbus_followers_connected"} {
		if !base.Has(name) {
			t.Fatalf("%s missing from the first scrape", name)
		}
	}
	if v := base.Get("chatbus_provider_state", "provider", tg, "state", "RUNNING"); v != 1 {
		t.Errorf("provider_state RUNNING = %v, want 1", v)
	}

	// A health flip and back: 409 makes the provider NOT_SERVING.
	b.tg.FailAlways("getUpdates", tgtest.Fault{Status: 409})
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING on 409")
	waitMetric(t, s, b.d, "provider_serving 0", func(sc metricstest.Scrape) bool {
		return sc.Get("chatbus_provider_serving", "provider", tg) == 0
	})
	b.tg.ClearFaults()
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING again")

	// Updates in: two for the follower's thread, one from a stranger, one
	// in the General topic (unrouted).
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "one")
	alpha.waitTexts(t, "one") // its stream is open now: "two" is delivered live
	b.tg.PushMessage(forumChat, int(alpha.thread()), strangerID, "from a stranger")
	b.tg.PushMessage(forumChat, 0, allowedUser, "in the General topic")
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "two")
	alpha.waitTexts(t, "one", "two")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 4 }, "ingested 4")

	// Calls: answered, repeated by key (served from the record), rate
	// limited by the platform, and a method the provider did not declare.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"hello"}`), "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"hello"}`), "k1"); err != nil {
		t.Fatal(err)
	}
	if n := len(b.tg.Sent(forumChat, int(alpha.thread()))); n != 1 {
		t.Fatalf("%d messages at the stand-in after a repeat by key, want 1", n)
	}
	// A 429 is counted, and waited out: the call is made once after it.
	b.tg.Fail("sendMessage", tgtest.Fault{Status: 429, RetryAfter: 1})
	if _, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"slow down"}`), ""); err != nil {
		t.Fatalf("a call under a 429: %v", err)
	}
	if _, err := alpha.f.Call(ctx, "getUpdates", []byte(`{}`), ""); !errors.Is(err, client.ErrPermissionDenied) {
		t.Fatalf("undeclared method: %v, want permission denied", err)
	}

	// Every delivered update acked: nothing held for the binding.
	mid := waitMetric(t, s, b.d, "both updates acked", func(sc metricstest.Scrape) bool {
		return delta(sc, base, "chatbus_grpc_handled_total", "method", "chatbus.v1.BusService/Ack", "code", "OK") == 2 &&
			sc.Get("chatbus_journal_pending_updates", "provider", tg) == 0
	})

	if got := delta(mid, base, "chatbus_provider_health_flips_total", "provider", tg); got != 2 {
		t.Errorf("health flips moved by %v over the 409 and back, want 2", got)
	}

	// The outbox: a call made while a prepare holds admission is held
	// (its caller's deadline passes), and sent once a cancel reopens it.
	id := b.prepare(t, "30s")
	hctx, hcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := alpha.f.Call(hctx, "sendMessage", []byte(`{"text":"held"}`), "held-1")
	hcancel()
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("held call: %v, want DeadlineExceeded", err)
	}
	waitMetric(t, s, b.d, "one call held", func(sc metricstest.Scrape) bool {
		return sc.Get("chatbus_outbox_held_calls", "provider", tg) == 1 && sc.Get("chatbus_call_records_open", "provider", tg) == 1
	})
	if _, errOut, code := b.busctl("doctor", "cancel", "telegram", "--request-id", id); code != 0 {
		t.Fatalf("cancel: %s", errOut)
	}
	waitMetric(t, s, b.d, "the held call sent", func(sc metricstest.Scrape) bool {
		return sc.Get("chatbus_outbox_held_calls", "provider", tg) == 0 && sc.Get("chatbus_call_records_open", "provider", tg) == 0
	})
	if n := len(b.tg.Sent(forumChat, int(alpha.thread()))); n != 3 {
		t.Errorf("%d messages at the stand-in after the held call was sent, want 3", n)
	}

	// A doctor restart, with its outcome.
	if out, errOut, code := b.busctl("doctor", "restart", "telegram", "--drain", "10s", "--deadline", "40s"); code != 0 {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	end := waitMetric(t, s, b.d, "the successor running", func(sc metricstest.Scrape) bool {
		return sc.Get("chatbus_provider_state", "provider", tg, "state", "RUNNING") == 1 &&
			sc.Get("chatbus_provider_serving", "provider", tg) == 1 &&
			delta(sc, base, "chatbus_provider_restarts_total", "provider", tg) == 1
	})
	// The restart flips health twice if the supervisor saw the old child
	// report NOT_SERVING as it stopped (and its successor SERVING), else
	// not at all: it may see the child's health watch end first.
	if got := delta(end, mid, "chatbus_provider_health_flips_total", "provider", tg); got != 0 && got != 2 {
		t.Errorf("health flips moved by %v over the doctor restart, want 0 or 2", got)
	}

	end.CheckDelta(t, base, []metricstest.Want{
		metricstest.W("chatbus_updates_received_total", 4, "provider", tg, "kind", "message"),
		metricstest.W("chatbus_updates_dropped_total", 1, "reason", "not_allowed"),
		metricstest.W("chatbus_updates_routed_total", 2, "provider", tg),
		metricstest.W("chatbus_updates_unrouted_total", 1, "provider", tg),
		metricstest.W("chatbus_updates_duplicate_total", 0, "provider", tg),
		metricstest.W("chatbus_delivery_latency_seconds", 2), // both phases
		metricstest.W("chatbus_calls_total", 3, "method", "sendMessage", "code", "OK"),
		metricstest.W("chatbus_calls_total", 0, "method", "sendMessage", "code", "ResourceExhausted"),
		metricstest.W("chatbus_calls_total", 1, "method", "other", "code", "PermissionDenied"),
		metricstest.W("chatbus_calls_total", 1, "method", "sendMessage", "code", "DeadlineExceeded"),
		metricstest.W("chatbus_call_duration_seconds", 4, "method", "sendMessage"),
		metricstest.W("chatbus_call_repeats_total", 1, "provider", tg, "answer", "recorded"),
		metricstest.W("chatbus_call_repeats_total", 0, "provider", tg, "answer", "in_flight"),
		metricstest.W("chatbus_platform_rate_limited_total", 1, "provider", tg),
		metricstest.W("chatbus_platform_retry_after_seconds", 1, "provider", tg),
		metricstest.W("chatbus_grpc_handled_total", 1, "method", "chatbus.v1.BusService/Register", "code", "OK"),
		metricstest.W("chatbus_grpc_handled_total", 2, "method", "chatbus.v1.BusService/Ack", "code", "OK"),
		metricstest.W("chatbus_grpc_handled_total", 5, "method", "chatbus.v1.BusService/Call"),
		metricstest.W("chatbus_doctor_restarts_total", 1, "provider", tg, "outcome", "restarted", "reason", "none"),
		metricstest.W("chatbus_provider_restarts_total", 1, "provider", tg),
	})
	if got := retryAfterSum(end, tg) - retryAfterSum(base, tg); got != 1 {
		t.Errorf("retry_after observed %vs in all, want the 1s the platform asked for", got)
	}
	// "one" may have been journalled before the follower's stream opened
	// (then it was replayed), "two" was not.
	if live := delta(end, base, "chatbus_delivery_latency_seconds", "phase", "live"); live < 1 {
		t.Errorf("%v live deliveries, want at least the one sent while the stream was open", live)
	}
	end.Check(t, []metricstest.Want{
		metricstest.W("chatbus_followers_connected", 1),
		metricstest.W("chatbus_bindings", 1, "provider", tg, "status", "active"),
		metricstest.W("chatbus_journal_pending_updates", 0, "provider", tg),
		metricstest.W("chatbus_ack_lag_updates", 0, "provider", tg),
		metricstest.W("chatbus_journal_unrouted_pending_updates", 1),
		metricstest.W("chatbus_binding_pending_updates", 0, "provider", tg, "binding", "manual:1"),
		metricstest.W("chatbus_provider_serving", 1, "provider", tg),
		metricstest.W("chatbus_outbox_held_calls", 0, "provider", tg),
		metricstest.W("chatbus_call_records_open", 0, "provider", tg),
	})
	if age := end.Get("chatbus_journal_unrouted_oldest_age_seconds"); age <= 0 {
		t.Errorf("unrouted oldest age %v, want > 0 (one is held)", age)
	}
	// The state file: commits moved, two fdatasyncs and one latency each.
	// A scrape gathers its collectors concurrently, so a commit under way
	// can be in one counter and not yet in the next: the relation is
	// checked on the totals since start, on a scrape that caught the store
	// between commits (one that never does fails the test).
	if commits := delta(mid, base, "chatbus_store_commits_total", "result", "ok"); commits < 3 {
		t.Errorf("store commits moved by %v: the journal writes, call records and acks commit", commits)
	}
	waitMetric(t, s, b.d, "two fdatasyncs and one latency for each commit", func(sc metricstest.Scrape) bool {
		ok := sc.Get("chatbus_store_commits_total", "result", "ok")
		failed := sc.Get("chatbus_store_commits_total", "result", "error")
		return ok > 0 && sc.Get("chatbus_store_fsyncs_total") == 2*ok &&
			sc.Get("chatbus_store_commit_duration_seconds") == ok+failed
	})

	checkDashboard(t, end)
}

// retryAfterSum is the sum of the provider's retry_after observations.
func retryAfterSum(sc metricstest.Scrape, provider string) float64 {
	var sum float64
	for _, m := range sc["chatbus_platform_retry_after_seconds"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "provider" && l.GetValue() == provider {
				sum += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return sum
}

// promName matches the metric names in a PromQL expression: chatbus's own
// and the runtime and process collectors'.
var promName = regexp.MustCompile(`\b(?:chatbus|go|process)_[a-zA-Z0-9_]+\b`)

// checkDashboard parses deploy/grafana/chatbus.json and checks that every
// metric each panel's expression names is in the scrape.
func checkDashboard(t *testing.T, sc metricstest.Scrape) {
	t.Helper()
	b, err := os.ReadFile("../deploy/grafana/chatbus.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var exprs, missing []string
	used := map[string]bool{}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
			if !balanced(tg.Expr) {
				t.Errorf("panel %q: unbalanced brackets in %q", p.Title, tg.Expr)
			}
			names := promName.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: %q names no metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				used[n] = true
				if !sc.Has(n) && !slices.Contains(missing, n) {
					missing = append(missing, n)
				}
			}
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("dashboard %q has %d queries: nothing checked", dash.Title, len(exprs))
	}
	for _, n := range missing {
		t.Errorf("the dashboard uses %s, which the scrape does not have", n)
	}
	t.Logf("dashboard: %d queries over %d metrics, all in the scrape", len(exprs), len(used))
}

// TestMetricsListenRefused: a metrics address other machines may reach is
// refused before anything starts (exit 78, the line and what is wrong),
// unless allow_non_loopback says so; --check-config says the same.
func TestMetricsListenRefused(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string // "" = accepted
	}{
		{name: "every interface", body: "metrics:\n  listen: \":9464\"\n",
			want: `line 2: metrics.listen: ":9464": an empty host (every interface) is not a loopback address; use 127.0.0.1, ::1 or localhost, a unix:// socket, or set metrics.allow_non_loopback: true`},
		{name: "0.0.0.0", body: "metrics:\n  listen: 0.0.0.0:9464\n",
			want: `line 2: metrics.listen: "0.0.0.0:9464": host "0.0.0.0" is not a loopback address`},
		{name: "a LAN address", body: "metrics:\n  listen: 192.168.7.7:9464\n", want: `host "192.168.7.7" is not a loopback address`},
		{name: "a relative socket", body: "metrics:\n  listen: unix://metrics.sock\n",
			want: `line 2: metrics.listen: "unix://metrics.sock": want unix:///absolute/path or host:port (the socket path must be absolute`},
		{name: "not an address", body: "metrics:\n  listen: yes please\n", want: "want unix:///absolute/path or host:port"},
		{name: "non-loopback allowed", body: "metrics:\n  listen: 0.0.0.0:9464\n  allow_non_loopback: true\n"},
		{name: "loopback", body: "metrics:\n  listen: 127.0.0.1:9464\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProfile(t)
			path := writeConfig(t, tt.body)
			cmd := exec.Command(filepath.Join(binDir, "supervisord"), "--check-config", "--config", path)
			cmd.Env = p.env()
			out, err := cmd.CombinedOutput()
			if tt.want == "" {
				if err != nil || !strings.Contains(string(out), ": ok") {
					t.Fatalf("--check-config: %v\n%s", err, out)
				}
				return
			}
			if err == nil || !strings.Contains(string(out), tt.want) {
				t.Errorf("--check-config: %v\n%s\nwant %q", err, out, tt.want)
			}
			// Starting with it: refused before serving, exit 78.
			d := p.start("--config", path)
			err = d.wait(t, 30*time.Second)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 78 {
				t.Fatalf("exit %v, want 78\n%s", err, d.stderr.String())
			}
			want := fmt.Sprintf("supervisord: config %s: ", path)
			if !strings.Contains(d.stderr.String(), want) || !strings.Contains(d.stderr.String(), tt.want) {
				t.Errorf("stderr:\n%s\nwant %q…%q", d.stderr.String(), want, tt.want)
			}
			if _, err := os.Stat(p.socket); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the bus socket exists after a refused start: %v", err)
			}
		})
	}
}

// balanced reports whether expr's (), {} and [] nest properly (outside
// quoted strings).
func balanced(expr string) bool {
	var stack []rune
	inQuote := false
	for _, r := range expr {
		switch {
		case r == '"':
			inQuote = !inQuote
		case inQuote:
		case r == '(' || r == '{' || r == '[':
			stack = append(stack, r)
		case r == ')' || r == '}' || r == ']':
			open := map[rune]rune{')': '(', '}': '{', ']': '['}[r]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0 && !inQuote
}
