package playground

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const wait = 10 * time.Second

// open opens a Platform on dir (closed at cleanup).
func open(t *testing.T, dir string, s Settings) *Platform {
	t.Helper()
	p, err := New(Config{Settings: s, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// rig is a playground served as a provider child (in-process, on a real
// socket) and a person's browser session on its page.
type rig struct {
	p   *Platform
	h   *providertest.Harness
	web *browser
}

func newRig(t *testing.T, dir string) *rig {
	t.Helper()
	p := open(t, dir, Settings{Name: "playground", MaxFileBytes: 1 << 20})
	h := providertest.Start(t, child.Config{Name: "playground", Platform: p})
	return &rig{p: p, h: h, web: login(t, p)}
}

// browser is an HTTP client holding a session on the page, sending the
// page's Origin the way a browser does.
type browser struct {
	t      *testing.T
	c      *http.Client
	origin string
}

func login(t *testing.T, p *Platform) *browser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: wait}
	t.Cleanup(c.CloseIdleConnections)
	resp, err := c.Get(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" {
		t.Fatalf("opening %s: %d at %s", p.URL(), resp.StatusCode, resp.Request.URL)
	}
	return &browser{t: t, c: c, origin: p.guard.Origin()}
}

func (b *browser) do(method, path, ctype string, body io.Reader) (int, []byte) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.origin+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if method == "POST" {
		req.Header.Set("Origin", b.origin)
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// post sends v as JSON; it fails the test unless the answer is 200.
func (b *browser) post(path string, v any) []byte {
	b.t.Helper()
	code, out := b.do("POST", path, "application/json", bytes.NewReader(mustJSON(v)))
	if code != 200 {
		b.t.Fatalf("POST %s: %d %s", path, code, out)
	}
	return out
}

func (b *browser) say(room int64, clientID, text string) messageView {
	b.t.Helper()
	var v messageView
	json.Unmarshal(b.post(fmt.Sprintf("/api/rooms/%d/messages", room), sendRequest{ClientID: clientID, Text: text}), &v)
	return v
}

func (b *browser) upload(room int64, clientID, name string, data []byte) (int, []byte) {
	b.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	w.WriteField("client_id", clientID)
	w.WriteField("caption", "see attached")
	fw, _ := w.CreateFormFile("file", name)
	fw.Write(data)
	w.Close()
	return b.do("POST", fmt.Sprintf("/api/rooms/%d/files", room), w.FormDataContentType(), &buf)
}

func (b *browser) history(room int64) []messageView {
	b.t.Helper()
	code, out := b.do("GET", fmt.Sprintf("/api/rooms/%d/messages", room), "", nil)
	if code != 200 {
		b.t.Fatalf("history: %d %s", code, out)
	}
	var h struct{ Messages []messageView }
	json.Unmarshal(out, &h)
	return h.Messages
}

// events opens the page's live stream; next returns the next event.
func (b *browser) events(ctx context.Context) func() liveEvent {
	b.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.origin+"/api/events", nil)
	req.Header.Set("Origin", b.origin)
	c := &http.Client{Jar: b.c.Jar} // no timeout: a stream
	resp, err := c.Do(req)
	if err != nil || resp.StatusCode != 200 {
		b.t.Fatalf("events: %v %v", resp, err)
	}
	b.t.Cleanup(func() { resp.Body.Close(); c.CloseIdleConnections() })
	sc := bufio.NewScanner(resp.Body)
	return func() liveEvent {
		b.t.Helper()
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e liveEvent
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					b.t.Fatal(err)
				}
				return e
			}
		}
		b.t.Fatalf("event stream ended: %v", sc.Err())
		return liveEvent{}
	}
}

