package client_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/servertest"
)

// TestNoPingPerResponse: the client's connection does not answer the
// supervisor's messages with PINGs (grpc's BDP estimation, on with its
// dynamic windows, sends one with a WINDOW_UPDATE after nearly every
// DATA frame: the supervisor would read and answer both, per follower,
// per message). A proxy in front of a real supervisor counts the PING
// frames the client sends over many calls.
func TestNoPingPerResponse(t *testing.T) {
	sup := servertest.Start(t, server.Config{})
	proxy := filepath.Join(servertest.SocketDir(t), "proxy.sock")
	ln, err := net.Listen("unix", proxy)
	if err != nil {
		t.Fatal(err)
	}
	var pings atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", sup.Config.Socket)
			if err != nil {
				c.Close()
				return
			}
			wg.Go(func() { io.Copy(c, s); c.Close() })
			wg.Go(func() { countPings(io.TeeReader(c, s), &pings); s.Close() })
		}
	})

	c, err := client.Dial(proxy, client.WithSecret(sup.Secret))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	health := grpc_health_v1.NewHealthClient(c.Conn())
	const calls = 50
	for range calls {
		if _, err := health.Check(context.Background(), &grpc_health_v1.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := pings.Load(); n != 0 {
		t.Errorf("the client sent %d PINGs over %d calls, want none", n, calls)
	}
}

// countPings reads an HTTP/2 client's byte stream (preface, then frames)
// until it ends, counting the PING frames that are not acks.
func countPings(r io.Reader, pings *atomic.Int64) {
	var preface [24]byte
	if _, err := io.ReadFull(r, preface[:]); err != nil {
		return
	}
	var hdr [9]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]) >> 8)
		if typ, flags := hdr[3], hdr[4]; typ == 0x6 && flags&0x1 == 0 {
			pings.Add(1)
		}
		if _, err := io.CopyN(io.Discard, r, n); err != nil {
			return
		}
	}
}
