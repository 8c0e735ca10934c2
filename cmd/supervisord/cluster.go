package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/paths"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/auth"
	"github.com/chatbus/chatbus/server/cluster"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
)

// clusterConfig is the opt-in cluster: section (docs/cluster.md). Without
// it supervisord runs on one host with the embedded store.
type clusterConfig struct {
	// Name of the cluster (its keys in etcd: /chatbus/<name>/).
	Name string `yaml:"name"`
	// Node is this host's name in the cluster.
	Node string `yaml:"node"`
	Etcd struct {
		Endpoints []string `yaml:"endpoints"`
		// CA, Cert and Key: etcd's client TLS, if it serves https.
		CA   string `yaml:"ca"`
		Cert string `yaml:"cert"`
		Key  string `yaml:"key"`
		// MaxRequestBytes is etcd's --max-request-bytes, if the members
		// run with another than the default 1.5 MiB: journal writes are
		// split to fit it.
		MaxRequestBytes int `yaml:"max_request_bytes"`
	} `yaml:"etcd"`
	// Listen is the relay listener (host:port); Advertise the address
	// the other nodes reach it at (default: listen).
	Listen    string `yaml:"listen"`
	Advertise string `yaml:"advertise"`
	// TLS is this node's certificate for the relay, and the cluster's CA.
	TLS struct {
		CA   string `yaml:"ca"`
		Cert string `yaml:"cert"`
		Key  string `yaml:"key"`
	} `yaml:"tls"`
	// LeaseTTL: a leader that cannot renew its lease this long is deposed.
	LeaseTTL duration `yaml:"lease_ttl"`
}

// present reports whether the section was written.
func (c *config) clusterOn() bool {
	_, ok := c.lines["cluster"]
	return ok
}

// checkCluster checks the cluster: section, if present.
func (c *config) checkCluster(providers int) []problem {
	if !c.clusterOn() {
		return nil
	}
	cc := c.Cluster
	line := c.lines["cluster"]
	var probs []problem
	req := func(key, v string) {
		if v == "" {
			probs = append(probs, problem{line: line, key: "cluster." + key, why: "required in a cluster"})
		}
	}
	req("name", cc.Name)
	req("node", cc.Node)
	req("listen", cc.Listen)
	req("tls.ca", cc.TLS.CA)
	req("tls.cert", cc.TLS.Cert)
	req("tls.key", cc.TLS.Key)
	if len(cc.Etcd.Endpoints) == 0 {
		probs = append(probs, problem{line: line, key: "cluster.etcd.endpoints", why: "required in a cluster: at least one etcd client URL"})
	}
	for _, s := range []struct{ key, v string }{{"name", cc.Name}, {"node", cc.Node}} {
		if strings.ContainsAny(s.v, "/ \t") {
			probs = append(probs, problem{line: line, key: "cluster." + s.key, why: fmt.Sprintf("%q: no / or spaces", s.v)})
		}
	}
	if cc.Listen != "" {
		if _, _, err := net.SplitHostPort(cc.Listen); err != nil {
			probs = append(probs, problem{line: c.lines["cluster.listen"], key: "cluster.listen", why: err.Error()})
		}
	}
	if b := cc.Etcd.MaxRequestBytes; b != 0 && b < minEtcdRequestBytes {
		probs = append(probs, problem{line: c.lines["cluster.etcd.max_request_bytes"], key: "cluster.etcd.max_request_bytes",
			why: fmt.Sprintf("%d: lower than one update can be (a long message with its raw form and references); an update larger than one etcd request cannot be journalled and holds up every later one: run etcd with --max-request-bytes of at least %d (its default, 1.5 MiB, is ample)", b, minEtcdRequestBytes)})
	}
	if d := time.Duration(cc.LeaseTTL); d != 0 && (d < 2*time.Second || d%time.Second != 0) {
		probs = append(probs, problem{line: c.lines["cluster.lease_ttl"], key: "cluster.lease_ttl",
			why: fmt.Sprintf("%s: whole seconds, at least 2s (leave it out for the default 5s)", d)})
	}
	if providers != 1 {
		probs = append(probs, problem{line: line, key: "cluster",
			why: fmt.Sprintf("a cluster elects one leader per provider (bot) and runs one provider per profile; this config has %d (run a profile per bot)", providers)})
	}
	return probs
}

// minEtcdRequestBytes is the least etcd request size a cluster takes: one
// journalled update (a message of 4096 characters, its raw form, its
// references) with the transaction's other records fits well within it.
const minEtcdRequestBytes = 256 << 10

