// Package console is the supervisor's operator console: a live page on
// 127.0.0.1 that shows followers, bindings, providers (state, health,
// occupancy), the journal depth, the dead letters with their reasons and
// the runtime events as they happen, and
// drives a doctor restart of a provider, showing its progress and typed
// outcome.
//
// It is a client of the supervisor like busctl: it dials the supervisor's
// own socket with the bearer secret and speaks AdminService and
// DoctorService, so it shows exactly what busctl shows, whichever
// providers are configured, and keeps working while a provider restarts.
// Access is guarded by internal/webauth: a token per start in the URL
// given to the owner, exchanged for a session cookie; restarts need the
// page's own Origin.
//
// Goroutines: the HTTP server's; each event stream and restart runs on its
// request's goroutine and ends with it or when the console closes.
package console

import (
	"bufio"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/webauth"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

//go:embed assets
var assets embed.FS

// PortBase and PortSpan: the default port is derived from the profile
// name into [PortBase, PortBase+PortSpan); when it is taken, the next few,
// then any free port.
const (
	PortBase = 27200
	PortSpan = 400
)

// Config configures a Console.
type Config struct {
	// Socket and Secret reach the supervisor. Required.
	Socket string
	Secret string
	// Profile seeds the default port and names the session cookie.
	Profile string
	// Port on 127.0.0.1. If zero, derived from Profile (see PortBase); a
	// port named here must be free.
	Port int
	// Logger receives the console's log. The zero Logger discards.
	Logger zerolog.Logger
}

// Console is the running console.
type Console struct {
	cfg    Config
	log    zerolog.Logger
	conn   *grpc.ClientConn
	admin  chatbusv1.AdminServiceClient
	doctor chatbusv1.DoctorServiceClient
	guard  *webauth.Guard
	ln     net.Listener
	web    *http.Server
	ctx    context.Context // ends at Close: streams and restarts stop
	cancel context.CancelFunc
	served chan struct{}
	closed sync.Once
}

// New binds the console's listener and connects to the supervisor (the
// connection is made lazily, so the supervisor may start serving after).
func New(cfg Config) (*Console, error) {
	var ln net.Listener
	var err error
	if cfg.Port != 0 {
		ln, err = net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Port))
	} else {
		d := webauth.DerivedPort(cfg.Profile, PortBase, PortSpan)
		ln, err = webauth.Listen(d, PortBase+(d-PortBase+1)%PortSpan, PortBase+(d-PortBase+2)%PortSpan)
	}
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	h := fnv.New32a()
	h.Write([]byte(cfg.Profile))
	guard, err := webauth.New(webauth.Config{Addr: ln.Addr(), Cookie: fmt.Sprintf("chatbus_console_%08x", h.Sum32())})
	if err != nil {
		ln.Close()
		return nil, err
	}
	conn, err := grpc.NewClient("unix://"+cfg.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(cfg.Secret)))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("console: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Console{
		cfg: cfg, log: cfg.Logger.With().Str("component", "console").Logger(),
		conn: conn, admin: chatbusv1.NewAdminServiceClient(conn), doctor: chatbusv1.NewDoctorServiceClient(conn),
		guard: guard, ln: ln, ctx: ctx, cancel: cancel, served: make(chan struct{}),
	}
	c.web = &http.Server{Handler: c.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(c.served)
		if err := c.web.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error().Err(err).Msg("console stopped")
		}
	}()
	return c, nil
}

// URL is the console's address with this start's access token.
func (c *Console) URL() string { return c.guard.URL("/") }

// Close ends the open streams and restarts' reporting (a restart under way
// goes on in the supervisor), stops the listener and the connection.
func (c *Console) Close() error {
	var err error
	c.closed.Do(func() {
		c.cancel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if c.web.Shutdown(ctx) != nil {
			c.web.Close()
		}
		<-c.served
		err = c.conn.Close()
	})
	return err
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}
func (bearer) RequireTransportSecurity() bool { return false }

func (c *Console) routes() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	g := c.guard
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", g.Page(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		http.ServeFileFS(w, r, static, "console.html")
	})))
	mux.Handle("GET /static/", g.Page(http.StripPrefix("/static/", http.FileServerFS(static))))
	mux.Handle("GET /api/state", g.Page(http.HandlerFunc(c.handleState)))
	mux.Handle("GET /api/events", g.Stream(http.HandlerFunc(c.handleEvents)))
	mux.Handle("/api/restart", g.Action(http.HandlerFunc(c.handleRestart)))
	return mux
}

var pj = protojson.MarshalOptions{UseProtoNames: true}

