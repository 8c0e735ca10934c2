package main

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func TestHealthSummary(t *testing.T) {
	at := time.Date(2024, 3, 1, 9, 12, 0, 0, time.Local)
	tests := []struct {
		name string
		ps   []*chatbusv1.ProviderInfo
		want string
	}{
		{name: "none", want: "none configured"},
		{name: "all serving", ps: []*chatbusv1.ProviderInfo{{Name: "a", Serving: true}, {Name: "b", Serving: true}}, want: "2 serving"},
		{name: "one down", ps: []*chatbusv1.ProviderInfo{
			{Name: "playground", Serving: true},
			{Name: "telegram", HealthDetail: "Bot API unreachable", HealthSince: timestamppb.New(at)},
		}, want: "1 serving, 1 not serving (telegram: Bot API unreachable since Mar 1 09:12)"},
		{name: "no detail", ps: []*chatbusv1.ProviderInfo{{Name: "slack", LastError: "token_revoked"}, {Name: "x"}},
			want: "0 serving, 2 not serving (slack: token_revoked; x: not serving)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summarize(tt.ps).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	if got := clock(time.Now()); len(got) != len("09:12") {
		t.Errorf("today's clock %q, want HH:MM", got)
	}
}
