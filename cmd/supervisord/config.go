package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/chatbus/chatbus/internal/suggest"
	"github.com/chatbus/chatbus/server/providers"
)

// fileConfig is the per-profile config file (YAML). Every field is
// optional; flags override it. See deploy/config.example.yaml. The yaml
// tags are the keys a person writes; checkNode checks a file against them
// before anything is decoded, so a mistake is reported in those words.
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
	LogFile           string   `yaml:"log_file"`
	LogMaxSizeMB      int      `yaml:"log_max_size_mb"`
	LogMaxBackups     int      `yaml:"log_max_backups"`
	HandoffTTL        duration `yaml:"handoff_ttl"`
	ReconcileGrace    duration `yaml:"reconcile_grace"`
	// CloseOfflineAfter closes the thread of a binding offline this long;
	// "off" never does. If unset, 24h.
	CloseOfflineAfter offDuration `yaml:"close_offline_after"`
	Journal           struct {
		MaxCount int      `yaml:"max_count"`
		MaxBytes int64    `yaml:"max_bytes"`
		MaxAge   duration `yaml:"max_age"`

		// MaxTotalBytes bounds the held updates of all bindings together.
		MaxTotalBytes int64 `yaml:"max_total_bytes"`
	} `yaml:"journal"`
	// Calls bound the at-most-once records of followers' calls.
	Calls struct {
		Keep          duration `yaml:"keep"`
		MaxPerBinding int      `yaml:"max_per_binding"`
	} `yaml:"calls"`
	// Providers by name. The keys in providerKeys are the supervisor's;
	// every other key is the provider's own setting, passed to it on
	// stdin (and checked by the provider itself: see checkProviders).
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
	// Metrics is the opt-in Prometheus endpoint (metrics.go).
	Metrics metricsConfig `yaml:"metrics"`
	// Cluster is the opt-in cluster of several hosts (cluster.go).
	Cluster clusterConfig `yaml:"cluster"`
	// Transcriber turns voice notes into text (voice.go).
	Transcriber transcriberConfig `yaml:"transcriber"`
	// LaunchTemplates are the sessions the allowed users may start from
	// the chat, by template name (launch.go); none: off.
	LaunchTemplates map[string]launchTemplateConfig `yaml:"launch_templates"`

	// SubscribedHeartbeatInterval: the heartbeat interval of followers
	// with an open update stream.
	SubscribedHeartbeatInterval duration `yaml:"subscribed_heartbeat_interval"`
}

// playgroundSpec is the provider run when none is configured.
func playgroundSpec() providers.Spec {
	return providers.Spec{Name: "playground", Default: true, Settings: map[string]any{}}
}

// providerKeys are the supervisor's own keys in a providers.<name>
// section, with what each wants.
var providerKeys = map[string]string{
	"binary":        "string",
	"default":       "bool",
	"start_limit":   "count",
	"start_timeout": "duration",
	"backoff_max":   "duration",
}

// Bounds of the supervisor's values. A key left out takes its default; a
// key written with a value out of range is an error, never a silent
// default or "no bound".
const maxLockTimeout = 120 * time.Second

// rangeRules check values present in the file, by key.
var rangeRules = map[string]func(v any) string{
	"max_followers":      atLeastOne("16384"),
	"journal.max_count":  atLeastOne("10000"),
	"journal.max_bytes":  atLeastOne("67108864 (64 MiB)"),
	"journal.max_age":    positiveDuration("168h (7 days)"),
	"heartbeat_interval": positiveDuration("1s"),
	"stale_after":        positiveDuration("5s"),
	"shutdown_timeout":   positiveDuration("5s"),
	"handoff_ttl":        positiveDuration("30s"),
	"reconcile_grace":    positiveDuration("5s"),
	"close_offline_after": func(v any) string {
		if d := v.(offDuration); d == 0 {
			return "0s is out of range: more than 0, or off to never close threads (leave it out for the default 24h)"
		}
		return ""
	},
	"lock_timeout": func(v any) string {
		d := time.Duration(v.(duration))
		if d <= 0 || d > maxLockTimeout {
			return fmt.Sprintf("%s is out of range: more than 0 and at most %s (leave it out for the default 5s)", d, maxLockTimeout)
		}
		return ""
	},
	"log_level":       oneOf("debug", "info", "warn", "error"),
	"log_format":      oneOf("json", "console", "auto"),
	"log_max_size_mb": atLeastOne("10"),
	"log_max_backups": func(v any) string {
		if v.(int) < 0 {
			return fmt.Sprintf("%d is out of range: 0 (keep none) or more (leave it out for the default 3)", v)
		}
		return ""
	},

	"journal.max_total_bytes":       atLeastOne("1073741824 (1 GiB)"),
	"subscribed_heartbeat_interval": positiveDuration("60s"),
}

func atLeastOne(def string) func(v any) string {
	return func(v any) string {
		n := reflect.ValueOf(v).Int()
		if n < 1 {
			return fmt.Sprintf("%d is out of range: at least 1 (leave it out for the default %s); there is no unbounded setting", n, def)
		}
		return ""
	}
}

func positiveDuration(def string) func(v any) string {
	return func(v any) string {
		if d := time.Duration(v.(duration)); d <= 0 {
			return fmt.Sprintf("%s is out of range: more than 0 (leave it out for the default %s)", d, def)
		}
		return ""
	}
}

func oneOf(vals ...string) func(v any) string {
	return func(v any) string {
		if !slices.Contains(vals, v.(string)) {
			return fmt.Sprintf("%q: want %s", v, strings.Join(vals, ", "))
		}
		return ""
	}
}

// problem is one thing wrong with the config.
type problem struct {
	line int    // 0: not tied to a line
	key  string // dotted path ("journal.max_count", "providers.telegram.tokn"); "" for the file
	why  string
}

func (p problem) String() string {
	var b strings.Builder
	if p.line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.line)
	}
	if p.key != "" {
		b.WriteString(p.key + ": ")
	}
	b.WriteString(p.why)
	return b.String()
}

// ConfigError is a config file that cannot be used: each problem is one
// line naming the file, the key and what is wrong.
type ConfigError struct {
	Path     string
	Problems []problem
}

func (e *ConfigError) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines returns one line per problem.
func (e *ConfigError) Lines() []string {
	out := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		out = append(out, "config "+e.Path+": "+p.String())
	}
	return out
}

// config is a loaded config file.
type config struct {
	fileConfig
	path  string
	found bool
	// lines are the line numbers of the keys present, by dotted path.
	lines map[string]int
}

// line returns the line of key, else of its nearest parent present.
func (c *config) line(key string) int {
	for k := key; k != ""; {
		if l, ok := c.lines[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}

// loadConfig reads path. A missing file is not an error unless required
// (named with --config); anything wrong in it is a *ConfigError.
func loadConfig(path string, required bool) (*config, error) {
	c := &config{path: path, lines: map[string]int{}}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	c.found = true
	return c, c.parse(b)
}

// parse reads the file's bytes b into c: anything wrong in them is a
// *ConfigError.
func (c *config) parse(b []byte) error {
	path := c.path
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return &ConfigError{Path: path, Problems: []problem{{why: yamlWhy(err)}}}
	}
	if len(doc.Content) == 0 { // empty file
		return nil
	}
	root := doc.Content[0]
	var probs []problem
	if root.Kind != yaml.MappingNode {
		probs = append(probs, problem{line: root.Line, why: "the file must be a mapping of keys (see deploy/config.example.yaml)"})
	} else {
		probs = checkStruct(root, reflect.TypeOf(fileConfig{}), "", c.lines)
	}
	if len(probs) == 0 {
		// Every key and type was checked above; decoding cannot fail but
		// for a bug, which is then reported as it is.
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&c.fileConfig); err != nil {
			probs = append(probs, problem{why: yamlWhy(err)})
		}
	}
	if len(probs) == 0 {
		probs = c.checkRanges()
	} else if !slices.ContainsFunc(probs, func(p problem) bool { return strings.HasPrefix(p.key, "providers") }) {
		// The rest of the file is wrong but the providers section is
		// fine: decode it alone, so that the providers' own checks can
		// report in the same run.
		c.Providers = decodeProviders(root)
	}
	if len(probs) > 0 {
		return &ConfigError{Path: path, Problems: probs}
	}
	return nil
}

// decodeProviders decodes the providers section of root, nil if none.
func decodeProviders(root *yaml.Node) map[string]map[string]any {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "providers" {
			var m map[string]map[string]any
			if root.Content[i+1].Decode(&m) == nil {
				return m
			}
		}
	}
	return nil
}

// yamlWhy rewords a YAML library error without its Go types.
func yamlWhy(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	return goType.ReplaceAllString(s, "a value of another type")
}

// goType matches the Go type names YAML errors quote ("main.fileConfig").
var goType = regexp.MustCompile(`(into|in type) [a-z]+\.[A-Za-z.]+`)

// checkStruct checks mapping node m against struct type t: every key
// known, every value of the right kind. lines collects each key's line.
func checkStruct(m *yaml.Node, t reflect.Type, prefix string, lines map[string]int) []problem {
	fields := map[string]reflect.StructField{}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f
		known = append(known, name)
	}
	sort.Strings(known)
	var probs []problem
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := prefix + k.Value
		lines[key] = k.Line
		f, ok := fields[k.Value]
		if !ok {
			why := "unknown key"
			if s := suggest.Closest(k.Value, known); s != "" {
				why += "; did you mean " + s + "?"
			}
			if prefix == "" {
				why += " (every key is in deploy/config.example.yaml)"
			} else {
				why += " (known: " + strings.Join(known, ", ") + ")"
			}
			probs = append(probs, problem{line: k.Line, key: key, why: why})
			continue
		}
		if key == "providers" {
			probs = append(probs, checkProviders(v, lines)...)
			continue
		}
		if key == "launch_templates" {
			probs = append(probs, checkLaunchTemplates(v, lines)...)
			continue
		}
		if why := checkValue(v, f.Type); why != "" {
			probs = append(probs, problem{line: v.Line, key: key, why: why})
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(duration(0)) {
			probs = append(probs, checkStruct(v, f.Type, key+".", lines)...)
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			for j, e := range v.Content {
				probs = append(probs, checkStruct(e, f.Type.Elem(), fmt.Sprintf("%s.%d.", key, j), lines)...)
			}
		}
	}
	return probs
}

// checkValue says what is wrong with v as a value of type t, "" if
// nothing.
func checkValue(v *yaml.Node, t reflect.Type) string {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	switch {
	case t == reflect.TypeOf(duration(0)):
		return wantDuration(v)
	case t == reflect.TypeOf(offDuration(0)):
		if v.Kind == yaml.ScalarNode && v.Value == "off" {
			return ""
		}
		if why := wantDuration(v); why != "" {
			return strings.Replace(why, "(use e.g. 5s, 1m)", "(use e.g. 24h, 30m, or off)", 1)
		}
		return ""
	case t.Kind() == reflect.Struct:
		if v.Kind != yaml.MappingNode {
			return "want a mapping of keys, got " + nodeKind(v)
		}
	case t.Kind() == reflect.String:
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return "want a string, got " + nodeKind(v)
		}
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
			return "want an integer, got " + nodeKind(v)
		}
	case t.Kind() == reflect.Bool:
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			return "want true or false, got " + nodeKind(v)
		}
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String:
		if v.Kind != yaml.MappingNode {
			return "want a mapping of names to strings, got " + nodeKind(v)
		}
		for i := 1; i < len(v.Content); i += 2 {
			if e := v.Content[i]; e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
				return "want a mapping of names to strings, got " + nodeKind(e) + " for " + v.Content[i-1].Value
			}
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		if v.Kind != yaml.SequenceNode {
			return "want a list, got " + nodeKind(v)
		}
		for _, e := range v.Content {
			if e.Kind != yaml.MappingNode {
				return "want a list of mappings, got " + nodeKind(e) + " in it"
			}
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		if v.Kind != yaml.SequenceNode {
			return "want a list of strings, got " + nodeKind(v)
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
				return "want a list of strings, got " + nodeKind(e) + " in it"
			}
		}
	}
	return ""
}

func wantDuration(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		return "want a duration such as 5s or 1m, got " + nodeKind(v)
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil {
		return fmt.Sprintf("%q is not a duration (use e.g. 5s, 1m)", v.Value)
	}
	if d < 0 {
		return fmt.Sprintf("duration %q is negative", v.Value)
	}
	return ""
}

// nodeKind names what a node holds, with its value when it is short.
func nodeKind(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	kind := map[string]string{"!!str": "a string", "!!int": "an integer", "!!float": "a number", "!!bool": "true/false", "!!null": "nothing"}[v.Tag]
	if kind == "" {
		kind = "a value"
	}
	if v.Tag == "!!null" || len(v.Value) > 40 {
		return kind
	}
	return fmt.Sprintf("%s (%s)", kind, v.Value)
}

