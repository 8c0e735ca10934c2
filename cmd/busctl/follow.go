package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/internal/proc"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

const followLong = `follow registers a follower for a shell agent and talks JSON lines.

stdout carries one JSON object per line, told apart by "type":

  {"type":"registered","origin":"FRESH","profile_key":…,"binding":{…},"platform":"telegram",
   "max_text_chars":4096,"verbs":["send","edit",…],"methods":["sendMessage",…]}
  {"type":"update","seq":7,"kind":"message","text":"hi","chat":"-100…","thread":"42",
   "sender":"4242","sender_name":"@me","platform":"telegram","received_at":"…",
   "references":[{"kind":"message","id":"17"}],"payload":{…the platform's update…}}
  {"type":"result","line":3,"message_ids":["18"]}          a message was sent (or edited)
  {"type":"result","line":4}                               a verb went through
  {"type":"result","line":5,"result":{…},"references":[…]} a platform call went through
  {"type":"error","line":6,"error":"…","code":"PermissionDenied","reason":"OUT_OF_SCOPE"}
  {"type":"handoff","token":"…","expires_at":"…"}          at the end (EOF or Ctrl-C)
  {"type":"stop_requested","by":"@me","provider":"telegram"} a person asked from the chat
                               that this session stop (the stop command): the agent decides

An update is acknowledged to the supervisor only after its line was written
and flushed, so a follow that dies loses nothing: the next one (same profile
key) gets every update not yet acknowledged.

stdin takes one reply per line, answered by a "result" or "error" line on
stdout naming the input line number (stderr carries only human-readable
notes):

  plain text                   sent as a message in the thread: Markdown,
                               rendered for the platform and split into
                               several messages if longer than one may be
  {"verb":"send","text":"**done**","reply_to":"17","buttons":[{"label":"OK","data":"ok"}]}
  {"verb":"edit","message_id":"18","text":"done, all tests pass"}
  {"verb":"react","message_id":"17","emoji":"👍"}
  {"verb":"typing"}
  {"verb":"answer","interaction_id":"…","text":"noted"}
                               the message verbs, the same on every platform
                               (the registered line's "verbs" lists those
                               the thread's platform has)
  {"method":"sendMessage","params":{"text":"hi"}}
                               any other call the thread's provider allows
                               (the registered line's "methods"); the thread
                               is filled in

EOF on stdin, Ctrl-C or SIGTERM suspends the session: the supervisor holds the
thread and its unacknowledged updates for a successor for 30 s, and the
handoff token is printed (a "handoff" line on stdout, and on stderr).
Resume with --handoff TOKEN.

The profile key is --profile-key, else "shell:<pid>@<start>" of the process
that ran busctl (the agent's shell), so a session that runs follow again
finds its thread.`

type followOpts struct {
	threadName, profileKey, handoff, provider string
	after                                     uint64
}