// runCluster runs this supervisord as a cluster node: the front on the
// socket, the relay, the campaign; the supervisor cfg describes runs
// while this node leads.
func runCluster(ctx context.Context, cfg server.Config, fc *config, log zerolog.Logger) error {
	cc := fc.Cluster
	if len(cfg.Providers) != 1 {
		return fmt.Errorf("cluster: exactly one provider, got %d", len(cfg.Providers))
	}
	if err := paths.PrivateDir(cfg.StateDir); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	secret, err := auth.LoadOrCreateSecret(cfg.StateDir + "/secret")
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	etcd := clientv3.Config{Endpoints: cc.Etcd.Endpoints}
	if cc.Etcd.CA != "" || cc.Etcd.Cert != "" {
		t, err := cluster.TLSFiles{CA: cc.Etcd.CA, Cert: cc.Etcd.Cert, Key: cc.Etcd.Key}.Client()
		if err != nil {
			return fmt.Errorf("cluster.etcd: %w", err)
		}
		etcd.TLS = t
	}
	onReady := cfg.OnReady
	provider := cfg.Providers[0].Name
	// The node's event feed and metrics outlive the supervisor of each of
	// its terms, which publishes and records into them.
	evs := events.NewHub(log.With().Str("component", "events").Logger())
	rec, maddr, err := cfg.Metrics.NewRecorder([]string{provider}, &metrics.Cluster{Node: cc.Node, Provider: provider})
	if err != nil {
		return err
	}
	node, err := cluster.New(cluster.Config{
		Cluster: cc.Name, Node: cc.Node, Provider: provider,
		Etcd: etcd, Listen: cc.Listen, Advertise: cc.Advertise,
		TLS:      cluster.TLSFiles{CA: cc.TLS.CA, Cert: cc.TLS.Cert, Key: cc.TLS.Key},
		LeaseTTL: time.Duration(cc.LeaseTTL),
		Socket:   cfg.Socket, LockTimeout: cfg.LockTimeout, Secret: secret, AllowUID: allowUID(cfg),
		Events: evs, Metrics: rec, MetricsAddr: maddr,
		StoreOptions: etcdstore.Options{MaxRequestBytes: cc.Etcd.MaxRequestBytes},
		Logger:       log,
		OnReady:      onReady,
		Lead: func(ctx context.Context, open func(store.Options) (store.Store, error), socket string, ready func()) error {
			lc := cfg
			lc.Socket, lc.OpenStore, lc.OnReady = socket, open, ready
			lc.ClusterNode = cc.Node
			lc.OnReloading, lc.OnStopping, lc.Reload = nil, nil, nil
			lc.Console.Off = true // one console per host would need one port per term
			lc.Events = evs
			lc.Metrics = server.MetricsConfig{Recorder: rec} // nil: off
			lc.Logger = log.With().Str("term", "leader").Logger()
			srv, err := server.New(lc)
			if err != nil {
				return err
			}
			return srv.Run(ctx)
		},
	})
	if err != nil {
		return err
	}
	return node.Run(ctx)
}

func allowUID(cfg server.Config) int {
	if cfg.AllowUID != 0 {
		return cfg.AllowUID
	}
	return os.Getuid()
}

// newClusterCertsCommand is `supervisord cluster-certs`: a small CA and a
// certificate per node, for trying a cluster out.
func newClusterCertsCommand() *cobra.Command {
	var dir string
	var hosts []string
	cmd := &cobra.Command{
		Use:   "cluster-certs NODE...",
		Short: "make a small CA and a certificate per node for a cluster's relay (for trying it out)",
		Long: `cluster-certs writes into --dir a CA (ca.pem, ca-key.pem; kept if there) and,
for each NODE, NODE.pem and NODE-key.pem signed by it, valid for the node's
name, localhost, 127.0.0.1 and each --host, as server and client. Copy
ca.pem and a node's two files to that node and name them in its cluster.tls.
Keep ca-key.pem off the nodes.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, nodes []string) error {
			if dir == "" {
				return errors.New("--dir is required")
			}
			files, err := cluster.MakeCerts(dir, nodes, hosts)
			if err != nil {
				return err
			}
			for _, n := range nodes {
				f := files[n]
				fmt.Fprintf(cmd.OutOrStdout(), "%s: cert %s, key %s, ca %s\n", n, f.Cert, f.Key, f.CA)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the files into (created 0700)")
	cmd.Flags().StringSliceVar(&hosts, "host", nil, "a DNS name or IP address the nodes are reached at (repeatable)")
	return cmd
}
