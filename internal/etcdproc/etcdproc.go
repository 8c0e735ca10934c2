// Package etcdproc runs a real etcd cluster on loopback as child
// processes: one etcd-member (e2e/etcd-member, in the e2e module, so that
// the product's module does not require the etcd server) per member, each
// with its data in a directory of the caller's. For internal/etcdtest and
// busbench's cluster phase; nothing a user runs imports it.
package etcdproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Cluster is a running etcd cluster.
type Cluster struct {
	// Endpoints are the members' client URLs (http://127.0.0.1:port).
	Endpoints []string
	members   []*member
}

type member struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed once cmd.Wait returned
	log   *tail
}

// Run starts an etcd cluster of n members on loopback, each an
// etcd-member process of binary, with their data under dir, and waits
// until every member is ready. election is the election timeout (etcd's
// default is 1s; the heartbeat stays 100ms). Close stops it.
func Run(binary, dir string, n int, election time.Duration) (*Cluster, error) {
	type ports struct{ peer, client string }
	ps := make([]ports, n)
	var initial []string
	for i := range ps {
		peer, err := freeURL()
		if err != nil {
			return nil, err
		}
		cl, err := freeURL()
		if err != nil {
			return nil, err
		}
		ps[i] = ports{peer: peer, client: cl}
		initial = append(initial, fmt.Sprintf("m%d=%s", i, peer))
	}
	c := &Cluster{}
	var ready []*bufio.Reader
	for i := range ps {
		name := fmt.Sprintf("m%d", i)
		cmd := exec.Command(binary, "-name", name, "-dir", filepath.Join(dir, name),
			"-peer", ps[i].peer, "-client", ps[i].client,
			"-initial-cluster", strings.Join(initial, ","), "-election", election.String())
		stdin, err := cmd.StdinPipe()
		if err != nil {
			c.Close()
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			c.Close()
			return nil, err
		}
		m := &member{cmd: cmd, stdin: stdin, done: make(chan struct{}), log: &tail{}}
		cmd.Stderr = m.log
		if err := cmd.Start(); err != nil {
			c.Close()
			return nil, fmt.Errorf("etcd member %d: %w", i, err)
		}
		go func() { cmd.Wait(); close(m.done) }()
		c.members = append(c.members, m)
		c.Endpoints = append(c.Endpoints, ps[i].client)
		ready = append(ready, bufio.NewReader(stdout))
	}
	// A member is ready once the cluster has a quorum: every member is
	// started before any is waited for.
	for i, r := range ready {
		line := make(chan string, 1)
		go func() { s, _ := r.ReadString('\n'); line <- s; io.Copy(io.Discard, r) }()
		select {
		case s := <-line:
			if strings.TrimSpace(s) != "ready" {
				<-c.members[i].done
				c.Close()
				return nil, fmt.Errorf("etcd member %d exited: %s", i, c.members[i].log)
			}
		case <-time.After(60 * time.Second):
			c.Close()
			return nil, fmt.Errorf("etcd member %d not ready within a minute", i)
		}
	}
	return c, nil
}

// StopLeader kills the member that is etcd's raft leader (SIGKILL: it
// dies, no leadership transfer) and returns its index.
func (c *Cluster) StopLeader() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return -1, err
	}
	defer cli.Close()
	for i, m := range c.members {
		if m == nil {
			continue
		}
		st, err := cli.Status(ctx, c.Endpoints[i])
		if err != nil || st.Leader != st.Header.MemberId {
			continue
		}
		m.kill()
		c.members[i] = nil
		return i, nil
	}
	return -1, errors.New("no member leads")
}

// Close stops every member and waits until each has exited.
func (c *Cluster) Close() {
	for _, m := range c.members {
		if m != nil {
			m.stop()
		}
	}
	c.members = nil
}

// stop asks the member to stop (its stdin closes) and kills it if it
// has not within 10s.
func (m *member) stop() {
	m.stdin.Close()
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		m.kill()
	}
}

func (m *member) kill() {
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
}

func freeURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "http://" + ln.Addr().String(), nil
}

// tail keeps the last 4 KiB a member wrote on stderr, for the error that
// says why it exited.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string { return strings.TrimSpace(string(t.b)) }
