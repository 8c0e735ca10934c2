package child_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func verbParams(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerbs: a verb called as a method reaches the Platform's Messenger
// (and Reactor, Typist, Answerer) decoded, with its thread, and answers
// the messages it sent as references and a VerbResult.
func TestVerbs(t *testing.T) {
	ctx := providertest.Context(t)
	f := &providertest.Fake{}
	h := start(t, f)

	d, err := h.Client.Describe(ctx, &providerv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range d.GetVerbs() {
		names = append(names, v.GetName())
	}
	if want := []string{"send", "edit", "react", "typing", "answer"}; !slices.Equal(names, want) {
		t.Fatalf("Describe verbs = %v, want %v", names, want)
	}

	send := &providerv1.SendParams{Text: "**one**\fpart two", ReplyTo: "7", Prompt: true,
		Buttons: []*providerv1.Button{{Label: "Allow", Data: "perm:allow:abcde"}}}
	resp, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "send", ParamsJson: verbParams(t, send), IdempotencyKey: "k1", Target: testTarget})
	if err != nil {
		t.Fatal(err)
	}
	var res providerv1.VerbResult
	if err := protojson.Unmarshal(resp.GetResultJson(), &res); err != nil {
		t.Fatalf("result %s: %v", resp.GetResultJson(), err)
	}
	if want := []string{"5001", "5002"}; !slices.Equal(res.GetMessageIds(), want) {
		t.Fatalf("message ids %v, want %v", res.GetMessageIds(), want)
	}
	if n := len(resp.GetReferences().GetItems()); n != 2 {
		t.Fatalf("%d references, want 2: %v", n, resp.GetReferences())
	}

	calls := []struct {
		verb   string
		params proto.Message
	}{
		{"edit", &providerv1.EditParams{MessageId: "5001", Text: "done"}},
		{"react", &providerv1.ReactParams{MessageId: "7", Emoji: "👀"}},
		{"typing", &providerv1.TypingParams{}},
		{"answer", &providerv1.AnswerParams{InteractionId: "cb1", Text: "Allowed"}},
	}
	for _, c := range calls {
		if _, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: c.verb, ParamsJson: verbParams(t, c.params), Target: testTarget}); err != nil {
			t.Fatalf("%s: %v", c.verb, err)
		}
	}
	tgt := provider.Target{Chat: testTarget.GetChat(), Thread: testTarget.GetThread()}
	want := []providertest.VerbRecord{
		{Target: tgt, Verb: "send", IdempotencyKey: "k1", Message: provider.Message{Text: "**one**\fpart two", ReplyTo: "7", Prompt: true,
			Buttons: []provider.Button{{Label: "Allow", Data: "perm:allow:abcde"}}}},
		{Target: tgt, Verb: "edit", ID: "5001", Message: provider.Message{Text: "done"}},
		{Target: tgt, Verb: "react", ID: "7", Emoji: "👀"},
		{Target: tgt, Verb: "typing"},
		{Target: tgt, Verb: "answer", ID: "cb1", Text: "Allowed"},
	}
	if got := f.Verbs(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("verbs\n got %+v\nwant %+v", got, want)
	}
	if len(f.Calls()) != 0 {
		t.Fatalf("verbs reached Platform.Call: %+v", f.Calls())
	}

	// Params the provider cannot read are refused, not half-done.
	_, err = h.Client.Call(ctx, &providerv1.CallRequest{Method: "send", ParamsJson: []byte(`{"text":"x","colour":"red"}`), Target: testTarget})
	wantCode(t, err, codes.InvalidArgument, "send params")
	if n := len(f.Verbs()); n != len(want) {
		t.Fatalf("a refused verb reached the platform: %d verbs", n)
	}
}

// Platforms with fewer verbs, or another Description.
type (
	plain    struct{ provider.Platform }
	sendEdit struct {
		provider.Platform
		provider.Messenger
	}
	describedFake struct {
		*providertest.Fake
		d provider.Description
	}
	describedPlain struct {
		plain
		d provider.Description
	}
)

func (d describedFake) Describe() provider.Description  { return d.d }
func (d describedPlain) Describe() provider.Description { return d.d }

// TestVerbsDeclared: the SDK declares the verbs a Platform implements, and
// refuses a Description that declares one it does not or names a method
// as a verb.
func TestVerbsDeclared(t *testing.T) {
	ctx := providertest.Context(t)
	f := &providertest.Fake{}
	cases := []struct {
		name    string
		p       provider.Platform
		want    []string
		wantErr string
	}{
		{name: "all", p: f, want: []string{"send", "edit", "react", "typing", "answer"}},
		{name: "send and edit only", p: sendEdit{f, f}, want: []string{"send", "edit"}},
		{name: "none", p: plain{f}, want: nil},
		{name: "declared, implemented", p: describedFake{f, provider.Description{Platform: "x", Verbs: []provider.Verb{{Name: "send", Idempotent: true}}}}, want: []string{"send"}},
		{name: "declared, not implemented", p: describedPlain{plain{f}, provider.Description{Platform: "x", Verbs: []provider.Verb{{Name: "send"}}}}, wantErr: "not implemented"},
		{name: "method named as a verb", p: describedFake{f, provider.Description{Platform: "x", Methods: []provider.Method{{Name: "send"}}}}, wantErr: "message verb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.wantErr != "" {
				_, err := child.New(child.Config{Name: "fake", Platform: c.p, Socket: "/nonexistent/pv.sock", Secret: "0123456789abcdef0123"})
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("New = %v, want an error saying %q", err, c.wantErr)
				}
				return
			}
			h := providertest.Start(t, child.Config{Platform: c.p})
			d, err := h.Client.Describe(ctx, &providerv1.DescribeRequest{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range d.GetVerbs() {
				got = append(got, v.GetName())
				if v.GetName() == "send" && v.GetIdempotent() != (c.name == "declared, implemented") {
					t.Errorf("send idempotent = %v", v.GetIdempotent())
				}
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("verbs %v, want %v", got, c.want)
			}
		})
	}
}
