// Package client is the Go client of a chatbus supervisor: what a follower
// (agent session) embeds to register, heartbeat, receive its thread's
// updates and acknowledge them, and what busctl uses to administer it. It
// imports only the generated chatbus.v1 package.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Client is a connection to one supervisor. Safe for concurrent use.
type Client struct {
	conn   *grpc.ClientConn
	socket string
	Bus    chatbusv1.BusServiceClient
	Admin  chatbusv1.AdminServiceClient
	// Cluster describes the cluster the supervisor is a node of
	// (UNIMPLEMENTED outside a cluster).
	Cluster chatbusv1.ClusterServiceClient
	// How its followers coalesce acks (see WithAckCoalescing).
	ackDelay time.Duration
	ackEvery int
}

type options struct {
	secret     string
	secretFile string
	dialOpts   []grpc.DialOption
	ackDelay   time.Duration
	ackEvery   int
	ackSet     bool
}

// streamWindow is the flow-control window of a connection and of each of
// its streams (fixed: see Dial). A follower's stream holds up to
// UpdatesBatch updates per message; 1 MiB keeps a catch-up from waiting
// on window updates.
const streamWindow = 1 << 20

// Option configures Dial.
type Option func(*options)

// WithSecret sets the bearer secret.
func WithSecret(secret string) Option { return func(o *options) { o.secret = secret } }

// WithSecretFile reads the bearer secret from a file (the supervisor's
// <state dir>/secret).
func WithSecretFile(path string) Option { return func(o *options) { o.secretFile = path } }

// WithDialOptions adds gRPC dial options.
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOpts = append(o.dialOpts, opts...) }
}

// Dial connects to the supervisor on socket. It fails with ErrNotRunning
// when nothing listens there.
func Dial(socket string, opts ...Option) (*Client, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	abs, err := filepath.Abs(socket)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("unix", abs, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotRunning, abs, err)
	}
	conn.Close()
	if o.secret == "" && o.secretFile != "" {
		b, err := os.ReadFile(o.secretFile)
		if err != nil {
			return nil, fmt.Errorf("read secret: %w", err)
		}
		o.secret = strings.TrimSpace(string(b))
	}

	dialOpts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(o.secret)),
		// Fixed flow-control windows: with grpc's dynamic ones (BDP
		// estimation) the connection answers nearly every stream message
		// with a PING and a WINDOW_UPDATE, which the supervisor reads and
		// answers: per follower, per journal commit.
		grpc.WithInitialWindowSize(streamWindow),
		grpc.WithInitialConnWindowSize(streamWindow),
	}, o.dialOpts...)
	cc, err := grpc.NewClient("unix://"+abs, dialOpts...)
	if err != nil {
		return nil, err
	}
	return &Client{
		conn:     cc,
		socket:   abs,
		Bus:      chatbusv1.NewBusServiceClient(cc),
		Admin:    chatbusv1.NewAdminServiceClient(cc),
		Cluster:  chatbusv1.NewClusterServiceClient(cc),
		ackDelay: o.ackDelay,
		ackEvery: o.ackEvery,
	}, nil
}

// Conn returns the underlying connection (for health checks and the like).
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// Socket returns the absolute socket path.
func (c *Client) Socket() string { return c.socket }

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Info describes the supervisor.
func (c *Client) Info(ctx context.Context) (*chatbusv1.GetInfoResponse, error) {
	resp, err := c.Admin.GetInfo(ctx, &chatbusv1.GetInfoRequest{})
	return resp, Err(err)
}

// Followers lists the registered followers.
func (c *Client) Followers(ctx context.Context) ([]*chatbusv1.Follower, error) {
	resp, err := c.Admin.ListFollowers(ctx, &chatbusv1.ListFollowersRequest{})
	return resp.GetFollowers(), Err(err)
}

// Events returns the recent runtime events, oldest first.
func (c *Client) Events(ctx context.Context) ([]*chatbusv1.Event, error) {
	resp, err := c.Admin.ListEvents(ctx, &chatbusv1.ListEventsRequest{})
	return resp.GetEvents(), Err(err)
}

// WatchEvents calls fn for each runtime event until ctx ends, fn returns an
// error, or the supervisor stops.
func (c *Client) WatchEvents(ctx context.Context, replay bool, fn func(*chatbusv1.Event) error) error {
	stream, err := c.Admin.WatchEvents(ctx, &chatbusv1.WatchEventsRequest{ReplayRecent: replay})
	if err != nil {
		return Err(err)
	}
	for {
		resp, err := stream.Recv()
		if err != nil {
			if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return Err(err)
		}
		if err := fn(resp.GetEvent()); err != nil {
			return err
		}
	}
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }
