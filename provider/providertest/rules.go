package providertest

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/contract"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// rules is the contract, as provider/README.md states it: each rule's
// name says what it checks.
var rules = []rule{
	// Start, health, the Updates stream and its cursor.
	{"start/identify_names_the_owner_and_incarnation", identify},
	{"start/describe_declares_send_and_edit", describe},
	{"start/health_serving_for_process_and_name", health},
	{"start/calls_without_the_secret_unauthenticated", unauthenticated},
	{"updates/first_message_must_be_start", startFirst},
	{"updates/person_writes_update_arrives", deliver},
	{"updates/acked_not_resent_unacked_resent", resume},
	{"updates/ack_beyond_sent_invalid", ackBeyond},
	{"updates/new_stream_aborts_previous", oneStream},

	// Verbs and their scope.
	{"verbs/send_and_edit_reference_messages", sendEdit},
	{"verbs/long_text_split_into_valid_parts", splitLong},
	{"verbs/edit_beyond_one_message_invalid", editTooLong},
	{"verbs/call_without_target_invalid", noTarget},
	{"verbs/params_naming_another_thread_out_of_scope", outOfScope},

	// Idempotency.
	{"idempotency/send_twice_one_message_same_answer", idempotentSend},

	// The doctor fence and occupancy.
	{"fence/request_for_another_owner_refused", fenceMismatch},
	{"fence/prepared_refuses_new_work_allows_settling", fencePrepared},
	{"fence/updates_wait_at_platform_while_prepared", fenceUpdates},
	{"fence/commit_exits_once_occupancy_zero", fenceCommit},
	{"occupancy/attach_detach_counted", occupancyAttach},
	{"occupancy/unacked_updates_counted_inbound", occupancyInbound},

	// Files.
	{"files/upload_then_download_same_bytes", files},
	{"files/unknown_file_not_found", unknownFile},

	// Limits declared.
	{"limits/declared_and_sane", limits},

	// Errors classed.
	{"errors/rate_limited_resource_exhausted_with_retry", func(s *session) { fault(s, RateLimited) }},
	{"errors/platform_5xx_unavailable_or_unknown", func(s *session) { fault(s, Unavailable) }},
	{"errors/revoked_token_permission_denied", func(s *session) { fault(s, Revoked) }},
}

// identify: Identify names the provider, its platform identity, the
// contract's generation and the serving process.
func identify(s *session) {
	id := s.identify()
	if id.GetName() == "" || id.GetOwnerId() == "" {
		s.t.Errorf("Identify: name %q, owner_id %q; want both", id.GetName(), id.GetOwnerId())
	}
	if id.GetGeneration() != contract.Generation {
		s.t.Errorf("Identify: generation %d; want %d", id.GetGeneration(), contract.Generation)
	}
	if inc := id.GetIncarnation(); inc.GetPid() <= 0 || inc.GetStartTime() == 0 {
		s.t.Errorf("Identify: incarnation %v; want the pid and its start time", inc)
	}
}

// describe: Describe names the platform and the contract's generation (the
// supervisor refuses a child of another one at its start), implements send
// and edit (every provider does), and names no method as a verb.
func describe(s *session) {
	d := s.describe()
	if d.GetPlatform() == "" {
		s.t.Error("Describe: no platform")
	}
	if d.GetGeneration() != contract.Generation {
		s.t.Errorf("Describe: generation %d; want %d", d.GetGeneration(), contract.Generation)
	}
	var verbs []string
	for _, v := range d.GetVerbs() {
		verbs = append(verbs, v.GetName())
	}
	for _, want := range []string{"send", "edit"} {
		if !slices.Contains(verbs, want) {
			s.t.Errorf("Describe: verbs %v; want %s among them", verbs, want)
		}
	}
	for _, m := range d.GetMethods() {
		if slices.Contains(knownVerbs, m.GetName()) {
			s.t.Errorf("Describe: method %q is a verb's name", m.GetName())
		}
		for _, p := range m.GetParams() {
			if p.GetName() == "" || p.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_UNSPECIFIED {
				s.t.Errorf("Describe: method %q: param %v without a name or a kind", m.GetName(), p)
			}
		}
	}
}

var knownVerbs = []string{"send", "edit", "react", "typing", "answer", "draft"}

func (s *session) describe() *providerv1.DescribeResponse {
	s.t.Helper()
	d, err := s.c.Describe(s.ctx, &providerv1.DescribeRequest{})
	s.ok("Describe", err)
	return d
}

// health: grpc.health.v1 says SERVING for "" and for the provider's name,
// and needs no secret.
func health(s *session) {
	bare := grpc_health_v1.NewHealthClient(s.conn)
	for _, svc := range []string{"", s.name} {
		s.eventually(fmt.Sprintf("health %q SERVING", svc), func() bool {
			r, err := bare.Check(s.ctx, &grpc_health_v1.HealthCheckRequest{Service: svc})
			return err == nil && r.GetStatus() == grpc_health_v1.HealthCheckResponse_SERVING
		})
	}
	st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
	s.ok("Status", err)
	if st.GetHealthDetail() != "" {
		s.t.Errorf("Status: health_detail %q while serving", st.GetHealthDetail())
	}
}

// unauthenticated: every call but health without the bearer secret is
// refused before it reaches the platform.
func unauthenticated(s *session) {
	bare := s.bare()
	_, err := bare.Identify(s.ctx, &providerv1.IdentifyRequest{})
	if status.Code(err) != codes.Unauthenticated {
		s.t.Errorf("Identify without the secret: %v; want Unauthenticated", err)
	}
	th := &providerv1.Target{Chat: "1", Thread: "1"}
	_, err = bare.Call(s.ctx, &providerv1.CallRequest{Method: "send", ParamsJson: []byte(`{"text":"x"}`), Target: th})
	if status.Code(err) != codes.Unauthenticated {
		s.t.Errorf("Call without the secret: %v; want Unauthenticated", err)
	}
}

// startFirst: an Updates stream whose first message is not Start ends
// with INVALID_ARGUMENT.
func startFirst(s *session) {
	u := s.openRaw()
	s.ok("Updates: Ack first", u.st.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Ack_{Ack: &providerv1.UpdatesRequest_Ack{UpdateId: 1}}}))
	s.refused("an Updates stream opened with an Ack", u.end(), codes.InvalidArgument, "PROTOCOL")
}

// deliver: what a person writes in a thread reaches the supervisor as an
// update of that thread, with a positive id, the sender, the message's
// reference, a de-duplication key and a receipt time.
func deliver(s *session) {
	th := s.bound("suite deliver")
	u := s.open(nil)
	up := u.say(th, "hello suite")
	if up.GetUpdateId() <= 0 {
		s.t.Errorf("update_id %d; want positive", up.GetUpdateId())
	}
	if up.GetChat() != th.GetChat() || up.GetThread() != th.GetThread() {
		s.t.Errorf("update in %q/%q; want the thread %q/%q", up.GetChat(), up.GetThread(), th.GetChat(), th.GetThread())
	}
	if up.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE {
		s.t.Errorf("kind %v; want MESSAGE", up.GetKind())
	}
	if !up.GetAllowed() || up.GetSender() == "" {
		s.t.Errorf("allowed %v, sender %q; want an allowed sender", up.GetAllowed(), up.GetSender())
	}
	if !hasRef(up.GetReferences(), providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE) {
		s.t.Errorf("references %v; want the message", up.GetReferences())
	}
	if up.GetReceivedAt() == nil {
		s.t.Error("received_at not stamped")
	}
	u.ack(up.GetUpdateId())
}

func hasRef(refs *providerv1.References, kind providerv1.ReferenceKind) bool {
	for _, r := range refs.GetItems() {
		if r.GetKind() == kind && r.GetId() != "" {
			return true
		}
	}
	return false
}

// resumeState is what the supervisor stores for up once it is durable:
// its cursor, or for a provider that reports none, update_id + 1.
func resumeState(up *providerv1.Update) []byte {
	if c := up.GetCursor(); len(c) > 0 {
		return c
	}
	return []byte(strconv.FormatInt(up.GetUpdateId()+1, 10))
}

