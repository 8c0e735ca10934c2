package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The fuzz target's seed corpus is in testdata/fuzz/FuzzConfig (with
// deploy/config.example.yaml); run it with
// go test -fuzz=FuzzConfig ./cmd/supervisord.

// FuzzConfig reads a config file's bytes as supervisord does: YAML that
// does not parse is refused with a *ConfigError; anything else is taken or
// refused with a *ConfigError whose every problem says why and points
// within the file; the same bytes give the same outcome again; a file
// taken yields provider specs with valid names.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("heartbeat_interval: 2s\nproviders:\n  telegram:\n    forum_chat_id: -1001234567890\n    allowed_user_ids: [42]\n"))
	f.Add([]byte("stale_after: soon\nmax_followers: -3\n"))
	f.Add([]byte("journal: [1, 2]\nprovders: {}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &config{path: "fuzz.yaml", lines: map[string]int{}, found: true}
		err := c.parse(b)
		var node yaml.Node
		if yaml.Unmarshal(b, &node) != nil && err == nil {
			t.Fatalf("%q does not parse as YAML and was taken", b)
		}
		lines := bytes.Count(b, []byte("\n")) + 1
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("refused with %#v", err)
			}
			for _, p := range ce.Problems {
				if strings.TrimSpace(p.why) == "" || p.line < 0 || p.line > lines {
					t.Fatalf("problem %+v of a file of %d lines", p, lines)
				}
			}
		}
		for key, l := range c.lines {
			if l < 1 || l > lines {
				t.Fatalf("key %q at line %d of a file of %d lines", key, l, lines)
			}
		}
		again := &config{path: "fuzz.yaml", lines: map[string]int{}, found: true}
		err2 := again.parse(b)
		// (Compared as YAML: a provider's setting may be NaN, and a
		// pointer's address differs.)
		y1, _ := yaml.Marshal(c.fileConfig)
		y2, _ := yaml.Marshal(again.fileConfig)
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || !bytes.Equal(y1, y2) {
			t.Fatalf("the same bytes read twice: %v, then %v", err, err2)
		}
		if err != nil {
			return
		}
		for _, s := range c.providerSpecs() {
			if !providerName.MatchString(s.Name) {
				t.Fatalf("a provider spec named %q", s.Name)
			}
		}
	})
}