func (a *app) followCmd() *cobra.Command {
	var o followOpts
	cmd := &cobra.Command{
		Use:   "follow",
		Short: "Follow a thread from a shell: updates out as JSON lines, replies in",
		Long:  followLong,
		Example: `  busctl follow --thread-name build-bot
  echo 'done: all tests pass' | busctl follow --profile-key ci:42
  busctl follow --handoff 3q2…   # resume a suspended session`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.follow(cmd.Context(), cmd.InOrStdin(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.threadName, "thread-name", "", "thread name (default: the working directory's base name)")
	f.StringVar(&o.profileKey, "profile-key", "", "stable identity of the session (default: the calling process)")
	f.Uint64Var(&o.after, "after", 0, "deliver updates after this seq (those up to it are skipped; the unacknowledged rest is replayed)")
	f.StringVar(&o.handoff, "handoff", "", "handoff token printed by a suspended follow: resume its thread")
	f.StringVar(&o.provider, "provider", "", "provider to bind on (default: the supervisor's)")
	cmd.RegisterFlagCompletionFunc("provider", a.completeFlagProviders)
	cmd.RegisterFlagCompletionFunc("profile-key", a.completeFlagBindings)
	return cmd
}

// follower is one busctl follow session. out serialises the lines on
// stdout; mu guards f (replaced when the stream is resumed).
type follower struct {
	a   *app
	c   *client.Client
	reg client.Registration

	outMu sync.Mutex
	out   *bufio.Writer

	mu sync.Mutex
	f  *client.Follower

	delivered uint64 // the update loop's: highest seq written
	// toldStop: the stop_requested line was written (once per follow).
	toldStop atomic.Bool
}

func (a *app) follow(ctx context.Context, stdin io.Reader, o followOpts) error {
	c, _, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	cwd, _ := os.Getwd()
	key := o.profileKey
	if key == "" {
		inc, err := proc.Of(os.Getppid())
		if err != nil {
			return fmt.Errorf("name the session with --profile-key (%w)", err)
		}
		key = "shell:" + inc.String()
	}
	fl := &follower{a: a, c: c, out: bufio.NewWriter(a.stdout), delivered: o.after,
		reg: client.Registration{ProfileKey: key, ThreadName: o.threadName, Cwd: cwd, Provider: o.provider, HandoffToken: o.handoff,
			// A session chatbus launched says so (docs/launch.md).
			LaunchID: os.Getenv("CHATBUS_LAUNCH_ID")}}
	if err := fl.register(ctx); err != nil {
		return err
	}

	loopCtx, stopLoop := context.WithCancel(ctx)
	looped := make(chan error, 1)
	go func() { looped <- fl.updates(loopCtx) }()

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	var loopErr error
	n := 0
read:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break read
			}
			n++
			if strings.TrimSpace(line) != "" {
				fl.answer(ctx, n, line)
			}
		case <-ctx.Done():
			break read
		case loopErr = <-looped:
			break read
		}
	}
	stopLoop()
	if loopErr == nil {
		loopErr = <-looped
	}
	if herr := fl.suspend(); herr != nil {
		return errors.Join(loopErr, herr)
	}
	return loopErr
}

// register registers (again); a provider that is still starting (a
// supervisor restart) has not described its platform yet, so it asks
// again for a few seconds until it has.
func (fl *follower) register(ctx context.Context) error {
	var f *client.Follower
	var r *chatbusv1.RegisterResponse
	name := ""
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if f, err = fl.c.Register(ctx, fl.reg); err != nil {
			return fmt.Errorf("register %q: %w", fl.reg.ProfileKey, err)
		}
		fl.reg.HandoffToken = "" // used: asking again goes by the key
		r = f.Registered()
		if name = r.GetCapabilities().GetPlatform(); name == "" {
			name = r.GetBinding().GetPlatform()
		}
		if name != "" || r.GetOrigin() == chatbusv1.Origin_ORIGIN_DETACHED || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		go f.Close(context.Background()) // the next Register replaces it
	}
	caps := r.GetCapabilities()
	fl.mu.Lock()
	old := fl.f
	fl.f = f
	fl.mu.Unlock()
	if old != nil {
		go old.Close(context.Background()) // replaced by the same instance: its token is dead
	}
	var methods []string
	for _, m := range caps.GetMethods() {
		methods = append(methods, m.GetName())
	}
	line := map[string]any{
		"type": "registered", "origin": strings.TrimPrefix(r.GetOrigin().String(), "ORIGIN_"), "profile_key": fl.reg.ProfileKey,
		"binding": protoJSON(r.GetBinding()), "platform": name, "max_text_chars": caps.GetMaxTextChars(),
		"verbs": nonNil(caps.GetVerbs()), "methods": nonNil(methods),
	}
	if err := fl.writeLine(line); err != nil {
		return err
	}
	t := r.GetBinding().GetTarget()
	fmt.Fprintf(fl.a.stderr, "busctl follow: %s as %q in thread %s/%s (%q)\n", line["origin"], fl.reg.ProfileKey, t.GetChat(), t.GetThread(), r.GetBinding().GetThreadName())
	return nil
}

func (fl *follower) session() *client.Follower {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.f
}