// resume: the platform's cursor moves only past acknowledged updates. An
// update acknowledged is not sent again on a stream started at its
// cursor; one sent but not acknowledged is.
func resume(s *session) {
	th := s.bound("suite resume")
	u := s.open(nil)
	first := u.say(th, "one suite")
	u.ack(first.GetUpdateId())
	second := u.say(th, "two suite")
	s.waitInbound(1)
	u.close()

	v := s.open(resumeState(first))
	again := v.next("suite")
	if !strings.Contains(again.GetText(), "two suite") {
		s.t.Fatalf("the stream resumed at %q's cursor sent %q first; want the unacknowledged %q", first.GetText(), again.GetText(), second.GetText())
	}
	if d := second.GetDedupId(); d != "" && again.GetDedupId() != d {
		s.t.Errorf("the update sent again has dedup_id %q; want %q as the first time", again.GetDedupId(), d)
	}
	v.ack(again.GetUpdateId())
}

// waitInbound waits until occupancy's inbound is n.
func (s *session) waitInbound(n uint32) {
	s.t.Helper()
	s.eventually(fmt.Sprintf("inbound %d", n), func() bool {
		st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
		return err == nil && st.GetOccupancy().GetInbound() == n
	})
}

// ackBeyond: an Ack beyond the last update sent ends the stream with
// INVALID_ARGUMENT.
func ackBeyond(s *session) {
	u := s.open(nil)
	u.ack(1 << 40)
	s.refused("an Ack beyond the last update sent", u.end(), codes.InvalidArgument, "PROTOCOL")
}

// oneStream: a new Updates stream ends the previous one with ABORTED,
// and the new one gets the updates.
func oneStream(s *session) {
	th := s.bound("suite streams")
	first := s.open(nil)
	// An update read on the first proves it started before the second.
	up := first.say(th, "before suite")
	first.ack(up.GetUpdateId())
	s.waitInbound(0)
	// The supervisor starts every stream at the cursor it stored.
	second := s.open(resumeState(up))
	s.refused("the first Updates stream, after a second opened", first.end(), codes.Aborted, "SUPERSEDED")
	up = second.say(th, "after suite")
	second.ack(up.GetUpdateId())
}

// call makes a verb call in th.
func (s *session) call(th *providerv1.Target, verb string, params proto.Message, key string) (*providerv1.CallResponse, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(params)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.c.Call(s.ctx, &providerv1.CallRequest{Method: verb, ParamsJson: b, Target: th, IdempotencyKey: key})
}

// messageIDs are the ids of a verb's VerbResult, checked against its
// references.
func (s *session) messageIDs(what string, r *providerv1.CallResponse) []string {
	s.t.Helper()
	var vr providerv1.VerbResult
	if err := protojson.Unmarshal(r.GetResultJson(), &vr); err != nil {
		s.t.Fatalf("%s: result_json %s is no VerbResult: %v", what, r.GetResultJson(), err)
	}
	var refs []string
	for _, ref := range r.GetReferences().GetItems() {
		if ref.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE {
			refs = append(refs, ref.GetId())
		}
	}
	if len(vr.GetMessageIds()) == 0 || !slices.Equal(vr.GetMessageIds(), refs) {
		s.t.Fatalf("%s: message_ids %v, message references %v; want the same, at least one", what, vr.GetMessageIds(), refs)
	}
	return vr.GetMessageIds()
}

// sendEdit: send posts a message and references it; edit of it answers
// the same message.
func sendEdit(s *session) {
	th := s.thread("suite send")
	r, err := s.call(th, "send", &providerv1.SendParams{Text: "sent by the suite"}, "")
	s.ok("send", err)
	ids := s.messageIDs("send", r)
	if n := s.in.Platform.Sent(s.t, th); n != 1 {
		s.t.Errorf("after one send the platform holds %d messages of the bot in the thread; want 1", n)
	}
	e, err := s.call(th, "edit", &providerv1.EditParams{MessageId: ids[0], Text: "edited by the suite"}, "")
	s.ok("edit", err)
	if got := s.messageIDs("edit", e); !slices.Equal(got, ids[:1]) {
		s.t.Errorf("edit answered messages %v; want %v", got, ids[:1])
	}
}

