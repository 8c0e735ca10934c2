package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
)

// platformCall is one Bot API call a node made, as its proxy saw it.
type platformCall struct {
	at     time.Time // when it arrived
	method string
	status int // the Bot API's answer (0: none, the caller went)
}

// platformProxy is one node's way to the Bot API stand-in: it passes
// every call on and keeps it, so that each call is the node's.
type platformProxy struct {
	hs    *httptest.Server
	mu    sync.Mutex
	calls []platformCall
}

func newPlatformProxy(t *testing.T, target string) *platformProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = nil
	pp := &platformProxy{}
	pp.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		rp.ServeHTTP(sw, r)
		pp.mu.Lock()
		pp.calls = append(pp.calls, platformCall{at: at, method: path.Base(r.URL.Path), status: sw.status})
		pp.mu.Unlock()
	}))
	t.Cleanup(pp.hs.Close)
	return pp
}

func (pp *platformProxy) URL() string { return pp.hs.URL }

// since returns the calls that arrived after t, and how many of all
// calls since then were answered 409 Conflict.
func (pp *platformProxy) since(t time.Time) (calls []platformCall, conflicts int) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	for _, c := range pp.calls {
		if c.at.After(t) {
			calls = append(calls, c)
			if c.status == http.StatusConflict {
				conflicts++
			}
		}
	}
	return calls, conflicts
}

