package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.yaml.in/yaml/v3"
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
	// Providers is parsed by the provider supervision; the skeleton only
	// reports whether any is configured.
	Providers map[string]yaml.Node `yaml:"providers"`
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