// splitLong: a send longer than one message goes as several, each within
// max_text_chars.
func splitLong(s *session) {
	max := int(s.describe().GetMaxTextChars())
	if max == 0 {
		s.t.Fatal("Describe: max_text_chars 0")
	}
	th := s.thread("suite split")
	text := longText(max*2 + max/2)
	r, err := s.call(th, "send", &providerv1.SendParams{Text: text}, "")
	s.ok(fmt.Sprintf("send of %d characters", len(text)), err)
	ids := s.messageIDs("send", r)
	if len(ids) < 3 {
		s.t.Errorf("a send of %d characters, max_text_chars %d, went as %d messages; want at least 3", len(text), max, len(ids))
	}
	if n := s.in.Platform.Sent(s.t, th); n != len(ids) {
		s.t.Errorf("the platform holds %d messages of the bot; the send answered %d", n, len(ids))
	}
}

// longText is n characters of plain words.
func longText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "word%d ", i%1000)
	}
	return b.String()[:n]
}

// editTooLong: an edit whose text does not fit one message is refused as
// invalid.
func editTooLong(s *session) {
	max := int(s.describe().GetMaxTextChars())
	th := s.thread("suite edit")
	r, err := s.call(th, "send", &providerv1.SendParams{Text: "short"}, "")
	s.ok("send", err)
	id := s.messageIDs("send", r)[0]
	_, err = s.call(th, "edit", &providerv1.EditParams{MessageId: id, Text: longText(max + max/2)}, "")
	s.refused("an edit longer than max_text_chars", err, codes.InvalidArgument, "INVALID")
}

// noTarget: a call without a target is refused.
func noTarget(s *session) {
	_, err := s.c.Call(s.ctx, &providerv1.CallRequest{Method: "send", ParamsJson: []byte(`{"text":"x"}`)})
	if status.Code(err) != codes.InvalidArgument {
		s.t.Errorf("a send without a target: %v; want InvalidArgument", err)
	}
}

// outOfScope: the provider's own methods are pinned to the call's thread:
// params naming another chat or thread are refused, and nothing is sent.
func outOfScope(s *session) {
	if len(s.target.OutOfScope) == 0 {
		d := s.describe()
		if len(d.GetMethods()) > 0 {
			s.t.Fatalf("the provider declares %d methods and the Target no call leaving the thread to try", len(d.GetMethods()))
		}
		s.t.Log("the provider declares no methods: verbs name no chat or thread")
		return
	}
	th := s.thread("suite scope")
	for _, c := range s.target.OutOfScope {
		_, err := s.c.Call(s.ctx, &providerv1.CallRequest{Method: c.Method, ParamsJson: []byte(c.Params), Target: th})
		s.refused(fmt.Sprintf("%s %s", c.Method, c.Params), err, codes.PermissionDenied, "OUT_OF_SCOPE")
	}
	if n := s.in.Platform.Sent(s.t, th); n != 0 {
		s.t.Errorf("the bot has %d message(s) in the thread after refused calls; want none", n)
	}
}

// idempotentSend: a send the provider declares idempotent, made twice
// with one key, posts once and answers the same both times.
func idempotentSend(s *session) {
	d := s.describe()
	var idem bool
	for _, v := range d.GetVerbs() {
		if v.GetName() == "send" {
			idem = v.GetIdempotent()
		}
	}
	if !idem {
		s.t.Log("send is not declared idempotent: the supervisor never sends it twice")
		return
	}
	th := s.thread("suite idempotent")
	p := &providerv1.SendParams{Text: "once only"}
	a, err := s.call(th, "send", p, "suite-key-1")
	s.ok("send", err)
	b, err := s.call(th, "send", p, "suite-key-1")
	s.ok("send again with the same key", err)
	if !proto.Equal(a, b) {
		s.t.Errorf("the same send twice answered %v, then %v; want the same", a, b)
	}
	if n := s.in.Platform.Sent(s.t, th); n != 1 {
		s.t.Errorf("the same send twice left %d messages on the platform; want 1", n)
	}
	if _, err := s.call(th, "send", p, "suite-key-2"); err != nil {
		s.t.Fatalf("send with another key: %v", err)
	}
	if n := s.in.Platform.Sent(s.t, th); n != 2 {
		s.t.Errorf("a send with another key left %d messages; want 2", n)
	}
}