var providerName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// checkProviders checks the providers section: names, and the
// supervisor's keys in each. The provider's own keys are the provider's
// to check (checkProviderSettings).
func checkProviders(m *yaml.Node, lines map[string]int) []problem {
	if m.Kind != yaml.MappingNode {
		return []problem{{line: m.Line, key: "providers", why: "want a mapping of provider names (e.g. telegram:), got " + nodeKind(m)}}
	}
	var probs []problem
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := "providers." + k.Value
		lines[key] = k.Line
		if !providerName.MatchString(k.Value) {
			probs = append(probs, problem{line: k.Line, key: key, why: "a provider name is lower-case letters, digits and '-' (its binary is provider-<name>)"})
			continue
		}
		if v.Kind != yaml.MappingNode {
			if v.Tag != "!!null" {
				probs = append(probs, problem{line: v.Line, key: key, why: "want a mapping of settings, got " + nodeKind(v)})
			}
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			sk, sv := v.Content[j], v.Content[j+1]
			skey := key + "." + sk.Value
			lines[skey] = sk.Line
			want, ok := providerKeys[sk.Value]
			if !ok {
				continue
			}
			var why string
			switch want {
			case "string":
				why = checkValue(sv, reflect.TypeOf(""))
			case "bool":
				why = checkValue(sv, reflect.TypeOf(false))
			case "count":
				if why = checkValue(sv, reflect.TypeOf(0)); why == "" {
					if n, _ := strconv.Atoi(sv.Value); n < 1 {
						why = fmt.Sprintf("%d is out of range: at least 1 (leave it out for the default 5)", n)
					}
				}
			case "duration":
				if why = wantDuration(sv); why == "" {
					if d, _ := time.ParseDuration(sv.Value); d == 0 {
						why = "must be more than 0 (leave it out for the default)"
					}
				}
			}
			if why != "" {
				probs = append(probs, problem{line: sv.Line, key: skey, why: why})
			}
		}
	}
	return probs
}

// checkRanges checks the values present in the file against rangeRules.
func (c *config) checkRanges() []problem {
	values := map[string]any{
		"max_followers":      c.MaxFollowers,
		"journal.max_count":  c.Journal.MaxCount,
		"journal.max_bytes":  c.Journal.MaxBytes,
		"journal.max_age":    c.Journal.MaxAge,
		"heartbeat_interval": c.HeartbeatInterval,
		"stale_after":        c.StaleAfter,
		"shutdown_timeout":   c.ShutdownTimeout,
		"handoff_ttl":        c.HandoffTTL,
		"reconcile_grace":    c.ReconcileGrace,
		"lock_timeout":       c.LockTimeout,
		"log_level":          c.LogLevel,
		"log_format":         c.LogFormat,
		"log_max_size_mb":    c.LogMaxSizeMB,
		"log_max_backups":    c.LogMaxBackups,

		"journal.max_total_bytes":       c.Journal.MaxTotalBytes,
		"subscribed_heartbeat_interval": c.SubscribedHeartbeatInterval,
	}
	values["close_offline_after"] = c.CloseOfflineAfter
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return c.lines[keys[i]] < c.lines[keys[j]] })
	var probs []problem
	for _, k := range keys {
		line, present := c.lines[k]
		if !present {
			continue
		}
		if why := rangeRules[k](values[k]); why != "" {
			probs = append(probs, problem{line: line, key: k, why: why})
		}
	}
	probs = append(probs, c.checkMetrics()...)
	probs = append(probs, c.checkLaunch()...)
	return append(probs, c.checkTranscriber()...)
}

// providerSpecs turns the checked providers section into specs.
func (fc fileConfig) providerSpecs() []providers.Spec {
	names := make([]string, 0, len(fc.Providers))
	for name := range fc.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	var specs []providers.Spec
	for _, name := range names {
		spec := providers.Spec{Name: name, Settings: map[string]any{}}
		for k, v := range fc.Providers[name] {
			switch k {
			case "binary":
				spec.Binary, _ = v.(string)
			case "default":
				spec.Default, _ = v.(bool)
			case "start_limit":
				n, _ := v.(int)
				spec.StartLimit = n
			case "start_timeout":
				spec.StartTimeout = parseDur(v)
			case "backoff_max":
				spec.BackoffMax = parseDur(v)
			default:
				spec.Settings[k] = v
			}
		}
		specs = append(specs, spec)
	}
	return specs
}

// parseDur reads a duration checked by checkProviders.
func parseDur(v any) time.Duration {
	s, _ := v.(string)
	d, _ := time.ParseDuration(s)
	return d
}

// duration parses Go duration strings ("5s", "1m30s").
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if why := wantDuration(n); why != "" {
		return fmt.Errorf("line %d: %s", n.Line, why)
	}
	v, _ := time.ParseDuration(n.Value)
	*d = duration(v)
	return nil
}

// offDuration is a duration that may also be "off" (stored as -1).
type offDuration time.Duration

func (d *offDuration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "off" {
		*d = -1
		return nil
	}
	var v duration
	if err := v.UnmarshalYAML(n); err != nil {
		return err
	}
	*d = offDuration(v)
	return nil
}