// last is the arrival of the last call (zero if none).
func (pp *platformProxy) last() time.Time {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if len(pp.calls) == 0 {
		return time.Time{}
	}
	return pp.calls[len(pp.calls)-1].at
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// lostSince returns when node n's log says it lost its leadership
// (the first time after since), if it does.
func lostSince(n *clusterNode, since time.Time) (time.Time, bool) {
	return logSince(n, since, "no longer the leader of")
}

// logSince returns the time of the first line of node n's log after
// since whose message holds msg, if there is one.
func logSince(n *clusterNode, since time.Time, msg string) (time.Time, bool) {
	sc := bufio.NewScanner(strings.NewReader(n.d.stderr.String()))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Time    time.Time `json:"time"`
			Message string    `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || !strings.Contains(line.Message, msg) {
			continue
		}
		// The log's times are to the millisecond.
		if line.Time.After(since.Add(-time.Millisecond)) {
			return line.Time, true
		}
	}
	return time.Time{}, false
}

// knewLost waits until node n's log says it lost its leadership (after
// since), and returns when it knew (the line's time).
func knewLost(t *testing.T, n *clusterNode, since time.Time) time.Time {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if at, ok := lostSince(n, since); ok {
			return at
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not say it lost its leadership", n.name)
	return time.Time{}
}

// checkQuiet checks that deposed, which knew it lost at knew, made no
// Bot API call from 200ms after (until it led again, if until is not
// zero), and that next's poller was answered no 409 since start.
func checkQuiet(t *testing.T, what string, deposed, next *clusterNode, knew, healed, start, until time.Time) {
	t.Helper()
	late, _ := deposed.bot.since(knew.Add(200 * time.Millisecond))
	if !until.IsZero() {
		late = slices.DeleteFunc(late, func(c platformCall) bool { return !c.at.Before(until) })
	}
	_, conflicts := next.bot.since(start)
	last := deposed.bot.last()
	t.Logf("%s: %s knew it lost %s after it was woken/healed; its last Bot API call %s after it knew; %d calls later than 200ms after; %d × 409 at the new leader %s",
		what, deposed.name, knew.Sub(healed).Round(time.Millisecond), last.Sub(knew).Round(time.Millisecond), len(late), conflicts, next.name)
	for _, c := range late {
		t.Errorf("%s: %s called %s %s after it knew it lost (%d)", what, deposed.name, c.method, c.at.Sub(knew).Round(time.Millisecond), c.status)
	}
	if conflicts != 0 {
		t.Errorf("%s: the new leader %s was answered 409 Conflict %d times", what, next.name, conflicts)
	}
}

// keyedCaller makes keyed calls through one node's socket, one after
// the other, each repeated with its key until it is answered; the texts
// it had answered.
type keyedCaller struct {
	mu       sync.Mutex
	answered []string
	thread   int64
}

func (kc *keyedCaller) run(ctx context.Context, n *clusterNode, name string) {
	i := 0
	for ctx.Err() == nil {
		c, err := client.Dial(n.p.socket, client.WithSecretFile(filepath.Join(n.p.state, "secret")))
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:" + name, InstanceID: name + "-i", Cwd: "/w/" + name})
		if err != nil {
			c.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		kc.mu.Lock()
		kc.thread = f.Registered().GetBinding().GetTarget().GetThreadId()
		kc.mu.Unlock()
		for ctx.Err() == nil {
			text := fmt.Sprintf("%s-%03d", name, i)
			if _, err := f.Call(ctx, "sendMessage", []byte(fmt.Sprintf(`{"text":%q}`, text)), text); err != nil {
				break // the same key again, through a new registration
			}
			kc.mu.Lock()
			kc.answered = append(kc.answered, text)
			kc.mu.Unlock()
			i++
			time.Sleep(20 * time.Millisecond)
		}
		f.Close(context.Background())
		c.Close()
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusterDeposedLeaderGoesQuiet: three supervisords, each reaching
// the Bot API through its own proxy (every call counted by node) and etcd
// through its own forwarders, a follower on each node, updates flowing,
// keyed calls made through the leader's node. The leader is deposed
// three times: its supervisord paused past the lease, its host paused
// past the lease (supervisord and its provider child stopped, then woken
// together), and cut off from etcd alone; then etcd's own leader dies.
// Each
// time: from 200 ms after the deposed node says it lost, the Bot API sees
// no call from it; the new leader's poller gets no 409; every update
// reaches its follower exactly once; every keyed call answered reached
// the platform exactly once.
func TestClusterDeposedLeaderGoesQuiet(t *testing.T) {
	tc := startCluster(t, 3)
	for i := range tc.nodes {
		tc.start(i)
	}
	leader := tc.waitLeader("")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rs := make([]*resumer, len(tc.nodes))
	ready := make(chan struct{}, len(rs))
	var wg sync.WaitGroup
	for i, n := range tc.nodes {
		rs[i] = &resumer{key: fmt.Sprintf("manual:%s", n.name), seen: map[string]int{}}
		wg.Go(func() { rs[i].run(ctx, t, n.p, ready) })
	}
	for range rs {
		select {
		case <-ready:
		case <-time.After(60 * time.Second):
			t.Fatal("followers did not register")
		}
	}
	var want [3][]string
	var wantMu sync.Mutex
	sent := 0
	post := func(n int) {
		wantMu.Lock()
		defer wantMu.Unlock()
		for range n {
			i := sent % len(rs)
			text := fmt.Sprintf("u%05d", sent)
			want[i] = append(want[i], text)
			tc.tg.PushMessage(forumChat, int(rs[i].threadID()), allowedUser, text)
			sent++
		}
	}
	// Updates flow all along: 20 a second.
	postCtx, stopPosting := context.WithCancel(ctx)
	var pwg sync.WaitGroup
	pwg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-postCtx.Done():
				return
			case <-tick.C:
				post(1)
			}
		}
	})
	// waitDelivered waits until each follower has had every update sent
	// to its thread so far: a total, which the others' updates make up
	// for a follower still away, would let the next fault begin while
	// the deposed node's follower is not back (and its thread, retired
	// by the new leader's reconciliation, free for the next fresh
	// registration).
	waitDelivered := func(what string) {
		t.Helper()
		wantMu.Lock()
		var n [3]int
		for i := range want {
			n[i] = len(want[i])
		}
		wantMu.Unlock()
		deadline := time.Now().Add(90 * time.Second)
		for i, r := range rs {
			for r.count() < n[i] {
				if time.Now().After(deadline) {
					clusterUndelivered(t, tc, rs, want[:], &wantMu)
					t.Fatalf("%s: %s had %d of the %d updates sent to it (leader %q)", what, r.key, r.count(), n[i], tc.leader())
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	waitDelivered("at the start")

	type fault struct {
		name         string
		depose, heal func(n *clusterNode)
	}
	var paused []int
	faults := []fault{
		{name: "supervisord paused past the lease", depose: func(n *clusterNode) {
			paused = []int{n.d.cmd.Process.Pid}
			syscall.Kill(paused[0], syscall.SIGSTOP)
		}, heal: func(n *clusterNode) {
			syscall.Kill(paused[0], syscall.SIGCONT)
		}},
		{name: "host paused past the lease", depose: func(n *clusterNode) {
			paused = append([]int{n.d.cmd.Process.Pid}, childrenOf(n.d.cmd.Process.Pid, "provider-telegram")...)
			for _, pid := range paused {
				syscall.Kill(pid, syscall.SIGSTOP)
			}
		}, heal: func(n *clusterNode) {
			for _, pid := range paused {
				syscall.Kill(pid, syscall.SIGCONT)
			}
		}},
		{name: "cut off from etcd alone", depose: func(n *clusterNode) {
			for _, fw := range n.etcd {
				fw.Cut()
			}
		}, heal: func(n *clusterNode) {
			for _, fw := range n.etcd {
				fw.Restore()
			}
		}},
	}
	var callers []*keyedCaller
	for i, f := range faults {
		start := time.Now()
		kc := &keyedCaller{}
		callers = append(callers, kc)
		kctx, stopCalls := context.WithCancel(ctx)
		var kwg sync.WaitGroup
		kwg.Go(func() { kc.run(kctx, leader, fmt.Sprintf("kc%d", i)) })
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			kc.mu.Lock()
			n := len(kc.answered)
			kc.mu.Unlock()
			if n >= 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no keyed call answered through %s", f.name, leader.name)
			}
		}

		deposedAt := time.Now()
		f.depose(leader)
		next := tc.waitLeader(leader.name)
		t.Logf("%s: %s deposed; %s leads %s later", f.name, leader.name, next.name, time.Since(deposedAt).Round(time.Millisecond))
		healedAt := time.Now()
		f.heal(leader)
		knew := knewLost(t, leader, deposedAt)
		for deadline := time.Now().Add(30 * time.Second); len(childrenOf(leader.d.cmd.Process.Pid, "provider-telegram")) > 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the deposed leader's provider child still runs", f.name)
			}
		}
		waitDelivered(f.name)
		stopCalls()
		kwg.Wait()

		checkQuiet(t, f.name, leader, next, knew, healedAt, start, time.Time{})
		leader = next
	}

	// etcd's own raft leader dies, keyed calls queued on the leader's
	// node: deliveries stall for about an etcd election. With this test's
	// short lease (2s, etcd's election timeout here) the chatbus
	// leader may be deposed meanwhile; if it is, it goes quiet as above.
	{
		start := time.Now()
		kc := &keyedCaller{}
		callers = append(callers, kc)
		kctx, stopCalls := context.WithCancel(ctx)
		var kwg sync.WaitGroup
		kwg.Go(func() { kc.run(kctx, leader, "kc-etcd") })
		child := childrenOf(leader.d.cmd.Process.Pid, "provider-telegram")
		stopped, err := tc.ec.StopLeader()
		if err != nil {
			t.Fatal(err)
		}
		waitDelivered("etcd leader lost")
		t.Logf("etcd leader lost: member %d stopped; deliveries caught up %s later", stopped, time.Since(start).Round(time.Millisecond))
		next := tc.waitLeader("")
		if knew, lost := lostSince(leader, start); lost {
			// The deposed term's child goes; if the same node won
			// again, its next term's child runs.
			for deadline := time.Now().Add(30 * time.Second); len(child) > 0 && slices.Contains(childrenOf(leader.d.cmd.Process.Pid, "provider-telegram"), child[0]); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("etcd leader lost: the deposed leader's provider child still runs")
				}
			}
			var again time.Time
			if next == leader {
				again, _ = logSince(leader, knew, "; starting the supervisor") // its own election, not one it saw
				t.Logf("etcd leader lost: %s lost its lease and won again %s later", leader.name, again.Sub(knew).Round(time.Millisecond))
			}
			checkQuiet(t, "etcd leader lost", leader, next, knew, start, start, again)
		} else {
			_, conflicts := next.bot.since(start)
			t.Logf("etcd leader lost: %s kept leading; %d × 409", next.name, conflicts)
			if next != leader || conflicts != 0 {
				t.Errorf("etcd leader lost: %s leads (was %s), %d × 409", next.name, leader.name, conflicts)
			}
		}
		leader = next
		stopCalls()
		kwg.Wait()
	}

	stopPosting()
	pwg.Wait()
	waitDelivered("at the end")
	cancel()
	wg.Wait()
	for i, r := range rs {
		if len(r.texts) != len(want[i]) {
			t.Errorf("%s: %d updates, want %d", r.key, len(r.texts), len(want[i]))
		}
		for j := range min(len(r.texts), len(want[i])) {
			if r.texts[j] != want[i][j] {
				t.Fatalf("%s update %d: %q, want %q", r.key, j, r.texts[j], want[i][j])
			}
		}
		for text, n := range r.seen {
			if n != 1 {
				t.Errorf("%s delivered %d times", text, n)
			}
		}
	}
	for _, kc := range callers {
		landed := map[string]int{}
		for _, m := range tc.tg.Sent(forumChat, int(kc.thread)) {
			landed[m.Text]++
		}
		for _, text := range kc.answered {
			if landed[text] != 1 {
				t.Errorf("keyed call %s reached the platform %d times", text, landed[text])
			}
		}
		t.Logf("%d keyed calls answered in thread %d", len(kc.answered), kc.thread)
	}
}

// clusterUndelivered logs, for a test that waited in vain, what each
// follower lacks and where the leader holds it: the bindings, and the
// updates each binding holds unacknowledged.
func clusterUndelivered(t *testing.T, tc *testCluster, rs []*resumer, want [][]string, wantMu *sync.Mutex) {
	t.Helper()
	wantMu.Lock()
	defer wantMu.Unlock()
	for i, r := range rs {
		r.mu.Lock()
		var missing []string
		for _, text := range want[i] {
			if r.seen[text] == 0 {
				missing = append(missing, text)
			}
		}
		t.Logf("%s (thread %d): %d delivered, last seq %d; missing %d: %v", r.key, r.thread, len(r.texts), r.last, len(missing), missing)
		r.mu.Unlock()
	}
	l := tc.leader()
	if l == "" {
		return
	}
	nd := tc.node(l)
	table, _, _ := nd.p.busctl("bindings")
	t.Logf("bindings on the leader %s:\n%s", l, table)
	names, _, _ := nd.p.busctl("bindings", "-o", "name")
	for _, key := range strings.Fields(names) {
		held, _, _ := nd.p.busctl("updates", key)
		t.Logf("held for %s:\n%s", key, held)
	}
	un, _, _ := nd.p.busctl("updates", "--unrouted")
	t.Logf("unrouted:\n%s", un)
}
