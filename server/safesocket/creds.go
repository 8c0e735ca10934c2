package safesocket

import (
	"context"
	"net"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"

	"github.com/chatbus/chatbus/internal/proc"
)

// PeerInfo is the credentials.AuthInfo of a Unix socket connection: who
// connected, as the kernel saw it at connect time.
type PeerInfo struct {
	credentials.CommonAuthInfo
	Cred *proc.Cred // nil if the kernel did not say
	Err  error      // why Cred is nil
}

// AuthType implements credentials.AuthInfo.
func (PeerInfo) AuthType() string { return "unix-peercred" }

// PeerFromContext returns the PeerInfo of the RPC in ctx, if any.
func PeerFromContext(ctx context.Context) (PeerInfo, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return PeerInfo{}, false
	}
	info, ok := p.AuthInfo.(PeerInfo)
	return info, ok
}

// PeerCredentials returns gRPC transport credentials for a Unix socket
// server: no encryption (the socket is private to its user), but every
// connection carries the peer's credentials (proc.PeerCred) as its AuthInfo, so an
// interceptor can refuse other users.
func PeerCredentials() credentials.TransportCredentials { return peerCreds{} }

type peerCreds struct{}

func (peerCreds) ClientHandshake(_ context.Context, _ string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return conn, PeerInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (peerCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	cred, err := PeerCred(conn)
	return conn, PeerInfo{
		CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity},
		Cred:           cred,
		Err:            err,
	}, nil
}

func (peerCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "unix-peercred"}
}

func (c peerCreds) Clone() credentials.TransportCredentials { return c }

func (peerCreds) OverrideServerName(string) error { return nil }