// nonNil keeps an empty list a list in JSON.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// healthyStream is how long an update stream must have lived for its end
// to count as a new failure rather than one more in a row.
const healthyStream = 10 * time.Second

// updates writes every update of the thread as a line and acks it once the
// line is flushed; a broken stream is resumed after the last one written,
// after a pause that grows while streams keep breaking (from 100ms to 5s)
// and starts over after a stream that lived healthyStream.
func (fl *follower) updates(ctx context.Context) error {
	retry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 5 * time.Second}.New()
	for {
		f := fl.session()
		started := time.Now()
		// A person's request from the chat that the session stop is a
		// line; the agent decides (chatbus did not start it).
		watchCtx, endWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			asked, _ := f.StopRequested()
			select {
			case <-asked:
				_, r := f.StopRequested()
				if !fl.toldStop.Swap(true) {
					_ = fl.writeLine(map[string]any{"type": "stop_requested", "by": r.GetRequestedBy(), "provider": r.GetProvider()})
				}
			case <-watchCtx.Done():
			}
		}()
		err := f.Updates(ctx, fl.delivered, func(u *chatbusv1.Update) error {
			if u == nil {
				return nil
			}
			if u.GetSeq() > fl.delivered {
				if err := fl.writeLine(updateLine(u)); err != nil {
					return fmt.Errorf("stdout: %w", err)
				}
				fl.delivered = u.GetSeq()
			}
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			return f.Ack(actx, u.GetSeq())
		})
		endWatch()
		<-watched
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && strings.HasPrefix(err.Error(), "stdout: "):
			return err
		case errors.Is(err, client.ErrReplaced):
			return fmt.Errorf("another session took the thread: %w", err)
		}
		fmt.Fprintf(fl.a.stderr, "busctl follow: update stream ended (%v); resuming\n", err)
		if time.Since(started) > healthyStream {
			retry.Reset()
		}
		if backoff.Sleep(ctx, retry.NextBackOff()) != nil {
			return nil
		}
		if err := fl.register(ctx); err != nil {
			fmt.Fprintf(fl.a.stderr, "busctl follow: %v\n", err)
		}
	}
}

