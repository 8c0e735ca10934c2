package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func sampleProviders() *chatbusv1.ListProvidersResponse {
	return &chatbusv1.ListProvidersResponse{Providers: []*chatbusv1.ProviderInfo{
		{Name: "playground", Platform: "playground", State: chatbusv1.ProviderState_PROVIDER_STATE_RUNNING, Serving: true, Default: true, Pid: 42},
		{Name: "telegram", Platform: "telegram", State: chatbusv1.ProviderState_PROVIDER_STATE_FATAL, Ingested: 1 << 40,
			HealthDetail: "Bot API unreachable", HealthSince: timestamppb.Now(),
			StderrTail: []string{`{"level":"error","message":"provider cannot run"}`, "yes: true"},
			Outbound: &chatbusv1.OutboundQueue{Queued: 12, Prompts: 1, Messages: 9, Edits: 2, OldestWait: durationpb.New(3200 * time.Millisecond),
				Limits: []*chatbusv1.RateLimitInfo{{Name: "chat", Scope: "chat", Count: 3, Per: durationpb.New(3 * time.Second)},
					{Name: "group", Scope: "chat", Count: 20, Per: durationpb.New(time.Minute)}}}},
	}}
}

// TestYAMLIsTheJSONRecord: -o yaml is -o json's tree, whatever the
// values look like (numbers as strings, "true", empty lists, nested).
func TestYAMLIsTheJSONRecord(t *testing.T) {
	tests := []struct {
		name string
		data func() ([]byte, error)
	}{
		{name: "proto", data: protoData(sampleProviders())},
		{name: "proto list", data: protoListData(sampleProviders().GetProviders())},
		{name: "empty list", data: protoListData([]*chatbusv1.Follower{})},
		{name: "map", data: jsonData(map[string]any{"running": true, "pid": 7, "s": "true", "n": "007", "empty": []string{}, "nested": map[string]any{"k": "a: b"}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := tt.data()
			if err != nil {
				t.Fatal(err)
			}
			y, err := jsonToYAML(j)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(y, []byte("{")) && !strings.Contains(string(y), `"{`) && !strings.Contains(string(y), `'{`) {
				t.Errorf("flow style left in:\n%s", y)
			}
			var fromJSON, fromYAML any
			if err := json.Unmarshal(j, &fromJSON); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(y, &fromYAML); err != nil {
				t.Fatal(err)
			}
			// Through JSON again, so that numbers compare alike.
			b, err := json.Marshal(fromYAML)
			if err != nil {
				t.Fatal(err)
			}
			var again any
			json.Unmarshal(b, &again)
			if !reflect.DeepEqual(fromJSON, again) {
				t.Errorf("yaml and json differ:\njson %s\nyaml %s", j, y)
			}
		})
	}
}

func TestCheckFormat(t *testing.T) {
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	named, _, _ := root.Find([]string{"providers"})
	unnamed, _, _ := root.Find([]string{"status"})
	tests := []struct {
		name    string
		json    bool
		output  string
		named   bool
		wantErr string
	}{
		{name: "table", named: true},
		{name: "json flag", json: true},
		{name: "json both", json: true, output: "json"},
		{name: "yaml", output: "yaml"},
		{name: "wide", output: "wide"},
		{name: "name on providers", output: "name", named: true},
		{name: "name on status", output: "name", wantErr: "busctl status has no names to print"},
		{name: "unknown", output: "xml", wantErr: `unknown output format "xml"`},
		{name: "contradiction", json: true, output: "yaml", wantErr: "contradict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{json: tt.json, output: tt.output}
			cmd := unnamed
			if tt.named {
				cmd = named
			}
			err := a.checkFormat(cmd)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err) != exitUsage {
				t.Errorf("error %v (exit %d), want %q and exit 2", err, exitCode(err), tt.wantErr)
			}
		})
	}
}

// TestProvidersViewSaysWhy: a provider that does not serve says why and
// since when under its row, and the last lines of its stderr.
func TestProvidersViewSaysWhy(t *testing.T) {
	v := providersTable(sampleProviders())
	if strings.Join(v.names, ",") != "playground,telegram" {
		t.Errorf("names %q", v.names)
	}
	a := &app{}
	b, err := a.encode(v)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{
		"playground*", "FATAL", "not-serving",
		"\n    not serving: Bot API unreachable (since " + clock(time.Now()) + ")\n",
		"\n    last lines on stderr:\n      {\"level\":\"error\",\"message\":\"provider cannot run\"}\n      yes: true\n",
		"\n    waiting for the platform's limits: 12 (prompts 1, messages 9, edits 2, typing and reactions 0), the oldest for 3.2s; paced to chat 3/3s, group 20/1m\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("providers table lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "not serving:") != 1 {
		t.Errorf("a serving provider has a health note:\n%s", out)
	}
}

// TestClusterViewLines: busctl cluster prints its summary on a line of
// its own, then the table's header and one row per member.
func TestClusterViewLines(t *testing.T) {
	cl := &chatbusv1.GetClusterResponse{Cluster: "home", Node: "devbox",
		Leaders: []*chatbusv1.ClusterLeader{{Provider: "telegram", Node: "laptop", LeaseTtlSeconds: 5, LeaseRemainingSeconds: 4}},
		Members: []*chatbusv1.ClusterMember{
			{Node: "devbox", Address: "devbox.lan:7440", StartedAt: timestamppb.Now()},
			{Node: "laptop", Address: "laptop.lan:7440", Leading: true, Followers: 4, Terms: 2, StartedAt: timestamppb.Now()},
		}}
	b, err := (&app{}).encode(clusterView(cl))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "home, this node devbox; telegram led by laptop (lease 4s of 5s); 2 members" ||
		!strings.HasPrefix(lines[1], "NODE ") || !strings.HasPrefix(lines[2], "devbox (this) ") || !strings.HasPrefix(lines[3], "laptop ") ||
		!strings.HasSuffix(string(b), "\n") {
		t.Errorf("busctl cluster:\n%s", b)
	}
}
