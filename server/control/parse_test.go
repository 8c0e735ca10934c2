package control

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       Command
	}{
		{"telegram", "/sessions", Command{Name: CmdSessions}},
		{"telegram addressed", "/sessions@thebot", Command{Name: CmdSessions}},
		{"plain", "sessions", Command{Name: CmdSessions}},
		{"upper case", "STATUS", Command{Name: CmdStatus}},
		{"spaces", "  status \n", Command{Name: CmdStatus}},
		{"slack written out", "/chatbus status", Command{Name: CmdStatus}},
		{"chatbus word", "chatbus help", Command{Name: CmdHelp}},
		{"telegram start", "/start", Command{Name: CmdHelp}},
		{"new", "/new claude web", Command{Name: CmdNew, Template: "claude", Project: "web"}},
		{"new without project", "new claude", Command{Name: CmdNew, Template: "claude"}},
		{"new addressed", "/new@thebot pi api-2", Command{Name: CmdNew, Template: "pi", Project: "api-2"}},
		{"stop", "stop b", Command{Name: CmdStop, Slot: "B"}},
		{"stop two letters", "/stop AA", Command{Name: CmdStop, Slot: "AA"}},
		{"restart", "restart telegram", Command{Name: CmdRestart, Provider: "telegram"}},
		{"restart upper", "restart Slack-2", Command{Name: CmdRestart, Provider: "slack-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.text, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.text, got, tt.want)
			}
		})
	}
}

// TestParseRefusals: each refusal, with the words it tells the person.
func TestParseRefusals(t *testing.T) {
	tests := []struct {
		name, text string
		unknown    bool
		says       string
	}{
		{"empty", "", false, "no command given"},
		{"only chatbus", "/chatbus", false, "no command given"},
		{"unknown", "/frobnicate", true, `unknown command "/frobnicate"; the commands: sessions, status, new, stop, restart, help`},
		{"unknown plain", "hello there", true, "unknown command"},
		{"sessions with args", "sessions all", false, "sessions takes no arguments"},
		{"status with args", "status now", false, "status takes no arguments"},
		{"help with args", "help new", false, "help takes no arguments"},
		{"new without template", "new", false, "usage: new <template> [<project>]"},
		{"new too many", "new claude web extra", false, "usage: new <template> [<project>]"},
		{"new bad template", "new cl$ude", false, `template "cl$ude": a template is named by`},
		{"new dots template", "new ..", false, `template ".."`},
		{"new parent project", "new claude ../etc", false, "not a path"},
		{"new absolute project", "new claude /etc", false, "not a path"},
		{"new dotdot project", "new claude a..b", false, "not a path"},
		{"new backslash project", `new claude a\b`, false, "not a path"},
		{"new home project", "new claude ~root", false, "by its directory's name"},
		{"new hidden project", "new claude .ssh", false, "by its directory's name"},
		{"stop without slot", "stop", false, "usage: stop <slot>"},
		{"stop two slots", "stop A B", false, "usage: stop <slot>"},
		{"stop digits", "stop 12", false, "a slot is a letter"},
		{"stop long", "stop ABCDE", false, "a slot is a letter"},
		{"restart without provider", "restart", false, "usage: restart <provider>"},
		{"restart bad provider", "restart tele/gram", false, "a provider's name is lower-case"},
		{"control character", "new claude we\x01b", false, "control character"},
		{"too long", "new " + strings.Repeat("x", MaxCommandBytes), false, "too long"},
		{"not utf-8", "new \xff", false, "not valid text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.text)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %+v, %v; want a refusal", tt.text, c, err)
			}
			if pe.Unknown != tt.unknown {
				t.Errorf("Unknown = %v, want %v", pe.Unknown, tt.unknown)
			}
			if !strings.Contains(pe.Reason, tt.says) {
				t.Errorf("refusal %q does not say %q", pe.Reason, tt.says)
			}
		})
	}
}

// FuzzParse: whatever the text, Parse returns a command of the vocabulary
// or a refusal with words for the person; a command's arguments hold no
// path, no space, no control character, and reading its String again
// gives the same command.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/sessions", "/sessions@bot", "new claude web", "stop b", "restart telegram",
		"/chatbus status", "new claude ../x", "help", "", "\xff", "stop ZZ", "new a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := Parse(text)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Reason == "" {
				t.Fatalf("Parse(%q): error %v is not a refusal with a reason", text, err)
			}
			if !utf8.ValidString(pe.Reason) && utf8.ValidString(text) {
				t.Fatalf("refusal %q is not valid text", pe.Reason)
			}
			return
		}
		if _, ok := usage[c.Name]; !ok {
			t.Fatalf("Parse(%q) = %+v: not a command of the vocabulary", text, c)
		}
		for _, a := range []string{c.Template, c.Project, c.Slot, c.Provider} {
			if strings.ContainsAny(a, "/\\ \t\n") || strings.Contains(a, "..") {
				t.Fatalf("Parse(%q) = %+v: argument %q", text, c, a)
			}
		}
		again, err := Parse(c.String())
		if err != nil || again != c {
			t.Fatalf("Parse(%q) = %+v; Parse(%q) = %+v, %v", text, c, c.String(), again, err)
		}
	})
}