// answer sends one input line and writes its result or error line. Its
// idempotency key names the session and the line, so a line is sent once
// however often the call is retried.
func (fl *follower) answer(ctx context.Context, n int, line string) {
	f := fl.session()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	key := fmt.Sprintf("%s-line-%d", f.Session().GetInstanceId(), n)
	if !strings.HasPrefix(strings.TrimSpace(line), "{") {
		ids, err := f.Send(ctx, client.Message{Text: line}, key)
		fl.result(n, map[string]any{"message_ids": ids}, err)
		return
	}
	var req struct {
		Verb          string          `json:"verb"`
		Method        string          `json:"method"`
		Params        json.RawMessage `json:"params"`
		Text          string          `json:"text"`
		ReplyTo       string          `json:"reply_to"`
		MessageID     string          `json:"message_id"`
		Emoji         string          `json:"emoji"`
		InteractionID string          `json:"interaction_id"`
		Buttons       []client.Button `json:"buttons"`
		Prompt        bool            `json:"prompt"`
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || (req.Verb == "") == (req.Method == "") {
		why := "a JSON line is a verb {\"verb\":\"send\",\"text\":…} or a call {\"method\":…,\"params\":{…}}"
		if err != nil {
			why += ": " + err.Error()
		}
		fl.writeLine(map[string]any{"type": "error", "line": n, "error": why, "code": codes.InvalidArgument.String()})
		return
	}
	var err error
	switch req.Verb {
	case "":
		if len(req.Params) == 0 {
			req.Params = json.RawMessage("{}")
		}
		var resp *chatbusv1.CallResponse
		if resp, err = f.Do(ctx, req.Method, req.Params, key); err == nil {
			fl.result(n, map[string]any{"result": rawJSON(resp.GetResultJson()), "references": refsJSON(resp.GetReferences())}, nil)
			return
		}
	case "send":
		var ids []string
		ids, err = f.Send(ctx, client.Message{Text: req.Text, ReplyTo: req.ReplyTo, Buttons: req.Buttons, Prompt: req.Prompt}, key)
		if err == nil {
			fl.result(n, map[string]any{"message_ids": ids}, nil)
			return
		}
	case "edit":
		if err = f.Edit(ctx, req.MessageID, req.Text, req.Buttons, key); err == nil {
			fl.result(n, map[string]any{"message_ids": []string{req.MessageID}}, nil)
			return
		}
	case "react":
		err = f.React(ctx, req.MessageID, req.Emoji, key)
	case "typing":
		err = f.Typing(ctx)
	case "answer":
		err = f.Answer(ctx, req.InteractionID, req.Text, key)
	default:
		fl.writeLine(map[string]any{"type": "error", "line": n, "error": fmt.Sprintf("unknown verb %q (send, edit, react, typing, answer)", req.Verb), "code": codes.InvalidArgument.String()})
		return
	}
	fl.result(n, nil, err)
}

// result writes the result line of input line n (with fields), or its
// error line.
func (fl *follower) result(n int, fields map[string]any, err error) {
	if err != nil {
		fl.writeError(n, err)
		return
	}
	line := map[string]any{"type": "result", "line": n}
	for k, v := range fields {
		line[k] = v
	}
	fl.writeLine(line)
}

func (fl *follower) writeError(n int, err error) {
	line := map[string]any{"type": "error", "line": n, "error": err.Error()}
	var e *client.Error
	if errors.As(err, &e) {
		line["code"], line["reason"] = e.Code.String(), e.Reason
	}
	if d, ok := client.RetryDelay(err); ok {
		line["retry_after_ms"] = d.Milliseconds()
	}
	fl.writeLine(line)
}

// suspend hands the thread to a successor and prints the token.
func (fl *follower) suspend() error {
	f := fl.session()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h, err := f.Suspend(ctx)
	if err != nil {
		f.Close(ctx)
		return fmt.Errorf("suspend: %w", err)
	}
	fl.writeLine(map[string]any{"type": "handoff", "token": h.Token, "expires_at": h.Expires.UTC().Format(time.RFC3339)})
	fmt.Fprintf(fl.a.stderr, "busctl follow: suspended; handoff token %s (until %s): busctl follow --handoff %s\n",
		h.Token, h.Expires.Local().Format(time.TimeOnly), h.Token)
	return nil
}

// writeLine writes v as one JSON line and flushes it.
func (fl *follower) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fl.outMu.Lock()
	defer fl.outMu.Unlock()
	fl.out.Write(b)
	fl.out.WriteByte('\n')
	return fl.out.Flush()
}

// updateLine is an update in its platform-neutral fields, with the
// platform's own update as payload.
func updateLine(u *chatbusv1.Update) map[string]any {
	m := map[string]any{
		"type": "update", "seq": u.GetSeq(),
		"kind": strings.ToLower(strings.TrimPrefix(u.GetKind().String(), "UPDATE_KIND_")),
		"text": u.GetText(),
		"chat": u.GetTarget().GetChat(), "thread": u.GetTarget().GetThread(),
		"sender": u.GetSender(), "sender_name": u.GetSenderName(), "platform": u.GetPlatform(),
		"references": refsJSON(u.GetReferences()),
		"payload":    rawJSON(u.GetPayload()),
	}
	if ts := u.GetReceivedAt(); ts != nil {
		m["received_at"] = ts.AsTime().UTC().Format(time.RFC3339Nano)
	}
	return m
}

func refsJSON(refs []*chatbusv1.Reference) []map[string]string {
	out := make([]map[string]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, map[string]string{"kind": strings.ToLower(strings.TrimPrefix(r.GetKind().String(), "REFERENCE_KIND_")), "id": r.GetId()})
	}
	return out
}

// rawJSON embeds b as JSON if it is JSON, else as a string.
func rawJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return json.RawMessage(b)
	}
	return string(b)
}

// protoJSON is a proto message as a JSON value (proto field names).
func protoJSON(m proto.Message) json.RawMessage {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
