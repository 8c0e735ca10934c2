package server_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The supervisor knows no chat platform: everything platform-shaped lives
// behind the provider contract. These tests keep that true.

// platformWords are names of platforms and of their fields that the
// supervisor's code (comments included) must not use.
// sendMessage is matched in Telegram's spelling only: the bus's own
// SendMessage verb is neutral.
var platformWords = regexp.MustCompile(`(?i:\b(telegram|slack|discord|forum|botapi|chat_id|message_thread_id|message_id|callback_query(_id)?|inline_message_id|update_id|getupdates|thread_ts|interaction_token|snowflake)\b)|\bsendMessage\b`)

// allowed names the lines that must keep a platform-shaped word, with why.
var allowed = map[string]string{
	// The JSON field a schema 1 state file wrote; read to migrate it.
	"store/bindings.go: ChatID     int64     `json:\"chat_id,omitempty\"`   // schema 1; read only": "schema 1 field",
	// An update kind's name: chatbus.v1's UPDATE_KIND_CALLBACK_QUERY and the
	// metrics' kind label, both public since the first release.
	`store/store.go: UpdateCallbackQuery: "callback_query", // the name of chatbus.v1 and of the metrics' label`: "public kind name",
	// The message verbs' own params (chatbus.provider.v1.EditParams, …).
	`hub/verbs.go: VerbEdit:   {{Name: "message_id", Kind: store.RefMessage, Required: true}},`: "a verb's param",
	`hub/verbs.go: VerbReact:  {{Name: "message_id", Kind: store.RefMessage, Required: true}},`: "a verb's param",
	// The provider contract's UpdatesResponse.updates, by its getter.
	"providers/pump.go: ups := resp.GetUpdates()": "the contract's getter",
}

// TestNoPlatformNames greps the supervisor's non-test Go files for
// platform names and fields.
func TestNoPlatformNames(t *testing.T) {
	if !platformWords.MatchString("a Telegram-shaped message_id") || !platformWords.MatchString("sendMessage") || platformWords.MatchString("SendMessage") {
		t.Fatal("the pattern matches nothing: the test would pass vacuously")
	}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if !platformWords.MatchString(line) {
				continue
			}
			if _, ok := allowed[path+": "+strings.TrimSpace(line)]; ok {
				continue
			}
			t.Errorf("%s:%d names a platform: %s", path, i+1, strings.TrimSpace(line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 30 {
		t.Fatalf("scanned only %d files: the walk missed the supervisor's code", files)
	}
}

// TestNoPlatformImports: nothing the supervisor is built from is a
// provider package (the platforms, or the SDK they use) or the client
// library. (server/servertest, a test harness, dials it with the client.)
func TestNoPlatformImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go tool not found: %v", err)
	}
	const mod = "github.com/chatbus/chatbus/"
	for _, tc := range []struct {
		pkg       string
		forbidden []string
	}{
		{mod + "server", []string{mod + "provider", mod + "client"}},
		{mod + "cmd/supervisord", []string{mod + "provider"}},
	} {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 20 {
			t.Fatalf("go list named %d packages: nothing checked", len(deps))
		}
		for _, dep := range deps {
			for _, f := range tc.forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s", tc.pkg, dep)
				}
			}
		}
	}
}
