package provider_test

import (
	"testing"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// TestRefKindsTable: every RefKind crosses to the contract's ReferenceKind
// and every ReferenceKind has a RefKind; the numbers, which providers
// store, stay.
func TestRefKindsTable(t *testing.T) {
	var kinds []provider.RefKind
	for k := range provider.RefKind(64) {
		if k.String() != "unknown" {
			kinds = append(kinds, k)
		}
	}
	if err := enumtab.Check(provider.RefKindsTable, providerv1.ReferenceKind(0).Descriptor(), kinds); err != nil {
		t.Error(err)
	}
	stored := map[provider.RefKind]int{provider.RefMessage: 1, provider.RefFile: 2, provider.RefInteraction: 3}
	for k, n := range stored {
		if int(k) != n {
			t.Errorf("%v is %d; it is stored as %d", k, int(k), n)
		}
	}
	if len(kinds) != len(stored) {
		t.Errorf("kinds %v; the stored-number check knows %d", kinds, len(stored))
	}
	refs := provider.RefsProto([]provider.Ref{{Kind: provider.RefFile, ID: "f"}, {Kind: 9, ID: "x"}})
	if got := refs.GetItems()[0].GetKind(); got != providerv1.ReferenceKind_REFERENCE_KIND_FILE {
		t.Errorf("RefFile went out as %v", got)
	}
	if got := refs.GetItems()[1].GetKind(); got != providerv1.ReferenceKind_REFERENCE_KIND_UNSPECIFIED {
		t.Errorf("an unknown kind went out as %v", got)
	}
}

// TestLanesTable: every Lane crosses to the contract's Lane and back; a
// lane outside the table goes as a new message.
func TestLanesTable(t *testing.T) {
	lanes := []provider.Lane{provider.LaneMessage, provider.LanePrompt, provider.LaneEdit, provider.LaneAmbient}
	if err := enumtab.Check(provider.LanesTable, providerv1.Lane(0).Descriptor(), lanes); err != nil {
		t.Error(err)
	}
	d := provider.Description{Methods: provider.Methods{{Name: "a", Lane: provider.LaneEdit}, {Name: "b", Lane: 9}}}.Proto()
	if got := d.GetMethods()[0].GetLane(); got != providerv1.Lane_LANE_EDIT {
		t.Errorf("LaneEdit went out as %v", got)
	}
	if got := d.GetMethods()[1].GetLane(); got != providerv1.Lane_LANE_MESSAGE {
		t.Errorf("an unknown lane went out as %v, want LANE_MESSAGE", got)
	}
}

// TestLimitScopesTable: every LimitScope crosses to the contract's
// LimitScope and back.
func TestLimitScopesTable(t *testing.T) {
	scopes := []provider.LimitScope{provider.ScopeBot, provider.ScopeChat, provider.ScopeThread}
	if err := enumtab.Check(provider.LimitScopesTable, providerv1.LimitScope(0).Descriptor(), scopes); err != nil {
		t.Error(err)
	}
}