// fence is a doctor's fence for this provider, as Identify names it.
func (s *session) fence(requestID string) *providerv1.Fence {
	id := s.identify()
	return &providerv1.Fence{RequestId: requestID, OwnerId: id.GetOwnerId(), Generation: id.GetGeneration(), Incarnation: id.GetIncarnation()}
}

// fenceMismatch: a fence naming another incarnation, owner or generation
// is refused; Commit of a request that did not prepare is refused.
func fenceMismatch(s *session) {
	good := s.fence("doctor-1")
	for what, f := range map[string]*providerv1.Fence{
		"another incarnation": {RequestId: "doctor-1", Incarnation: &providerv1.Incarnation{Pid: good.GetIncarnation().GetPid() + 1, StartTime: good.GetIncarnation().GetStartTime()}},
		"no incarnation":      {RequestId: "doctor-1"},
		"another owner":       {RequestId: "doctor-1", OwnerId: good.GetOwnerId() + "0", Incarnation: good.GetIncarnation()},
		"another generation":  {RequestId: "doctor-1", Generation: good.GetGeneration() + 1, Incarnation: good.GetIncarnation()},
	} {
		_, err := s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: f})
		s.refused("Prepare for "+what, err, codes.FailedPrecondition, "FENCE_MISMATCH")
	}
	_, err := s.c.Commit(s.ctx, &providerv1.CommitRequest{Fence: good})
	s.refused("Commit without Prepare", err, codes.FailedPrecondition, "NOT_PREPARED")
	_, err = s.c.Cancel(s.ctx, &providerv1.CancelRequest{Fence: good})
	s.ok("Cancel while idle", err)
	s.admitting(true)
}

// admitting checks Status says admission is open (or closed).
func (s *session) admitting(want bool) {
	s.t.Helper()
	st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
	s.ok("Status", err)
	if st.GetAdmitting() != want {
		s.t.Errorf("Status: admitting %v, phase %v; want admitting %v", st.GetAdmitting(), st.GetPhase(), want)
	}
}

