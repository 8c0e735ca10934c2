package store

import "testing"

// TestStoredKindNumbers: RefKind and UpdateKind numbers are written into
// the journal's records and the sent-reference index; a build that
// renumbered one would read every stored record as another kind. Adding a
// kind means adding it here with a new number.
func TestStoredKindNumbers(t *testing.T) {
	refs := map[RefKind]uint8{RefMessage: 1, RefFile: 2, RefInteraction: 3}
	updates := map[UpdateKind]int32{UpdateMessage: 1, UpdateEditedMessage: 2, UpdateCallbackQuery: 3, UpdateReaction: 4, UpdateCommand: 5}
	n := 0
	for k := range RefKind(255) {
		if k.String() == "" {
			continue
		}
		n++
		if want, ok := refs[k]; !ok || uint8(k) != want {
			t.Errorf("RefKind %v is %d; stored as %d (known %v)", k, uint8(k), want, ok)
		}
	}
	if n != len(refs) {
		t.Errorf("%d named RefKinds, %d pinned", n, len(refs))
	}
	n = 0
	for k := range UpdateKind(1024) {
		if k.String() == "" {
			continue
		}
		n++
		if want, ok := updates[k]; !ok || int32(k) != want {
			t.Errorf("UpdateKind %v is %d; stored as %d (known %v)", k, int32(k), want, ok)
		}
	}
	if n != len(updates) {
		t.Errorf("%d named UpdateKinds, %d pinned", n, len(updates))
	}
}

// TestKindsSurviveTheCodec: each kind reads back as itself from an
// encoded record.
func TestKindsSurviveTheCodec(t *testing.T) {
	for _, k := range []UpdateKind{UpdateMessage, UpdateEditedMessage, UpdateCallbackQuery, UpdateReaction, UpdateCommand} {
		u := Update{Seq: 1, BindingKey: "k", Kind: k, Chat: "c", Refs: []Ref{{Kind: RefInteraction, ID: "q"}, {Kind: RefFile, ID: "f"}}}
		got, err := decodeUpdate(encodeUpdate(&u))
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != k || len(got.Refs) != 2 || got.Refs[0].Kind != RefInteraction || got.Refs[1].Kind != RefFile {
			t.Errorf("%v read back as %+v", k, got)
		}
	}
}
