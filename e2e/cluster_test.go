package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/etcdtest"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// clusterNode is one supervisord of a cluster, with its own profile
// (socket, state dir) and config.
type clusterNode struct {
	name    string
	p       *profile
	config  string
	d       *daemon
	metrics string // the node's metrics socket
	// bot is the node's way to the Bot API (every call it makes is
	// counted there), etcd its ways to the etcd members.
	bot  *platformProxy
	etcd []*etcdtest.Forwarder
}

// testCluster is three supervisords in one cluster over a three-member
// etcd on loopback, with the Telegram stand-in.
type testCluster struct {
	t     *testing.T
	ec    *etcdtest.Cluster
	etcd  *clientv3.Client
	tg    *tgtest.Server
	nodes []*clusterNode
}

const clusterElection = "/chatbus/t/leader/telegram/"

func startCluster(t *testing.T, n int) *testCluster {
	t.Helper()
	ec := etcdtest.Start(t, 3)
	tc := &testCluster{t: t, ec: ec, etcd: ec.Client(t), tg: tgtest.New(t)}
	tc.tg.AddForum(forumChat)
	certs := t.TempDir()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	out, err := exec.Command(filepath.Join(binDir, "supervisord"), append([]string{"cluster-certs", "--dir", certs}, names...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster-certs: %v\n%s", err, out)
	}
	for _, name := range names {
		// Each node reaches etcd and the Bot API its own way, so that a
		// test can cut one node off from etcd alone and count every
		// platform call by node.
		var fws []*etcdtest.Forwarder
		var urls []string
		for _, ep := range ec.Endpoints {
			fw := etcdtest.Forward(t, strings.TrimPrefix(ep, "http://"))
			fws = append(fws, fw)
			urls = append(urls, fw.URL())
		}
		endpoints := `["` + strings.Join(urls, `", "`) + `"]`
		bot := newPlatformProxy(t, tc.tg.URL())
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		// reconcile_grace is the short 1s of the other tests: each new
		// leader soon retires the bindings of followers whose node is
		// down (or not back yet); they come back to their threads and
		// lose nothing.
		p := newProfile(t)
		msock := filepath.Join(filepath.Dir(p.socket), "metrics.sock")
		cfg := strings.Replace(telegramConfig(tc.tg, "metrics:\n  listen: unix://"+msock+"\n"), "base_url: "+tc.tg.URL(), "base_url: "+bot.URL(), 1) + fmt.Sprintf(`cluster:
  name: t
  node: %s
  etcd:
    endpoints: %s
  listen: %s
  tls:
    ca: %s
    cert: %s
    key: %s
  lease_ttl: 2s
`, name, endpoints, addr, filepath.Join(certs, "ca.pem"), filepath.Join(certs, name+".pem"), filepath.Join(certs, name+"-key.pem"))
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		tc.nodes = append(tc.nodes, &clusterNode{name: name, p: p, config: path, metrics: msock, bot: bot, etcd: fws})
	}
	return tc
}

// start starts node i's supervisord and waits until it serves through
// the leader (busctl status answers).
func (tc *testCluster) start(i int) {
	tc.t.Helper()
	n := tc.nodes[i]
	n.d = n.p.start("--config", n.config)
	n.p.waitServing(n.d)
}

// leader returns the name of the election's leader ("" if none).
func (tc *testCluster) leader() string {
	resp, err := tc.etcd.Get(context.Background(), clusterElection, clientv3.WithFirstCreate()...)
	if err != nil || len(resp.Kvs) == 0 {
		return ""
	}
	var l struct{ Node string }
	json.Unmarshal(resp.Kvs[0].Value, &l)
	return l.Node
}

func (tc *testCluster) node(name string) *clusterNode {
	for _, n := range tc.nodes {
		if n.name == name {
			return n
		}
	}
	tc.t.Fatalf("no node %q", name)
	return nil
}

// waitLeader waits until a leader other than not leads and its
// provider child runs, and returns it.
func (tc *testCluster) waitLeader(not string) *clusterNode {
	tc.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if l := tc.leader(); l != "" && l != not {
			n := tc.node(l)
			if len(childrenOf(n.d.cmd.Process.Pid, "provider-telegram")) > 0 {
				return n
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	tc.t.Fatalf("no leader other than %q with a running provider within 60s (leader now %q)", not, tc.leader())
	return nil
}

// procEntry is one process of the machine (processes, procs_<os>_test.go).
type procEntry struct {
	pid, ppid int
	comm      string // the kernel's short name
	zombie    bool
}

// childrenOf returns the pids of the live processes named comm whose
// parent is ppid.
func childrenOf(ppid int, comm string) []int {
	var out []int
	for _, p := range processes() {
		// The kernel keeps the first 15 (Linux) or 16 (macOS) bytes of the name.
		if p.ppid == ppid && !p.zombie && strings.HasPrefix(p.comm, comm[:min(len(comm), 15)]) {
			out = append(out, p.pid)
		}
	}
	return out
}

// TestClusterFailoverLosesNothing: three supervisords over a three-member
// etcd, a follower on each. The leader is SIGKILLed twice mid-stream (and
// started again: it rejoins as a relay at once); then the leader is
// SIGSTOPped past its lease: another wins, and when the stopped one wakes
// its supervisor and provider child are gone. Every update reaches its
// thread's follower exactly once, in order, and replays keep their seq;
// a call repeated with its key after a failover is made once.
func TestClusterFailoverLosesNothing(t *testing.T) {
	const perPhase = 150
	tc := startCluster(t, 3)
	for i := range tc.nodes {
		tc.start(i)
	}
	first := tc.waitLeader("")
	t.Logf("first leader: %s", first.name)

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
	threads := map[int64]bool{}
	for _, r := range rs {
		threads[r.threadID()] = true
	}
	if len(threads) != len(rs) {
		t.Fatalf("followers on three nodes share threads: %v", threads)
	}

	var want [3][]string
	sent := 0
	post := func(n int) {
		for range n {
			i := sent % len(rs)
			text := fmt.Sprintf("u%05d", sent)
			want[i] = append(want[i], text)
			tc.tg.PushMessage(forumChat, int(rs[i].threadID()), allowedUser, text)
			sent++
		}
	}
	delivered := func() int {
		n := 0
		for _, r := range rs {
			n += r.count()
		}
		return n
	}
	waitDelivered := func(n int, what string) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for delivered() < n {
			if time.Now().After(deadline) {
				for _, r := range rs {
					t.Logf("%s: %d delivered, last seq %d", r.key, r.count(), r.last)
				}
				for _, nd := range tc.nodes {
					if nd.d != nil && nd.name == tc.leader() {
						out, _, _ := nd.p.busctl("bindings")
						un, _, _ := nd.p.busctl("updates", "--unrouted")
						t.Logf("bindings:\n%s\nunrouted:\n%s", out, un)
					}
				}
				t.Fatalf("%s: %d of %d delivered (leader %q)", what, delivered(), n, tc.leader())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// A call with a key, made through a node that does not lead.
	var relayNode int
	for i, n := range tc.nodes {
		if n != first {
			relayNode = i
			break
		}
	}
	callOnce := func(key, text string) []byte {
		t.Helper()
		c, err := client.Dial(tc.nodes[relayNode].p.socket, client.WithSecretFile(filepath.Join(tc.nodes[relayNode].p.state, "secret")))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var res []byte
		deadline := time.Now().Add(60 * time.Second)
		for {
			f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:caller", InstanceID: "caller-" + key, Cwd: "/w/caller"})
			if err == nil {
				res, err = f.Call(ctx, "sendMessage", []byte(fmt.Sprintf(`{"text":%q}`, text)), key)
				f.Close(context.Background())
				if err == nil {
					return res
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("call %s: %v", key, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	res1 := callOnce("k-1", "once across failover")

	// Files through the relay: a person's file downloads, an upload lands
	// in the thread (client- and server-streaming calls relayed).
	rn := tc.nodes[relayNode]
	fc, err := client.Dial(rn.p.socket, client.WithSecretFile(filepath.Join(rn.p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	files := follow(t, fc, "manual:files", "/w/files")
	_, fileID := tc.tg.PushDocument(forumChat, int(files.thread()), allowedUser, "notes.txt", []byte("the notes\n"), "notes")
	files.waitTexts(t, "notes")
	var dl bytes.Buffer
	if _, err := files.f.DownloadFile(ctx, fileID, &dl); err != nil || dl.String() != "the notes\n" {
		t.Fatalf("download through the relay: %q, %v", dl.String(), err)
	}
	if _, err := files.f.UploadFile(ctx, client.Upload{Filename: "answer.txt"}, strings.NewReader("answer\n")); err != nil {
		t.Fatalf("upload through the relay: %v", err)
	}
	uploaded := false
	for _, m := range tc.tg.Sent(forumChat, int(files.thread())) {
		uploaded = uploaded || (m.Document != nil && m.Document.FileName == "answer.txt")
	}
	if !uploaded {
		t.Errorf("the upload did not reach the thread: %+v", tc.tg.Sent(forumChat, int(files.thread())))
	}

	// Two kills of the leader, mid-stream.
	leader := first
	for kill := 1; kill <= 2; kill++ {
		post(perPhase)
		waitDelivered(sent-perPhase/2, fmt.Sprintf("before kill %d", kill))
		post(perPhase / 2)
		killedAt := time.Now()
		if err := leader.d.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-leader.d.exited
		t.Logf("kill %d: SIGKILLed leader %s after %d of %d deliveries", kill, leader.name, delivered(), sent)
		next := tc.waitLeader(leader.name)
		t.Logf("kill %d: %s leads, its provider running %s after the kill", kill, next.name, time.Since(killedAt).Round(time.Millisecond))
		post(perPhase / 2)
		// The killed node comes back as a relay at once.
		killed := leader
		killed.d = killed.p.start("--config", killed.config)
		killed.p.waitServing(killed.d)
		leader = next
		if kill == 1 {
			res2 := callOnce("k-1", "once across failover")
			if string(res1) != string(res2) {
				t.Errorf("repeat of a call after failover answered %s, first %s", res2, res1)
			}
		}
	}
	waitDelivered(sent, "after two kills")

	// SIGSTOP the leader past its lease.
	stopped := leader
	child := childrenOf(stopped.d.cmd.Process.Pid, "provider-telegram")
	if err := stopped.d.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	next := tc.waitLeader(stopped.name)
	t.Logf("SIGSTOPped %s; %s leads", stopped.name, next.name)
	post(perPhase)
	if err := stopped.d.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	// Woken, it finds its lease gone: its supervisor and child stop.
	deadline := time.Now().Add(60 * time.Second)
	for len(childrenOf(stopped.d.cmd.Process.Pid, "provider-telegram")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the deposed leader's provider child %v still runs", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
	post(perPhase / 2)
	waitDelivered(sent, "after the stop")
	if l := tc.leader(); l != next.name {
		t.Errorf("leader after the stop: %q, want %q", l, next.name)
	}
	if log := stopped.d.stderr.String(); !strings.Contains(log, "leader lease lost") && !strings.Contains(log, "lease deadline passed") && !strings.Contains(log, "refused by the fence") {
		t.Errorf("the deposed leader did not report losing its lease")
	}

	// The cluster view, from any node: the leader, its fence and lease,
	// the three members.
	var view struct {
		Node    string
		Leaders []struct {
			Provider, Node  string
			FenceRevision   int64 `json:"fence_revision"`
			LeaseTTLSeconds int64 `json:"lease_ttl_seconds"`
		}
		Members []struct {
			Node    string
			Leading bool
		}
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		out, errOut, code := stopped.p.busctl("cluster", "-o", "json")
		if code != 0 {
			t.Fatalf("busctl cluster: %d %s", code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &view); err != nil {
			t.Fatalf("busctl cluster: %v\n%s", err, out)
		}
		if len(view.Members) == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if view.Node != stopped.name || len(view.Leaders) != 1 || view.Leaders[0].Node != next.name ||
		view.Leaders[0].FenceRevision == 0 || view.Leaders[0].LeaseTTLSeconds < 2 || len(view.Members) != 3 {
		t.Errorf("busctl cluster on %s: %+v", stopped.name, view)
	}
	for _, m := range view.Members {
		if m.Leading != (m.Node == next.name) {
			t.Errorf("member %s leading=%v, leader is %s", m.Node, m.Leading, next.name)
		}
	}
	if out, _, _ := stopped.p.busctl("status"); !strings.Contains(out, "telegram led by "+next.name) {
		t.Errorf("busctl status on %s:\n%s", stopped.name, out)
	}

	// The events, from any node (its busctl's calls go to the leader, so
	// the leader's feed): the new leader's own election, and the stopped
	// one's leadership ended as its member record (gone while it was
	// stopped, or written again when it woke) says; a write it tried
	// when it woke, refused by the fence, as the same record says.
	clusterEvents(t, stopped, next.name, stopped.name, strings.Contains(stopped.d.stderr.String(), "refused by the fence"))

	// The metrics: every node serves its own, the supervisor's series
	// only while it leads.
	sNext, sStopped := unixScraper(t, next.metrics).scrape(t), unixScraper(t, stopped.metrics).scrape(t)
	sRelay := unixScraper(t, tc.nodes[relayNode].metrics).scrape(t)
	for _, c := range []struct {
		name string
		got  float64
		ok   bool
	}{
		{"leader gauge of the leader", sNext.Get("chatbus_cluster_leader", "node", next.name), sNext.Get("chatbus_cluster_leader", "node", next.name) == 1},
		{"leader gauge of the stopped one", sStopped.Get("chatbus_cluster_leader", "node", stopped.name), sStopped.Has("chatbus_cluster_leader") && sStopped.Get("chatbus_cluster_leader") == 0},
		{"elections the leader won", sNext.Get("chatbus_cluster_elections_won_total"), sNext.Get("chatbus_cluster_elections_won_total") >= 1},
		{"terms of the stopped one ended by the fence or its lease", sStopped.Get("chatbus_cluster_terms_fenced_total") + sStopped.Get("chatbus_cluster_lease_keepalive_failures_total", "lease", "leader"),
			sStopped.Get("chatbus_cluster_terms_fenced_total")+sStopped.Get("chatbus_cluster_lease_keepalive_failures_total", "lease", "leader") >= 1},
		{"the leader's etcd transactions", sNext.Get("chatbus_cluster_etcd_txns_total", "result", "ok"), sNext.Get("chatbus_cluster_etcd_txn_duration_seconds") > 0 && sNext.Get("chatbus_cluster_etcd_txns_total", "result", "ok") > 0},
		{"calls the leader's relay listener took", sNext.Get("chatbus_cluster_relay_calls_total", "route", "peer", "code", "OK"), sNext.Get("chatbus_cluster_relay_calls_total", "route", "peer", "code", "OK") > 0},
		{"the supervisor's series on the leader", sNext.Get("chatbus_followers_connected"), sNext.Has("chatbus_followers_connected")},
		{"no supervisor series on a node that does not lead", 0, !sStopped.Has("chatbus_followers_connected")},
	} {
		if !c.ok {
			t.Errorf("metrics: %s: %v", c.name, c.got)
		}
	}
	if rn := tc.nodes[relayNode]; rn != next {
		if n := sRelay.Get("chatbus_cluster_relay_calls_total", "route", "leader", "code", "OK"); n == 0 {
			t.Errorf("metrics: %s relayed no call to the leader", rn.name)
		}
	}

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
	var once int
	for _, m := range tc.tg.Sent(forumChat, 0) {
		if m.Text == "once across failover" {
			once++
		}
	}
	for _, tp := range tc.tg.Topics(forumChat) {
		for _, m := range tc.tg.Sent(forumChat, tp.MessageThreadID) {
			if m.Text == "once across failover" {
				once++
			}
		}
	}
	if once != 1 {
		t.Errorf("the keyed call reached the platform %d times", once)
	}
}

// clusterEvents checks the events the leader's feed holds (read through
// node n): leader's own election, and the deposed one's leadership
// ended (reported by the leader); fenced, if it was.
func clusterEvents(t *testing.T, n *clusterNode, leader, deposed string, fenced bool) {
	t.Helper()
	c, err := client.Dial(n.p.socket, client.WithSecretFile(filepath.Join(n.p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want := []struct {
		kind  chatbusv1.EventKind
		attrs map[string]string
	}{
		{chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADER_ELECTED, map[string]string{"node": leader, "reported_by": ""}},
		{chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADERSHIP_LOST, map[string]string{"node": deposed, "reported_by": leader}},
	}
	if fenced {
		want = append(want, struct {
			kind  chatbusv1.EventKind
			attrs map[string]string
		}{chatbusv1.EventKind_EVENT_KIND_CLUSTER_FENCED, map[string]string{"node": deposed, "reported_by": leader}})
	}
	var evs []*chatbusv1.Event
	for {
		evs, err = c.Events(ctx)
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		missing := 0
		for _, w := range want {
			found := false
			for _, e := range evs {
				match := e.GetKind() == w.kind
				for k, v := range w.attrs {
					match = match && e.GetAttrs()[k] == v
				}
				found = found || match
			}
			if !found {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if ctx.Err() != nil {
			for _, e := range evs {
				t.Logf("event %s %s %v", e.GetKind(), e.GetMessage(), e.GetAttrs())
			}
			t.Fatalf("the leader's feed lacks %d of the cluster events %v", missing, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