// fencePrepared: once Prepare returns, new work (Call, UploadFile,
// DownloadFile, Attach, ProvisionTarget) is refused as not admitting and
// reaches nothing; Detach and CloseTarget settle state and are allowed;
// another doctor cannot take the fence; Cancel reopens admission.
func fencePrepared(s *session) {
	th := s.thread("suite fence")
	_, err := s.c.Attach(s.ctx, &providerv1.AttachRequest{InstanceId: "follower-1", Target: th})
	s.ok("Attach", err)
	f := s.fence("doctor-1")
	p, err := s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: f, Lease: durationpb.New(wait * 3)})
	s.ok("Prepare", err)
	if p.GetOccupancy().GetAttached() != 1 || p.GetLeaseExpiresAt() == nil {
		s.t.Errorf("Prepare answered %v; want attached 1 and the lease's end", p)
	}
	st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
	s.ok("Status", err)
	if st.GetPhase() != providerv1.Phase_PHASE_PREPARED || st.GetAdmitting() || st.GetRequestId() != "doctor-1" {
		s.t.Errorf("Status after Prepare: %v; want PREPARED by doctor-1, not admitting", st)
	}

	_, err = s.call(th, "send", &providerv1.SendParams{Text: "fenced"}, "")
	s.refused("send while prepared", err, codes.FailedPrecondition, "NOT_ADMITTING")
	_, err = s.upload(th, "fenced.txt", []byte("fenced"))
	s.refused("UploadFile while prepared", err, codes.FailedPrecondition, "NOT_ADMITTING")
	_, err = s.download("any-file")
	s.refused("DownloadFile while prepared", err, codes.FailedPrecondition, "NOT_ADMITTING")
	_, err = s.c.Attach(s.ctx, &providerv1.AttachRequest{InstanceId: "follower-2", Target: th})
	s.refused("Attach while prepared", err, codes.FailedPrecondition, "NOT_ADMITTING")
	_, err = s.c.ProvisionTarget(s.ctx, &providerv1.ProvisionTargetRequest{Name: "suite fenced"})
	s.refused("ProvisionTarget while prepared", err, codes.FailedPrecondition, "NOT_ADMITTING")
	if n := s.in.Platform.Sent(s.t, th); n != 0 {
		s.t.Errorf("the bot has %d message(s) in the thread after refused calls; want none", n)
	}

	other := s.fence("doctor-2")
	_, err = s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: other})
	s.refused("Prepare by another doctor", err, codes.Aborted, "FENCE_HELD")
	_, err = s.c.Cancel(s.ctx, &providerv1.CancelRequest{Fence: other})
	s.refused("Cancel by another doctor", err, codes.FailedPrecondition, "NOT_PREPARED")
	_, err = s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: f})
	s.ok("Prepare again by the same doctor (renews the lease)", err)

	_, err = s.c.Detach(s.ctx, &providerv1.DetachRequest{InstanceId: "follower-1"})
	s.ok("Detach while prepared", err)
	_, err = s.c.CloseTarget(s.ctx, &providerv1.CloseTargetRequest{Target: th})
	s.ok("CloseTarget while prepared", err)
	r, err := s.health.Check(s.ctx, &grpc_health_v1.HealthCheckRequest{Service: s.name})
	if err != nil || r.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
		s.t.Errorf("health while prepared: %v %v; want SERVING", r.GetStatus(), err)
	}

	_, err = s.c.Cancel(s.ctx, &providerv1.CancelRequest{Fence: f})
	s.ok("Cancel", err)
	s.admitting(true)
	th2 := s.thread("suite after fence")
	_, err = s.call(th2, "send", &providerv1.SendParams{Text: "after the fence"}, "")
	s.ok("send after Cancel", err)
}

// fenceUpdates: while admission is closed the provider leaves new updates
// at the platform; once it reopens they arrive.
func fenceUpdates(s *session) {
	th := s.bound("suite fence updates")
	u := s.open(nil)
	f := s.fence("doctor-1")
	_, err := s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: f, Lease: durationpb.New(wait * 3)})
	s.ok("Prepare", err)
	s.in.Platform.Say(s.t, th, "while fenced suite")
	_, err = s.c.Cancel(s.ctx, &providerv1.CancelRequest{Fence: f})
	s.ok("Cancel", err)
	up := u.next("while fenced suite")
	u.ack(up.GetUpdateId())
}

// fenceCommit: after Commit the provider exits by itself once the last
// follower detaches (occupancy zero), not before; Cancel is then refused.
func fenceCommit(s *session) {
	th := s.thread("suite commit")
	_, err := s.c.Attach(s.ctx, &providerv1.AttachRequest{InstanceId: "follower-1", Target: th})
	s.ok("Attach", err)
	f := s.fence("doctor-1")
	_, err = s.c.Prepare(s.ctx, &providerv1.PrepareRequest{Fence: f})
	s.ok("Prepare", err)
	c, err := s.c.Commit(s.ctx, &providerv1.CommitRequest{Fence: f})
	s.ok("Commit", err)
	if c.GetOccupancy().GetAttached() != 1 {
		s.t.Errorf("Commit answered occupancy %v; want attached 1", c.GetOccupancy())
	}
	st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
	s.ok("Status after Commit with a follower attached (the provider must still serve)", err)
	if st.GetPhase() != providerv1.Phase_PHASE_COMMITTED || st.GetAdmitting() {
		s.t.Errorf("Status after Commit: %v; want COMMITTED, not admitting", st)
	}
	_, err = s.c.Cancel(s.ctx, &providerv1.CancelRequest{Fence: f})
	s.refused("Cancel after Commit", err, codes.FailedPrecondition, "COMMITTED")
	_, err = s.c.Detach(s.ctx, &providerv1.DetachRequest{InstanceId: "follower-1"})
	s.ok("Detach after Commit", err)
	select {
	case <-s.in.Done:
	case <-s.ctx.Done():
		s.t.Fatal("the provider did not exit after Commit once the last follower detached")
	}
}

