package playground

import (
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/providertest"
)

// TestControlRoom: the control room is the chat's control place. What the
// person writes there is a COMMAND update with no thread; a button pressed
// there is a press with no thread; the supervisor's answers, sent to the
// chat with no thread, land there; it is no session's thread to close or
// reuse.
func TestControlRoom(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := providertest.Context(t)
	rs, _ := r.p.st.rooms()
	if len(rs) != 1 || rs[0].ID != ControlRoom || !rs[0].Control || rs[0].Name != "control" {
		t.Fatalf("rooms of a new playground %+v", rs)
	}
	if d := r.p.Describe(); d.CommandPrefix != "" {
		t.Errorf("command prefix %q: in the control room a command is written as it is", d.CommandPrefix)
	}

	st := r.updates(t, nil)
	r.web.say(ControlRoom, "c1", "sessions")
	u := st.recv()
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_COMMAND || u.GetText() != "sessions" || u.GetThread() != "" || u.GetChat() != chatText || !u.GetAllowed() {
		t.Fatalf("a message in the control room: %v", u)
	}
	st.ack(u.GetUpdateId())

	// The answer, sent to the chat itself (thread ""), with a button.
	raw := `{"text":"**Sessions**: none","buttons":[{"label":"Stop A","data":"/stop A"}]}`
	resp, err := r.h.Client.Call(ctx, &providerv1.CallRequest{Method: provider.VerbSend, ParamsJson: []byte(raw),
		Target: &providerv1.Target{Chat: chatText}})
	if err != nil {
		t.Fatal(err)
	}
	var answer int64
	fmt.Sscan(refKindsOf(resp.GetReferences())[providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE][0], &answer)
	h := r.web.history(ControlRoom)
	if len(h) != 2 || h[1].ID != answer || h[1].From != "bot" || h[1].Text != "**Sessions**: none" {
		t.Fatalf("the control room's history %+v", h)
	}
	r.web.post(fmt.Sprintf("/api/rooms/%d/press", ControlRoom), map[string]any{"client_id": "c2", "message_id": answer, "data": "/stop A"})
	u = st.recv()
	if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetText() != "/stop A" || u.GetThread() != "" {
		t.Fatalf("a press in the control room: %v", u)
	}

	_, err = r.h.Client.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: &providerv1.Target{Chat: chatText}})
	wantCode(t, err, codes.InvalidArgument, "control room")
	resp2, err := r.h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · alpha", Reuse: target(ControlRoom)})
	if err != nil || resp2.GetReused() || resp2.GetTarget().GetThread() == fmt.Sprint(ControlRoom) {
		t.Fatalf("provisioning over the control room: %v %v", resp2, err)
	}
}
