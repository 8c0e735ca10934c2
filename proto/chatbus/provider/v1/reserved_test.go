package providerv1_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// TestFirstGenerationReserved: the numeric ids of the provider contract's
// first generation (and Start.cursor, kept for them) are gone, their
// numbers and names reserved, so that no later field reuses them with
// another meaning for a peer that still sends the old one.
func TestFirstGenerationReserved(t *testing.T) {
	checkReserved(t, []reservedFields{
		{&providerv1.UpdatesRequest_Start{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "cursor"}},
		{&providerv1.Update{}, map[protoreflect.FieldNumber]protoreflect.Name{2: "chat_id", 3: "thread_id", 4: "from_user_id"}},
		{&providerv1.References{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "message_ids", 2: "callback_query_ids", 3: "file_ids"}},
		{&providerv1.UploadFileRequest_Header{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "chat_id", 2: "thread_id"}},
		{&providerv1.ProvisionTargetRequest{}, map[protoreflect.FieldNumber]protoreflect.Name{2: "chat_id"}},
		{&providerv1.ProvisionTargetResponse{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "chat_id", 2: "thread_id"}},
		{&providerv1.CloseTargetRequest{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "chat_id", 2: "thread_id"}},
		{&providerv1.AttachRequest{}, map[protoreflect.FieldNumber]protoreflect.Name{2: "chat_id", 3: "thread_id"}},
	})
}

// TestSecondGenerationReserved: generation 3 dropped the single-update
// form of the Updates stream (UpdatesResponse.update, and the
// Start.accepts_batches that asked for the other form): their numbers and
// names stay reserved.
func TestSecondGenerationReserved(t *testing.T) {
	checkReserved(t, []reservedFields{
		{&providerv1.UpdatesResponse{}, map[protoreflect.FieldNumber]protoreflect.Name{1: "update"}},
		{&providerv1.UpdatesRequest_Start{}, map[protoreflect.FieldNumber]protoreflect.Name{3: "accepts_batches"}},
	})
}

// reservedFields are fields of msg, by number, that must be gone with
// their numbers and names reserved.
type reservedFields struct {
	msg    proto.Message
	fields map[protoreflect.FieldNumber]protoreflect.Name
}

func checkReserved(t *testing.T, cases []reservedFields) {
	t.Helper()
	for _, c := range cases {
		md := c.msg.ProtoReflect().Descriptor()
		t.Run(string(md.FullName()), func(t *testing.T) {
			for num, name := range c.fields {
				if f := md.Fields().ByNumber(num); f != nil {
					t.Errorf("field %d is %s, want it reserved", num, f.Name())
				}
				if f := md.Fields().ByName(name); f != nil {
					t.Errorf("field %s is number %d, want the name reserved", name, f.Number())
				}
				if !md.ReservedRanges().Has(num) {
					t.Errorf("number %d (%s) is not reserved", num, name)
				}
				if !md.ReservedNames().Has(name) {
					t.Errorf("name %s (%d) is not reserved", name, num)
				}
			}
		})
	}
}

// TestNoNumericIDs: every platform id the contract carries is text. A
// 64-bit integer field is a counter, a size or the stream's update id,
// never a chat, thread, user, message or file (those are named in the
// platform's own form, which is not a number on Slack).
func TestNoNumericIDs(t *testing.T) {
	allowed := map[protoreflect.FullName]bool{
		"chatbus.provider.v1.Update.update_id":             true, // the stream's own sequence
		"chatbus.provider.v1.UpdatesRequest.Ack.update_id": true,
		"chatbus.provider.v1.DownloadFileResponse.size":    true,
		"chatbus.provider.v1.Audio.size":                   true, // bytes
	}
	fd := providerv1.File_chatbus_provider_v1_provider_proto
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			md := ms.Get(i)
			for j := range md.Fields().Len() {
				f := md.Fields().Get(j)
				switch f.Kind() {
				case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind:
					if !allowed[f.FullName()] {
						t.Errorf("%s is a 64-bit integer: platform ids are text", f.FullName())
					}
				}
			}
			walk(md.Messages())
		}
	}
	walk(fd.Messages())
}