// occupancyAttach: WatchOccupancy answers the current value first;
// attached counts instance ids (a repeated Attach once), Detach of an
// unknown id is a no-op.
func occupancyAttach(s *session) {
	th := s.thread("suite occupancy")
	w, err := s.c.WatchOccupancy(s.ctx, &providerv1.WatchOccupancyRequest{})
	s.ok("WatchOccupancy", err)
	first, err := w.Recv()
	s.ok("WatchOccupancy: first value", err)
	if o := first.GetOccupancy(); o.GetAttached() != 0 || !first.GetAdmitting() || first.GetPhase() != providerv1.Phase_PHASE_IDLE {
		s.t.Errorf("WatchOccupancy first sent %v; want nothing attached, admitting, IDLE", first)
	}
	for range 2 {
		_, err = s.c.Attach(s.ctx, &providerv1.AttachRequest{InstanceId: "follower-1", Target: th})
		s.ok("Attach", err)
	}
	s.watchAttached(w, 1)
	_, err = s.c.Detach(s.ctx, &providerv1.DetachRequest{InstanceId: "nobody"})
	s.ok("Detach of an unknown id", err)
	_, err = s.c.Detach(s.ctx, &providerv1.DetachRequest{InstanceId: "follower-1"})
	s.ok("Detach", err)
	s.watchAttached(w, 0)
	st, err := s.c.Status(s.ctx, &providerv1.StatusRequest{})
	s.ok("Status", err)
	if st.GetOccupancy().GetAttached() != 0 {
		s.t.Errorf("Status: attached %d after the only follower detached; want 0", st.GetOccupancy().GetAttached())
	}
}

// watchAttached reads w until attached is n.
func (s *session) watchAttached(w providerv1.ProviderService_WatchOccupancyClient, n uint32) {
	s.t.Helper()
	for {
		r, err := w.Recv()
		s.ok(fmt.Sprintf("WatchOccupancy, waiting for attached %d", n), err)
		if got := r.GetOccupancy().GetAttached(); got == n {
			return
		} else if got > 1 {
			s.t.Fatalf("WatchOccupancy: attached %d for one follower attached twice", got)
		}
	}
}

// occupancyInbound: an update sent and not acknowledged is inbound work;
// its Ack settles it.
func occupancyInbound(s *session) {
	th := s.bound("suite inbound")
	u := s.open(nil)
	up := u.say(th, "inbound suite")
	s.waitInbound(1)
	u.ack(up.GetUpdateId())
	s.waitInbound(0)
}

func (s *session) upload(th *providerv1.Target, name string, data []byte) (*providerv1.UploadFileResponse, error) {
	up, err := s.c.UploadFile(s.ctx)
	if err != nil {
		return nil, err
	}
	if err := up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{
		Filename: name, Kind: "document", Target: th}}}); err != nil && err != io.EOF {
		return nil, err
	}
	for chunk := range slices.Chunk(data, 1000) {
		if err := up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: chunk}}); err != nil {
			break // the answer says why
		}
	}
	return up.CloseAndRecv()
}

func (s *session) download(id string) ([]byte, error) { return Download(s.ctx, s.c, id) }

// files: a file uploaded into a thread is referenced (kind FILE) and
// downloads as the same bytes.
func files(s *session) {
	th := s.thread("suite files")
	data := []byte(strings.Repeat("chatbus suite file\n", 200))
	r, err := s.upload(th, "suite.txt", data)
	s.ok("UploadFile", err)
	var fileID string
	for _, ref := range r.GetReferences().GetItems() {
		if ref.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_FILE {
			fileID = ref.GetId()
		}
	}
	if fileID == "" {
		s.t.Fatalf("UploadFile answered references %v; want the file", r.GetReferences())
	}
	got, err := s.download(fileID)
	s.ok("DownloadFile of the uploaded file", err)
	if !bytes.Equal(got, data) {
		s.t.Errorf("DownloadFile gave %d bytes; want the %d uploaded", len(got), len(data))
	}
}

