package providers

import (
	"strings"
	"testing"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/store"
)

// TestEnumTables: every value of the contract's ReferenceKind and
// UpdateKind has a store kind of the same name and every store kind one of
// the contract (adding a value on either side without mapping it fails).
func TestEnumTables(t *testing.T) {
	var refs []store.RefKind
	for k := range store.RefKind(255) {
		if k.String() != "" {
			refs = append(refs, k)
		}
	}
	var updates []store.UpdateKind
	for k := range store.UpdateKind(1024) {
		if k.String() != "" {
			updates = append(updates, k)
		}
	}
	if err := enumtab.Check(refKinds, providerv1.ReferenceKind(0).Descriptor(), refs); err != nil {
		t.Error(err)
	}
	if err := enumtab.Check(updateKinds, providerv1.UpdateKind(0).Descriptor(), updates); err != nil {
		t.Error(err)
	}
	for _, k := range refs {
		if p := refKinds.Proto(k).String(); !strings.HasSuffix(p, "_"+strings.ToUpper(k.String())) {
			t.Errorf("%v maps to %s", k, p)
		}
	}
	for _, k := range updates {
		if p := updateKinds.Proto(k).String(); !strings.HasSuffix(p, "_"+strings.ToUpper(k.String())) {
			t.Errorf("%v maps to %s", k, p)
		}
	}
}

// TestInboundKinds: an update's kind and its references cross by table; a
// kind this build does not know is stored as 0 and a reference of an
// unknown kind is dropped, never stored under a number the store does not
// know.
func TestInboundKinds(t *testing.T) {
	tests := []struct {
		name     string
		kind     providerv1.UpdateKind
		refKinds []providerv1.ReferenceKind
		want     store.UpdateKind
		wantRefs []store.RefKind
	}{
		{name: "message", kind: providerv1.UpdateKind_UPDATE_KIND_MESSAGE,
			refKinds: []providerv1.ReferenceKind{providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE, providerv1.ReferenceKind_REFERENCE_KIND_FILE},
			want:     store.UpdateMessage, wantRefs: []store.RefKind{store.RefMessage, store.RefFile}},
		{name: "button", kind: providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY,
			refKinds: []providerv1.ReferenceKind{providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION},
			want:     store.UpdateCallbackQuery, wantRefs: []store.RefKind{store.RefInteraction}},
		{name: "a newer provider's kinds", kind: 42,
			refKinds: []providerv1.ReferenceKind{0, 17, providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE},
			want:     0, wantRefs: []store.RefKind{store.RefMessage}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &providerv1.Update{Kind: tt.kind, Chat: "c", References: &providerv1.References{}}
			for i, k := range tt.refKinds {
				u.References.Items = append(u.References.Items, &providerv1.Reference{Kind: k, Id: string(rune('a' + i))})
			}
			got := inbound(u).Update
			if got.Kind != tt.want {
				t.Errorf("kind %v stored as %v, want %v", tt.kind, got.Kind, tt.want)
			}
			var kinds []store.RefKind
			for _, r := range got.Refs {
				kinds = append(kinds, r.Kind)
			}
			if len(kinds) != len(tt.wantRefs) {
				t.Fatalf("refs %v, want kinds %v", got.Refs, tt.wantRefs)
			}
			for i := range kinds {
				if kinds[i] != tt.wantRefs[i] {
					t.Errorf("refs %v, want kinds %v", got.Refs, tt.wantRefs)
				}
			}
		})
	}
}
