package providers

import (
	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/store"
)

// The provider contract's enums cross into the store's types through these
// tables, never by number: the store's numbers are on disk and stay, the
// contract's may grow (enums_test.go checks both against the descriptors).

// refKinds maps what a reference names.
var refKinds = enumtab.New(map[store.RefKind]providerv1.ReferenceKind{
	store.RefMessage:     providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE,
	store.RefFile:        providerv1.ReferenceKind_REFERENCE_KIND_FILE,
	store.RefInteraction: providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION,
})

// updateKinds maps what an inbound update is; a kind this build does not
// know is stored as 0.
var updateKinds = enumtab.New(map[store.UpdateKind]providerv1.UpdateKind{
	store.UpdateMessage:       providerv1.UpdateKind_UPDATE_KIND_MESSAGE,
	store.UpdateEditedMessage: providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE,
	store.UpdateCallbackQuery: providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY,
	store.UpdateReaction:      providerv1.UpdateKind_UPDATE_KIND_REACTION,
	store.UpdateCommand:       providerv1.UpdateKind_UPDATE_KIND_COMMAND,
})

// updateKind is the store's kind of a provider's update kind, 0 for one
// this build does not know.
func updateKind(k providerv1.UpdateKind) store.UpdateKind {
	d, _ := updateKinds.Domain(k)
	return d
}
