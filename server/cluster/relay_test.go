package cluster

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve runs gs on a loopback listener until the test ends.
func serve(t *testing.T, gs *grpc.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	return ln.Addr().String()
}

// TestRelayMutualTLS: the relay listener forwards a call, with the
// caller's metadata but not its credentials and with the hop's own added,
// to its target, and answers with the target's status; a node whose
// certificate another CA signed is refused at the handshake, and so is a
// caller without a certificate.
func TestRelayMutualTLS(t *testing.T) {
	dir := t.TempDir()
	files, err := MakeCerts(filepath.Join(dir, "a"), []string{"n0", "n1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := MakeCerts(filepath.Join(dir, "b"), []string{"intruder"}, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The target: a health server that records the metadata it got.
	got := make(chan metadata.MD, 4)
	hs := health.NewServer()
	hs.SetServingStatus("bus", grpc_health_v1.HealthCheckResponse_SERVING)
	backend := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		got <- md
		return h(ctx, req)
	}))
	grpc_health_v1.RegisterHealthServer(backend, hs)
	backendAddr := serve(t, backend)
	bc, err := grpc.NewClient(backendAddr, grpc.WithTransportCredentials(insecureCreds()))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()

	stls, err := files["n0"].Server()
	if err != nil {
		t.Fatal(err)
	}
	rs := grpc.NewServer(grpc.Creds(credentials.NewTLS(stls)), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(relay{pick: func(context.Context) (*grpc.ClientConn, metadata.MD, error) {
			return bc, metadata.Pairs("authorization", "Bearer hop-secret"), nil
		}}.handler()))
	addr := serve(t, rs)

	tests := []struct {
		name string
		tls  TLSFiles
		none bool
		want codes.Code
	}{
		{name: "node of the cluster", tls: files["n1"], want: codes.OK},
		{name: "certificate of another CA", tls: TLSFiles{CA: files["n1"].CA, Cert: other["intruder"].Cert, Key: other["intruder"].Key}, want: codes.Unavailable},
		{name: "no certificate", none: true, want: codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctls, err := files["n1"].Client()
			if err != nil {
				t.Fatal(err)
			}
			if tt.none {
				ctls.Certificates = nil
			} else if ctls, err = tt.tls.Client(); err != nil {
				t.Fatal(err)
			}
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(ctls)))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer caller", "x-session", "s1")
			resp, err := grpc_health_v1.NewHealthClient(cc).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "bus"})
			if status.Code(err) != tt.want {
				t.Fatalf("check: %v, want %s", err, tt.want)
			}
			if tt.want != codes.OK {
				return
			}
			if resp.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
				t.Errorf("status %v", resp.GetStatus())
			}
			md := <-got
			if a := md.Get("authorization"); len(a) != 1 || a[0] != "Bearer hop-secret" {
				t.Errorf("authorization at the target: %v (the caller's must not pass)", a)
			}
			if s := md.Get("x-session"); len(s) != 1 || s[0] != "s1" {
				t.Errorf("caller metadata at the target: %v", s)
			}
			// A status from the target comes back as it was.
			_, err = grpc_health_v1.NewHealthClient(cc).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "nope"})
			<-got
			if status.Code(err) != codes.NotFound {
				t.Errorf("unknown service through the relay: %v", err)
			}
		})
	}
}

func insecureCreds() credentials.TransportCredentials { return insecure.NewCredentials() }
