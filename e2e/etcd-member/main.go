// Command etcd-member is one member of a real etcd cluster
// (go.etcd.io/etcd/server/v3's embed) for the tests and busbench's
// cluster phase: internal/etcdproc starts one per member, on loopback. It
// lives in the e2e module so that the product's module does not require
// the etcd server.
//
// It prints "ready" on stdout once the member serves, and stops when its
// stdin closes (its parent exited, even by kill -9) or on SIGTERM or
// SIGINT.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "etcd-member:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("etcd-member", flag.ContinueOnError)
	name := fs.String("name", "m0", "the member's name")
	dir := fs.String("dir", "", "the member's data directory")
	peer := fs.String("peer", "", "the peer URL (listened on and advertised)")
	client := fs.String("client", "", "the client URL (listened on and advertised)")
	initial := fs.String("initial-cluster", "", "every member as name=peer-URL, comma-separated")
	election := fs.Duration("election", 2*time.Second, "the election timeout (the heartbeat is 100ms)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *peer == "" || *client == "" || *initial == "" {
		return fmt.Errorf("-dir, -peer, -client and -initial-cluster are required")
	}
	pu, err := url.Parse(*peer)
	if err != nil {
		return fmt.Errorf("-peer: %w", err)
	}
	cu, err := url.Parse(*client)
	if err != nil {
		return fmt.Errorf("-client: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = *name, *dir
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.InitialCluster = strings.TrimSpace(*initial)
	cfg.InitialClusterToken = "chatbus-test"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.TickMs, cfg.ElectionMs = 100, uint(*election/time.Millisecond)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()

	stdinClosed := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)

	select {
	case <-e.Server.ReadyNotify():
		fmt.Println("ready")
	case err := <-e.Err():
		return err
	case <-stdinClosed:
		return nil
	case <-sig:
		return nil
	}
	select {
	case err := <-e.Err():
		return err
	case <-stdinClosed:
	case <-sig:
	}
	return nil
}