// unknownFile: a file id the platform does not know is NOT_FOUND.
func unknownFile(s *session) {
	id := s.target.UnknownFileID
	if id == "" {
		id = "no-such-file-suite"
	}
	_, err := s.download(id)
	s.refused("DownloadFile of an unknown id", err, codes.NotFound, "NOT_FOUND")
}

// limits: what Describe declares about limits is usable by the
// supervisor: max_text_chars set; each rate limit named, of a scope, a
// positive count per a positive window, counting only calls the provider
// declares; a lasting verb lasts a positive time.
func limits(s *session) {
	d := s.describe()
	if d.GetMaxTextChars() == 0 {
		s.t.Error("max_text_chars 0")
	}
	// A limit may name any verb (a verb declared in another mode of the
	// provider, e.g. Telegram's draft in private chats only), but no
	// method or verb the contract does not know: that is a typo.
	calls := append([]string{"upload"}, knownVerbs...)
	for _, v := range d.GetVerbs() {
		if v.GetName() == "typing" && v.GetLasts().AsDuration() <= 0 {
			s.t.Errorf("verb typing without how long it lasts")
		}
	}
	for _, m := range d.GetMethods() {
		calls = append(calls, m.GetName())
	}
	names := map[string]bool{}
	for _, l := range d.GetLimits() {
		if l.GetName() == "" || names[l.GetName()] {
			s.t.Errorf("limit %v: want a name of its own", l)
		}
		names[l.GetName()] = true
		if l.GetScope() == providerv1.LimitScope_LIMIT_SCOPE_UNSPECIFIED || l.GetCount() == 0 || l.GetPer().AsDuration() <= 0 {
			s.t.Errorf("limit %q: scope %v, %d per %v; want a scope and a positive count and window", l.GetName(), l.GetScope(), l.GetCount(), l.GetPer().AsDuration())
		}
		for _, m := range l.GetMethods() {
			if !slices.Contains(calls, m) {
				s.t.Errorf("limit %q counts %q, which the provider does not declare", l.GetName(), m)
			}
		}
	}
}

// fault: a platform failure reaches the supervisor in the contract's
// class, nothing is sent, and the next call goes through.
func fault(s *session, f Fault) {
	th := s.thread("suite errors")
	s.in.Platform.Fail(s.t, f)
	_, err := s.call(th, "send", &providerv1.SendParams{Text: "into a failing platform"}, "")
	switch f {
	case RateLimited:
		s.refused("send "+f.String(), err, codes.ResourceExhausted, "RATE_LIMITED")
		if ri := retryInfo(err); ri.GetRetryDelay().AsDuration() <= 0 {
			s.t.Errorf("send %s: %v; want a RetryInfo with the platform's delay", f, err)
		}
	case Unavailable:
		// Either "not done, safe to retry" or "may have been done": a
		// 5xx from a proxy in front of the platform can come after the
		// platform acted (Slack classes it so); never a refusal.
		if status.Code(err) == codes.Unknown {
			s.refused("send "+f.String(), err, codes.Unknown, "AMBIGUOUS")
		} else {
			s.refused("send "+f.String(), err, codes.Unavailable, "PLATFORM_UNREACHABLE")
		}
	case Revoked:
		s.refused("send "+f.String(), err, codes.PermissionDenied, "PERMISSION_DENIED")
	}
	if n := s.in.Platform.Sent(s.t, th); n != 0 {
		s.t.Errorf("the bot has %d message(s) in the thread after a refused send; want none", n)
	}
	_, err = s.call(th, "send", &providerv1.SendParams{Text: "after the fault"}, "")
	s.ok("send after the fault passed", err)
}
