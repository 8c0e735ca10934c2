package slack

import "testing"

func TestEmojiName(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{name: "eyes", in: "👀", want: "eyes"},
		{name: "thumbs up", in: "👍", want: "+1"},
		{name: "with a tone", in: "👍🏽", want: "+1::skin-tone-4"},
		{name: "darkest tone", in: "👍🏿", want: "+1::skin-tone-6"},
		{name: "variation selector", in: "❤️", want: "heart"},
		{name: "without the selector", in: "❤", want: "heart"},
		{name: "check mark", in: "✅", want: "white_check_mark"},
		{name: "cross", in: "❌", want: "x"},
		{name: "thinking, not gemoji's thinking", in: "🤔", want: "thinking_face"},
		{name: "party", in: "🎉", want: "tada"},
		{name: "keycap", in: "#️⃣", want: "hash"},
		{name: "zwj sequence", in: "👩‍💻", want: "female-technologist"},
		{name: "zwj sequence with a tone", in: "👩🏽‍💻", want: "female-technologist::skin-tone-4"},
		{name: "flag", in: "🇫🇷", want: "fr"},
		{name: "a tone alone", in: "🏽", want: "skin-tone-4"},
		{name: "a name", in: "eyes", want: "eyes"},
		{name: "a name in colons", in: ":white_check_mark:", want: "white_check_mark"},
		{name: "a workspace's own", in: ":party-parrot:", want: "party-parrot"},
		{name: "a name with a tone", in: "+1::skin-tone-3", want: "+1::skin-tone-3"},
		{name: "text", in: "hello world", err: true},
		{name: "upper case", in: "EYES", err: true},
		{name: "two emoji", in: "👀👀", err: true},
		{name: "a tone on what takes none", in: "👀🏽", err: true},
		{name: "two tones", in: "🧑🏻‍🤝‍🧑🏿", err: true},
		{name: "a letter", in: "é", err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := emojiName(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("emojiName(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}