// provision makes a room.
func (r *rig) provision(t *testing.T, name string) int64 {
	t.Helper()
	resp, err := r.h.Client.ProvisionTarget(providertest.Context(t), &providerv1.ProvisionTargetRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	fmt.Sscan(resp.GetTarget().GetThread(), &id)
	if resp.GetTarget().GetChat() != chatText || id == 0 || resp.GetTarget().GetName() != name {
		t.Fatalf("provisioned %v", resp)
	}
	return id
}

func target(room int64) *providerv1.Target {
	return &providerv1.Target{Chat: chatText, Thread: fmt.Sprint(room)}
}

// verb makes a message verb in room as the supervisor does: a call named
// for the verb, its params message as JSON with the proto field names.
func (r *rig) verb(t *testing.T, room int64, name string, params proto.Message, key string) (*providerv1.CallResponse, error) {
	t.Helper()
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return r.h.Client.Call(providertest.Context(t), &providerv1.CallRequest{Method: name, ParamsJson: raw, IdempotencyKey: key, Target: target(room)})
}

// mustVerb makes a verb that must succeed and returns the message ids it
// names.
func (r *rig) mustVerb(t *testing.T, room int64, name string, params proto.Message) []string {
	t.Helper()
	resp, err := r.verb(t, room, name, params, "")
	if err != nil {
		t.Fatalf("%s %v: %v", name, params, err)
	}
	return refKindsOf(resp.GetReferences())[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE]
}

// send sends text (with buttons) in room and returns the message's id.
func (r *rig) send(t *testing.T, room int64, text string, buttons ...*providerv1.Button) int64 {
	t.Helper()
	ids := r.mustVerb(t, room, provider.VerbSend, &providerv1.SendParams{Text: text, Buttons: buttons})
	if len(ids) != 1 {
		t.Fatalf("send %q made messages %v, want one", text, ids)
	}
	var id int64
	fmt.Sscan(ids[0], &id)
	return id
}

// stream is an Updates stream, the supervisor's side of it.
type stream struct {
	t    *testing.T
	st   grpc.BidiStreamingClient[providerv1.UpdatesRequest, providerv1.UpdatesResponse]
	next []*providerv1.Update // received, not yet returned by recv
	// end ends the stream: a recv that waited longer than wait does.
	end context.CancelFunc
}

func (r *rig) updates(t *testing.T, state []byte) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, err := r.h.Client.Updates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: &providerv1.UpdatesRequest_Start{State: state}}}); err != nil {
		t.Fatal(err)
	}
	return &stream{t: t, st: st, end: cancel}
}

// recv returns the next update, one at a time whatever the batches.
func (s *stream) recv() *providerv1.Update {
	s.t.Helper()
	for len(s.next) == 0 {
		timeout := time.AfterFunc(wait, s.end)
		resp, err := s.st.Recv()
		if !timeout.Stop() {
			s.t.Fatalf("no update within %v", wait)
		}
		if err != nil {
			s.t.Fatalf("updates: %v", err)
		}
		s.next = resp.GetUpdates()
	}
	u := s.next[0]
	s.next = s.next[1:]
	return u
}

func (s *stream) ack(id int64) {
	s.t.Helper()
	if err := s.st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: id}}}); err != nil {
		s.t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code codes.Code, contains string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), contains) {
		t.Fatalf("got %v, want %v containing %q", err, code, contains)
	}
}

// refKinds returns an update's references by kind.
func refKinds(u *providerv1.Update) map[providerv1.ReferenceKind][]string {
	return refKindsOf(u.GetReferences())
}

func refKindsOf(refs *providerv1.References) map[providerv1.ReferenceKind][]string {
	out := map[providerv1.ReferenceKind][]string{}
	for _, r := range refs.GetItems() {
		out[r.GetKind()] = append(out[r.GetKind()], r.GetId())
	}
	return out
}

// payloadOf decodes an update's payload.
func payloadOf(t *testing.T, u *providerv1.Update) payload {
	t.Helper()
	var p payload
	dec := json.NewDecoder(bytes.NewReader(u.GetPayload()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("payload %s: %v", u.GetPayload(), err)
	}
	return p
}

// httpClient has no cookies: a visitor without a session.
var httpClient = http.Client{Timeout: wait}

func newRequest(method, url, body string) (*http.Request, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, err
}
