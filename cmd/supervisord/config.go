package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatbus/chatbus/server/providers"
)

// fileConfig is the per-profile config file (YAML). Every field is
// optional; flags override it. See deploy/config.example.yaml.
type fileConfig struct {
	Socket            string   `yaml:"socket"`
	StateDir          string   `yaml:"state_dir"`
	HeartbeatInterval duration `yaml:"heartbeat_interval"`
	StaleAfter        duration `yaml:"stale_after"`
	LockTimeout       duration `yaml:"lock_timeout"`
	ShutdownTimeout   duration `yaml:"shutdown_timeout"`
	MaxFollowers      int      `yaml:"max_followers"`
	LogLevel          string   `yaml:"log_level"`
	LogFormat         string   `yaml:"log_format"`
	HandoffTTL        duration `yaml:"handoff_ttl"`
	ReconcileGrace    duration `yaml:"reconcile_grace"`
	Journal           struct {
		MaxCount int      `yaml:"max_count"`
		MaxBytes int64    `yaml:"max_bytes"`
		MaxAge   duration `yaml:"max_age"`
	} `yaml:"journal"`
	// Calls bound the at-most-once records of followers' calls.
	Calls struct {
		Keep          duration `yaml:"keep"`
		MaxPerBinding int      `yaml:"max_per_binding"`
	} `yaml:"calls"`
	// Providers by name. The keys below are the supervisor's; every other
	// key is the provider's own setting, passed to it on stdin.
	Providers map[string]map[string]any `yaml:"providers"`
	// DefaultPlayground runs the playground provider when no provider is
	// configured. If unset, true.
	DefaultPlayground *bool `yaml:"default_playground"`
	Console           struct {
		// Enabled serves the operator console. If unset, true.
		Enabled *bool `yaml:"enabled"`
		// Port on 127.0.0.1; 0: derived from the profile name.
		Port int `yaml:"port"`
	} `yaml:"console"`
}

// playgroundSpec is the provider run when none is configured.
func playgroundSpec() providers.Spec {
	return providers.Spec{Name: "playground", Default: true, Settings: map[string]any{}}
}

// providerSpecs turns the providers section into specs.
func (fc fileConfig) providerSpecs() ([]providers.Spec, error) {
	names := make([]string, 0, len(fc.Providers))
	for name := range fc.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	var specs []providers.Spec
	for _, name := range names {
		if !providerName.MatchString(name) {
			return nil, fmt.Errorf("provider %q: names are lower-case letters, digits and '-' (the binary is provider-<name>)", name)
		}
		raw := fc.Providers[name]
		spec := providers.Spec{Name: name, Settings: map[string]any{}}
		var err error
		for k, v := range raw {
			switch k {
			case "binary":
				spec.Binary, err = asString(k, v)
			case "default":
				b, ok := v.(bool)
				if !ok {
					err = fmt.Errorf("default: want true or false")
				}
				spec.Default = b
			case "start_limit":
				var n int64
				n, err = asInt(k, v)
				spec.StartLimit = int(n)
			case "start_timeout":
				spec.StartTimeout, err = asDuration(k, v)
			case "backoff_max":
				spec.BackoffMax, err = asDuration(k, v)
			default:
				spec.Settings[k] = v
			}
			if err != nil {
				return nil, fmt.Errorf("provider %q: %w", name, err)
			}
		}
		specs = append(specs, spec)
	}
	return specs, nil
}

var providerName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

func asString(k string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string", k)
	}
	return s, nil
}

func asInt(k string, v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case uint64:
		return int64(n), nil
	}
	return 0, fmt.Errorf("%s: want an integer", k)
}

func asDuration(k string, v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("%s: want a duration such as 10s", k)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s: %q is not a duration", k, s)
	}
	return d, nil
}

// duration parses Go duration strings ("5s", "1m30s").
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (use e.g. 5s, 1m)", n.Line, n.Value)
	}
	if v < 0 {
		return fmt.Errorf("line %d: duration %q is negative", n.Line, n.Value)
	}
	*d = duration(v)
	return nil
}

// loadConfig reads path. A missing file is not an error unless required
// (named with --config); unknown keys are.
func loadConfig(path string, required bool) (fileConfig, bool, error) {
	var fc fileConfig
	if path == "" {
		return fc, false, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return fc, false, nil
	}
	if err != nil {
		return fc, false, fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&fc); err != nil && !errors.Is(err, io.EOF) { // io.EOF: empty file
		return fc, false, fmt.Errorf("config %s: %w", path, err)
	}
	return fc, true, nil
}