func raw(m proto.Message) json.RawMessage {
	b, err := pj.Marshal(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

var writeJSON = webauth.WriteJSON

// provider is a provider's row: its status and its doctor fence.
type provider struct {
	Info  json.RawMessage `json:"info"`
	Owner json.RawMessage `json:"owner,omitempty"`
}

// handleState answers one snapshot of everything the page shows.
func (c *Console) handleState(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	info, err := c.admin.GetInfo(ctx, &chatbusv1.GetInfoRequest{})
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "supervisor: " + err.Error()})
		return
	}
	out := map[string]any{"info": raw(info), "now": time.Now().UTC().Format(time.RFC3339Nano)}
	var errs []string
	if fs, err := c.admin.ListFollowers(ctx, &chatbusv1.ListFollowersRequest{}); err == nil {
		list := make([]json.RawMessage, 0, len(fs.GetFollowers()))
		for _, f := range fs.GetFollowers() {
			list = append(list, raw(f))
		}
		out["followers"] = list
	} else {
		errs = append(errs, err.Error())
	}
	var unacked uint64
	if bs, err := c.admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{}); err == nil {
		list := make([]json.RawMessage, 0, len(bs.GetBindings()))
		for _, b := range bs.GetBindings() {
			list = append(list, raw(b))
			unacked += uint64(b.GetJournal().GetUnacked())
		}
		out["bindings"] = list
	} else {
		errs = append(errs, err.Error())
	}
	if u, err := c.admin.ListUpdates(ctx, &chatbusv1.ListUpdatesRequest{Unrouted: true, Limit: 1}); err == nil {
		out["journal"] = map[string]uint64{"unacked": unacked, "unrouted": uint64(u.GetStats().GetUnacked()), "total": unacked + uint64(u.GetStats().GetUnacked())}
	} else {
		errs = append(errs, err.Error())
	}
	if ps, err := c.admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{}); err == nil {
		owners := map[string]*chatbusv1.Owner{}
		if st, err := c.doctor.Status(ctx, &chatbusv1.StatusRequest{}); err == nil {
			for _, o := range st.GetOwners() {
				owners[o.GetProvider()] = o
			}
		}
		list := make([]provider, 0, len(ps.GetProviders()))
		for _, p := range ps.GetProviders() {
			row := provider{Info: raw(p)}
			if o, ok := owners[p.GetName()]; ok {
				row.Owner = raw(o)
			}
			list = append(list, row)
		}
		out["providers"] = list
	} else {
		errs = append(errs, err.Error())
	}
	if dl, err := c.admin.ListDeadLetters(ctx, &chatbusv1.ListDeadLettersRequest{}); err == nil {
		list := make([]json.RawMessage, 0, len(dl.GetDeadLetters()))
		for _, d := range dl.GetDeadLetters() {
			// The page shows why, not the update: its payload stays
			// with busctl (which may be large).
			d.Payload = nil
			list = append(list, raw(d))
		}
		out["dead_letters"] = list
	} else {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	writeJSON(w, http.StatusOK, out)
}

// handleEvents streams the supervisor's runtime events (the recent ones
// first) as Server-Sent Events.
func (c *Console) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "streaming unsupported"})
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	st, err := c.admin.WatchEvents(ctx, &chatbusv1.WatchEventsRequest{ReplayRecent: true})
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "supervisor: " + err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "retry: 1000\n\n")
	flusher.Flush()
	for {
		resp, err := st.Recv()
		if err != nil {
			return // the page reconnects
		}
		fmt.Fprintf(w, "data: %s\n\n", raw(resp.GetEvent()))
		flusher.Flush()
	}
}

type restartRequest struct {
	Provider string `json:"provider"`
	// Drain bounds the wait for the owner to settle ("10s"). Empty: 10s.
	Drain string `json:"drain"`
}

// handleRestart drives a doctor restart and streams its progress and
// outcome as JSON lines (the RestartResponse messages).
func (c *Console) handleRestart(w http.ResponseWriter, r *http.Request) {
	var req restartRequest
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || strings.TrimSpace(req.Provider) == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("want {\"provider\": NAME}: %v", err)})
		return
	}
	drain := 10 * time.Second
	if req.Drain != "" {
		d, err := time.ParseDuration(req.Drain)
		if err != nil || d < 0 || d > 5*time.Minute {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "drain: a duration up to 5m"})
			return
		}
		drain = d
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	st, err := c.doctor.Restart(ctx, &chatbusv1.RestartRequest{Provider: req.Provider, Drain: durationpb.New(drain), Deadline: durationpb.New(drain + 60*time.Second)})
	if err != nil {
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
		return
	}
	first, err := st.Recv()
	if err != nil {
		// Refused before it began (unknown provider, one already under way).
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	c.log.Info().Str("provider", req.Provider).Msg("doctor restart from the console")
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	flusher, _ := w.(http.Flusher)
	for resp := first; ; {
		bw.Write(raw(resp))
		bw.WriteByte('\n')
		bw.Flush()
		if flusher != nil {
			flusher.Flush()
		}
		if resp.GetOutcome() != nil {
			return
		}
		if resp, err = st.Recv(); err != nil {
			line, _ := json.Marshal(map[string]string{"error": err.Error()})
			bw.Write(line)
			bw.WriteByte('\n')
			bw.Flush()
			return
		}
	}
}
