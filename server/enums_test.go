package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/reload"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// named lists the values of a domain enum that have a name: those its
// String knows (known says which). The domain's own name table is thus
// the list a new value lands in, and TestEnumTables sees it.
func named[D ~int | ~int32 | ~uint8](known func(D) bool) []D {
	var out []D
	for i := range 256 {
		if d := D(i); known(d) {
			out = append(out, d)
		}
	}
	return out
}

// TestEnumTables: every value of each chatbus.v1 enum the supervisor sends
// comes from exactly one domain value, and every domain value has one
// (adding a value on either side without mapping it fails here).
func TestEnumTables(t *testing.T) {
	check := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	check("refKinds", enumtab.Check(refKinds, chatbusv1.ReferenceKind(0).Descriptor(),
		named(func(k store.RefKind) bool { return k.String() != "" })))
	check("updateKinds", enumtab.Check(updateKinds, chatbusv1.UpdateKind(0).Descriptor(),
		named(func(k store.UpdateKind) bool { return k.String() != "" })))
	check("deadLetterCauses", enumtab.Check(deadLetterCauses, chatbusv1.DeadLetterCause(0).Descriptor(),
		named(func(c store.DeadLetterCause) bool { return c.String() != "" })))
	check("bindingStatuses", enumtab.Check(bindingStatuses, chatbusv1.BindingStatus(0).Descriptor(), nil))
	check("origins", enumtab.Check(origins, chatbusv1.Origin(0).Descriptor(), nil))
	check("providerStates", enumtab.Check(providerStates, chatbusv1.ProviderState(0).Descriptor(),
		named(func(s supervise.State) bool { return !strings.HasPrefix(s.String(), "State(") })))
	check("eventKinds", enumtab.Check(eventKinds, chatbusv1.EventKind(0).Descriptor(),
		named(func(k events.Kind) bool { return k.String() != "unknown" })))
	check("wayIns", enumtab.Check(wayIns, chatbusv1.WayIn(0).Descriptor(),
		named(func(w registry.WayIn) bool { return w.String() != "" })))
	check("changeActions", enumtab.Check(changeActions, chatbusv1.ConfigChangeAction(0).Descriptor(),
		named(func(a reload.Action) bool { return a.String() != "" })))
	check("restartPhases", enumtab.Check(restartPhases, chatbusv1.RestartPhase(0).Descriptor(),
		named(func(p doctor.Phase) bool { return p.String() != "" })))
	check("outcomeKinds", enumtab.Check(outcomeKinds, chatbusv1.OutcomeKind(0).Descriptor(),
		named(func(k doctor.Kind) bool { return k.String() != "" && k != doctor.Retired })))
	check("outcomeReasons", enumtab.Check(outcomeReasons, chatbusv1.OutcomeReason(0).Descriptor(),
		named(func(r doctor.Reason) bool { return r.String() != "" })))
	check("fencePhases", enumtab.Check(fencePhases, chatbusv1.FencePhase(0).Descriptor(),
		enumtab.Values[providerv1.Phase](providerv1.Phase(0).Descriptor())))
}

// TestEnumTablesKeepNames: each pair joins values of the same meaning, as
// their names say (the tables are written by hand; a swapped pair would
// pass a coverage check). The domain's name is compared with the proto
// value's name less its enum prefix.
func TestEnumTablesKeepNames(t *testing.T) {
	type pair struct{ domain, proto string }
	var pairs []pair
	add := func(domain string, p protoreflect.Enum) {
		v := p.Descriptor().Values().ByNumber(p.Number())
		pairs = append(pairs, pair{domain, string(v.Name())})
	}
	for _, k := range named(func(k store.RefKind) bool { return k.String() != "" }) {
		add(k.String(), refKinds.Proto(k))
	}
	for _, k := range named(func(k store.UpdateKind) bool { return k.String() != "" }) {
		add(k.String(), updateKinds.Proto(k))
	}
	for _, s := range []store.Status{store.StatusActive, store.StatusStarting, store.StatusPending, store.StatusSuspended,
		store.StatusOffline, store.StatusStale, store.StatusFailed} {
		add(string(s), bindingStatuses.Proto(s))
	}
	for _, s := range named(func(s supervise.State) bool { return !strings.HasPrefix(s.String(), "State(") }) {
		add(s.String(), providerStates.Proto(s))
	}
	for _, k := range named(func(k events.Kind) bool { return k.String() != "unknown" }) {
		add(k.String(), eventKinds.Proto(k))
	}
	for _, w := range named(func(w registry.WayIn) bool { return w.String() != "" }) {
		add(w.String(), wayIns.Proto(w))
	}
	for _, a := range named(func(a reload.Action) bool { return a.String() != "" }) {
		add(a.String(), changeActions.Proto(a))
	}
	for _, p := range named(func(p doctor.Phase) bool { return p.String() != "" }) {
		add(p.String(), restartPhases.Proto(p))
	}
	for _, k := range named(func(k doctor.Kind) bool { return k.String() != "" && k != doctor.Retired }) {
		add(k.String(), outcomeKinds.Proto(k))
	}
	for _, r := range named(func(r doctor.Reason) bool { return r.String() != "" }) {
		add(r.String(), outcomeReasons.Proto(r))
	}
	for _, p := range enumtab.Values[providerv1.Phase](providerv1.Phase(0).Descriptor()) {
		add(strings.TrimPrefix(p.String(), "PHASE_"), fencePhases.Proto(p))
	}
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer(" ", "_").Replace(s)) }
	for _, p := range pairs {
		if !strings.HasSuffix(norm(p.proto), "_"+norm(p.domain)) {
			t.Errorf("%q maps to %s", p.domain, p.proto)
		}
	}
	if len(pairs) < 60 {
		t.Fatalf("only %d pairs compared", len(pairs))
	}
}

// TestUnknownKindsGoOutUnspecified: a value the tables do not hold (a
// retirement's outcome, a kind a newer provider stored) goes out as the
// proto's zero value, never as a number the proto does not declare.
func TestUnknownKindsGoOutUnspecified(t *testing.T) {
	if got := outcomeKinds.Proto(doctor.Retired); got != chatbusv1.OutcomeKind_OUTCOME_KIND_UNSPECIFIED {
		t.Errorf("Retired went out as %v", got)
	}
	if got := updateToProto(store.Update{Kind: 0}, "p").GetKind(); got != chatbusv1.UpdateKind_UPDATE_KIND_UNSPECIFIED {
		t.Errorf("kind 0 went out as %v", got)
	}
	if got := updateToProto(store.Update{Kind: 9}, "p").GetKind(); got != chatbusv1.UpdateKind_UPDATE_KIND_UNSPECIFIED {
		t.Errorf("kind 9 went out as %v", got)
	}
	if got := originToProto(-1); got != chatbusv1.Origin_ORIGIN_DETACHED {
		t.Errorf("an unknown origin went out as %v", got)
	}
}
